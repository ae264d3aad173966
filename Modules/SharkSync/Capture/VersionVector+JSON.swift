import Foundation

extension VersionVector {
    /// The vector as JSON carries it (the sync hub's API and database, `shark --since`): each
    /// site's UUID, in upper case, to its sequence number. Sites at 0 are left out.
    ///
    /// ```swift
    /// let body = try JSONEncoder().encode(vector.jsonEntries)
    /// ```
    package var jsonEntries: [String: UInt64] {
        Dictionary(uniqueKeysWithValues: entries.map { ($0.key.uuidString, $0.value) })
    }

    /// The vector of JSON's `entries` (site UUID to sequence), or nil when a site is not a
    /// UUID. A site spelt twice (in upper and lower case) counts with the higher sequence,
    /// whatever order the entries come in.
    ///
    /// ```swift
    /// let vector = VersionVector(jsonEntries: ["6F9619FF-8B86-D011-B42D-00C04FC964FF": 12])
    /// ```
    package init?(jsonEntries entries: [String: UInt64]) {
        self.init()
        for (site, sequence) in entries {
            guard let uuid = UUID(uuidString: site) else { return nil }
            self[uuid] = Swift.max(self[uuid], sequence)
        }
    }
}

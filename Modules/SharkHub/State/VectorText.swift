import Foundation
import SharkSync

/// A version vector as the hub stores and serves it: a JSON object from each site's UUID to
/// its highest sequence number, keys sorted, so equal vectors are equal text.
enum VectorText {
    static func text(_ vector: VersionVector) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        // A dictionary of strings to integers always encodes.
        return (try? String(decoding: encoder.encode(entries(vector)), as: UTF8.self)) ?? "{}"
    }

    /// The vector `text` holds, or nil when it is not one.
    static func vector(_ text: String) -> VersionVector? {
        guard let entries = try? JSONDecoder().decode([String: UInt64].self, from: Data(text.utf8)) else { return nil }
        return vector(entries: entries)
    }

    /// The vector of JSON's entries, or nil when a site is not a UUID
    /// (`VersionVector.init(jsonEntries:)`).
    static func vector(entries: [String: UInt64]) -> VersionVector? { VersionVector(jsonEntries: entries) }

    /// The vector as JSON's entries: site UUID (upper case) to sequence.
    static func entries(_ vector: VersionVector) -> [String: UInt64] { vector.jsonEntries }

    /// The entries of the vector `text` holds (none when it holds none).
    static func entries(_ text: String) -> [String: UInt64] { vector(text)?.jsonEntries ?? [:] }
}

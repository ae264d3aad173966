import Foundation
import SharkSync

/// A version vector as the hub stores and serves it: a JSON object from each site's UUID to
/// its highest sequence number, keys sorted, so equal vectors are equal text.
enum VectorText {
    static func text(_ vector: VersionVector) -> String {
        let entries = Dictionary(uniqueKeysWithValues: vector.entries.map { ($0.key.uuidString, $0.value) })
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        // A dictionary of strings to integers always encodes.
        return (try? String(decoding: encoder.encode(entries), as: UTF8.self)) ?? "{}"
    }

    /// The vector `text` holds, or nil when it is not one.
    static func vector(_ text: String) -> VersionVector? {
        guard let entries = try? JSONDecoder().decode([String: UInt64].self, from: Data(text.utf8)) else { return nil }
        var vector = VersionVector()
        for (site, sequence) in entries {
            guard let uuid = UUID(uuidString: site) else { return nil }
            vector[uuid] = sequence
        }
        return vector
    }
}

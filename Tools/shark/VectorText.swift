import Foundation
import SharkSync

/// Version vectors as `shark` reads and prints them: a JSON object of site ids and sequence
/// numbers (what `shark info --json` prints under `sync.vector`), or `SITE:N,SITE:N`.
enum VectorText {
    static func json(_ vector: VersionVector) -> JSONText {
        .object(
            vector.entries.keys.sorted(by: { $0.uuidString < $1.uuidString }).map {
                ($0.uuidString, .integer(vector[$0]))
            })
    }

    /// `text`, or the content of the file it names; throws a usage error for anything else.
    static func parse(_ text: String) throws -> VersionVector {
        var source = text
        if FileManager.default.fileExists(atPath: text), let data = FileManager.default.contents(atPath: text) {
            source = String(decoding: data, as: UTF8.self)
        }
        let trimmed = source.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.isEmpty || trimmed == "{}" { return VersionVector() }
        if trimmed.hasPrefix("{") {
            guard let data = trimmed.data(using: .utf8),
                var object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
            else { throw invalid(text) }
            // `shark info --json` output as a whole: take its sync vector.
            if let sync = object["sync"] as? [String: Any], let vector = sync["vector"] as? [String: Any] {
                object = vector
            }
            var vector = VersionVector()
            for (site, sequence) in object {
                guard let id = UUID(uuidString: site), let number = sequence as? NSNumber, number.int64Value >= 0 else {
                    throw invalid(text)
                }
                vector[id] = UInt64(number.int64Value)
            }
            return vector
        }
        var vector = VersionVector()
        for entry in trimmed.split(separator: ",") {
            let parts = entry.split(separator: ":", maxSplits: 1)
            guard parts.count == 2, let site = UUID(uuidString: parts[0].trimmingCharacters(in: .whitespaces)),
                let sequence = UInt64(parts[1].trimmingCharacters(in: .whitespaces))
            else { throw invalid(text) }
            vector[site] = sequence
        }
        return vector
    }

    private static func invalid(_ text: String) -> CommandFailure {
        CommandFailure(
            "--since takes a version vector: a JSON object of site ids and numbers, SITE:N,SITE:N, or a file "
                + "holding either (shark info --json prints one); got \(text.prefix(60).debugDescription)",
            exitCode: CommandFailure.usage)
    }
}

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
            // A vector, or `shark info --json` output as a whole (its sync.vector). Decoded as
            // UInt64, so every sequence number fits and `true` is not a number.
            struct Info: Decodable {
                struct Sync: Decodable { var vector: [String: UInt64] }
                var sync: Sync?
            }
            let data = Data(trimmed.utf8)
            let entries =
                (try? JSONDecoder().decode([String: UInt64].self, from: data))
                ?? (try? JSONDecoder().decode(Info.self, from: data))?.sync?.vector
            guard let entries, let vector = VersionVector(jsonEntries: entries) else { throw invalid(text) }
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

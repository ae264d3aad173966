import ArgumentParser
import Foundation
import SharkORM
import SharkSync

/// `shark digest DATABASE…`: the digest of each database's synced content, and whether they
/// agree.
struct DigestCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "digest",
        abstract: "Print the digest of each database's synced content; exit 1 when they differ.",
        discussion: """
            Examples:
              shark digest laptop.sqlite
              shark digest laptop.sqlite phone.sqlite && echo in sync
              shark digest vault.sqlite backup.sqlite --key-file vault.key --json

            Each database must have synced before (a SyncEngine opened it); each is opened \
            read-only and read whole, a page of rows at a time. A digest covers every live synced \
            row: its key, causal length, and each column's value and version (docs/sync.md, \
            "Replica digests"). Prints one line per database; with two or more, exits 1 when \
            their digests or synced schemas differ. Encrypted databases share the one key given.
            """)

    @Argument(help: ArgumentHelp("The SQLite or SQLCipher database files.", valueName: "database"))
    var paths: [String]

    @OptionGroup var key: DatabaseKeyOptions

    @Flag(help: "Print JSON for scripts.")
    var json = false

    func validate() throws {
        if paths.isEmpty { throw ValidationError("name at least one database") }
    }

    func run() throws {
        var agree = true
        try reportingFailures {
            var digests: [SyncDigest] = []
            for path in paths {
                let store = try DatabaseFile.open(path, key: key)
                defer { store.close() }
                let engine = try SyncEngine(recordedIn: store)
                digests.append(try withProgress("reading \(path)") { try engine.digest() })
            }
            agree = digests.allSatisfy { $0.compared(to: digests[0]) == .equal }
            if json {
                let entries: [JSONText] = zip(paths, digests).map { path, digest in
                    .object([
                        ("database", .string(path)), ("digest", .string(digest.contentHex)),
                        ("schema", .string(digest.schemaHex)), ("rows", .integer(digest.rowCount)),
                        ("vector", VectorText.json(digest.vector)),
                    ])
                }
                Terminal.write(JSONText.object([("equal", .bool(agree)), ("databases", .array(entries))]).rendered)
            } else {
                var lines = zip(paths, digests).map { path, digest in
                    "\(path): \(digest.contentHex)  \(digest.rowCount) row(s), schema \(digest.schemaHex.prefix(16))"
                }
                if paths.count > 1 {
                    let schemasAgree = digests.allSatisfy { $0.schema == digests[0].schema }
                    lines.append(agree ? "equal" : schemasAgree ? "different" : "different schemas")
                }
                Terminal.write(lines.joined(separator: "\n") + "\n")
            }
        }
        if !agree { throw ExitCode(1) }
    }
}

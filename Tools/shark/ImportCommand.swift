import ArgumentParser
import Foundation
import SharkORM
import SharkSync

/// `shark import DB FILE…`: replays change logs into a synced database.
struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Replay change logs into a synced database, each file atomically.",
        discussion: """
            Examples:
              shark import notes.sqlite laptop.sharklog phone.sharklog
              shark import vault.sqlite --key-file vault.key --log-key-file log.key sealed.sharklog
              ssh laptop shark export notes.sqlite -o - | shark import notes.sqlite -

            Every file is read and checked whole first (structure, checksums, key, lineage), \
            and the database is checked to be synced, before anything is written. Then each \
            file is applied in one transaction: all of it or nothing. Replaying a file changes \
            nothing; files apply in any order. Should applying one fail, shark stops and names \
            it (the ones before it stay imported). The database must have synced before (a \
            SyncEngine opened it).
            """)

    @OptionGroup var database: DatabaseOptions

    @Argument(help: ArgumentHelp("The change-log files, applied in order (- for standard input).", valueName: "file"))
    var files: [String]

    @OptionGroup var logKey: LogKeyOptions

    @Flag(help: "Print a JSON summary for scripts.")
    var json = false

    func validate() throws {
        if files.isEmpty { throw ValidationError("name at least one change-log file to import") }
        if files.filter({ $0 == "-" }).count > 1 { throw ValidationError("standard input (-) can be read once") }
    }

    func run() throws {
        try reportingFailures {
            // Nothing is opened for writing before every file and the database have passed.
            // Each file is checked a piece at a time, and imported a few frames at a time:
            // none is ever held whole.
            var logs: [(file: String, local: LocalChangeLogFile, key: ChangeLogKey?, lineage: String)] = []
            defer { for log in logs { log.local.remove() } }
            for file in files {
                let local = try LocalChangeLogFile(file)
                let key = try logKey.key(isEncrypted: ChangeLogHeader.isEncrypted(local.url))
                let header: ChangeLogHeader
                do {
                    header = try withProgress("checking \(file)") { try ChangeLogHeader(reading: local.url, key: key) }
                } catch {
                    local.remove()
                    var failure = CommandFailure(describing: error)
                    failure.message = "\(file): \(failure.message)"
                    throw failure
                }
                logs.append((file, local, key, header.lineage))
            }
            let lineage = try Self.syncedLineage(of: database)
            for log in logs where log.lineage != lineage {
                throw CommandFailure(
                    "\(log.file): " + SyncError.foreignLineage(expected: lineage, found: log.lineage).description,
                    exitCode: CommandFailure.dataError)
            }

            let store = try database.open(writable: true)
            defer { store.close() }
            let engine = try SyncEngine(recordedIn: store)
            let progress = Progress("importing", total: logs.count)
            defer { progress.finish() }
            var results: [JSONText] = []
            var lines: [String] = []
            for (index, log) in logs.enumerated() {
                progress.advance(label: log.file)
                let summary: SyncImportSummary
                do {
                    summary = try engine.importChanges(from: log.local.url, key: log.key)
                } catch {
                    var failure = CommandFailure(describing: error)
                    failure.message =
                        "\(log.file): \(failure.message)"
                        + (index > 0 ? " (the \(index) file(s) before it were imported)" : "")
                    throw failure
                }
                lines.append(Self.line(for: summary, file: log.file))
                results.append(
                    .object([
                        ("file", .string(log.file)), ("rowsApplied", .integer(summary.rowsApplied)),
                        ("rowsUnchanged", .integer(summary.rowsUnchanged)),
                        ("keptEntities", .array(summary.skippedEntities.map(JSONText.string))),
                        ("keptColumns", .array(summary.skippedColumns.map(JSONText.string))),
                    ]))
            }
            progress.finish()
            let vector = try engine.versionVector()
            if json {
                Terminal.write(
                    JSONText.object([("files", .array(results)), ("vector", VectorText.json(vector))]).rendered)
            } else {
                Terminal.write(lines.joined(separator: "\n") + "\n")
            }
        }
    }

    /// The lineage of the synced database, read without writing; a usage error for a
    /// database that never synced.
    static func syncedLineage(of database: DatabaseOptions) throws -> String {
        let store = try database.open()
        defer { store.close() }
        return try SyncEngine(recordedIn: store).lineage
    }

    static func line(for summary: SyncImportSummary, file: String) -> String {
        var line = "\(file): \(summary.rowsApplied) row(s) applied, \(summary.rowsUnchanged) unchanged"
        if !summary.skippedEntities.isEmpty {
            line += "; kept for later: \(summary.skippedEntities.joined(separator: ", "))"
        }
        if !summary.skippedColumns.isEmpty {
            line += "; columns kept for later: \(summary.skippedColumns.joined(separator: ", "))"
        }
        return line
    }
}

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

            Each file is checked whole, then applied in one transaction: all of it or nothing. \
            Replaying a file changes nothing; files apply in any order. The files are taken in \
            the order given; on the first that fails, shark stops and says which (the ones \
            before it stay imported). The database must have synced before (a SyncEngine \
            opened it) and be of the files' lineage.
            """)

    @OptionGroup var database: DatabaseOptions

    @Argument(help: ArgumentHelp("The change-log files, applied in order.", valueName: "file"))
    var files: [String]

    @OptionGroup var logKey: LogKeyOptions

    @Flag(help: "Print a JSON summary for scripts.")
    var json = false

    func validate() throws {
        if files.isEmpty { throw ValidationError("name at least one change-log file to import") }
    }

    func run() throws {
        try reportingFailures {
            let key = try logKey.key()
            // Every file must be there before anything is imported.
            for file in files where !FileManager.default.fileExists(atPath: file) {
                throw CommandFailure("no such file: \(file)", exitCode: CommandFailure.noInput)
            }
            let store = try database.open(writable: true)
            defer { store.close() }
            let engine = try SyncEngine(recordedIn: store)
            let progress = Progress("importing", total: files.count)
            defer { progress.finish() }
            var results: [JSONText] = []
            var lines: [String] = []
            for file in files {
                progress.advance(label: file)
                let data: Data
                do {
                    data = try Data(contentsOf: URL(fileURLWithPath: file))
                } catch {
                    throw CommandFailure(
                        "cannot read \(file): \(error.localizedDescription)", exitCode: CommandFailure.noInput)
                }
                let summary: SyncImportSummary
                do {
                    summary = try engine.importChanges(from: data, key: key)
                } catch {
                    var failure = CommandFailure(describing: error)
                    failure.message = "\(file): \(failure.message)"
                    throw failure
                }
                lines.append(
                    "\(file): \(summary.rowsApplied) row(s) applied, \(summary.rowsUnchanged) unchanged"
                        + (summary.skippedEntities.isEmpty
                            ? "" : "; kept for later: \(summary.skippedEntities.joined(separator: ", "))")
                        + (summary.skippedColumns.isEmpty
                            ? "" : "; columns kept for later: \(summary.skippedColumns.joined(separator: ", "))"))
                results.append(
                    .object([
                        ("file", .string(file)), ("rowsApplied", .integer(summary.rowsApplied)),
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
}

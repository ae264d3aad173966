import ArgumentParser
import Foundation
import SharkORM
import SharkSync

/// `shark export DB -o FILE`: a change log of what the database's synced entities hold.
struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write a change log of a synced database: everything, or what a peer has not seen.",
        discussion: """
            Examples:
              shark export notes.sqlite -o all.sharklog
              shark export notes.sqlite -o since.sharklog --since peer-info.json
              shark export notes.sqlite -o - --since "3F2504E0-4F89-11D3-9A0C-0305E82C3301:12" | ssh host shark import notes.sqlite /dev/stdin
              SHARK_LOG_KEY=$(cat log.key) shark export notes.sqlite -o sealed.sharklog

            The database must have synced before (a SyncEngine opened it). Opens it read-only. \
            --since takes the peer's version vector: the JSON object shark info --json prints \
            under sync.vector (or that whole output), or SITE:N pairs separated by commas, or a \
            file holding either. With a change-log key the file is encrypted.
            """)

    @OptionGroup var database: DatabaseOptions

    @Option(
        name: .shortAndLong,
        help: ArgumentHelp("The change-log file to write (- for standard output).", valueName: "file"))
    var output: String

    @Option(help: ArgumentHelp("Only what a peer with this version vector has not seen.", valueName: "vector"))
    var since: String?

    @OptionGroup var logKey: LogKeyOptions

    @Flag(help: "Replace the output file if it exists.")
    var force = false

    @Flag(help: "Print a JSON summary for scripts.")
    var json = false

    func run() throws {
        try reportingFailures {
            let peer = try since.map(VectorText.parse) ?? VersionVector()
            let key = try logKey.key()
            if output == "-", Terminal.outputIsTerminal {
                throw CommandFailure(
                    "a change log is binary: redirect standard output to a file or a pipe, or name a file with -o",
                    exitCode: CommandFailure.usage)
            }
            if output != "-" {
                let database = URL(fileURLWithPath: self.database.path).resolvingSymlinksInPath().path
                guard
                    !["", "-wal", "-shm", "-journal"].contains(where: { DatabaseFile.isSameFile(output, database + $0) }
                    )
                else {
                    throw CommandFailure(
                        "-o \(output) is the database itself (or one of its files): name another file",
                        exitCode: CommandFailure.usage)
                }
                if !force, FileManager.default.fileExists(atPath: output) {
                    throw CommandFailure(
                        "\(output) exists: choose another name, or add --force to replace it",
                        exitCode: CommandFailure.cannotCreate)
                }
                try OutputFile.checkFolder(of: output)
            }
            let store = try database.open()
            defer { store.close() }
            let engine = try SyncEngine(recordedIn: store)
            // Written as the rows are read, a page at a time: the file is never held whole.
            let bytes = try withProgress("exporting") {
                if output == "-" {
                    return try engine.exportChanges(since: peer, key: key, to: FileHandle.standardOutput)
                }
                do {
                    return try engine.exportChanges(since: peer, key: key, to: URL(fileURLWithPath: output))
                } catch SyncError.file(let detail) {
                    throw CommandFailure(
                        "cannot write \(output): \(detail.message)", exitCode: CommandFailure.cannotCreate)
                }
            }
            let vector = try engine.versionVector()
            let summary: JSONText = .object([
                ("file", .string(output)), ("bytes", .integer(bytes)), ("encrypted", .bool(key != nil)),
                ("lineage", .string(engine.lineage)), ("site", .string(engine.site.uuidString)),
                ("vector", VectorText.json(vector)),
            ])
            if json {
                // The file itself may be on standard output: the summary goes to standard error then.
                if output == "-" { Terminal.writeError(summary.compact) } else { Terminal.write(summary.rendered) }
            } else if output != "-" {
                Terminal.write("wrote \(Readable.bytes(bytes)) to \(output)\(key != nil ? " (encrypted)" : "")\n")
            }
        }
    }
}

/// Checks on a command's output file before anything is written.
enum OutputFile {
    /// Throws unless the folder `path` would go in exists.
    static func checkFolder(of path: String) throws {
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw CommandFailure(
                "cannot write \(path): its folder \(directory) does not exist", exitCode: CommandFailure.cannotCreate)
        }
    }
}

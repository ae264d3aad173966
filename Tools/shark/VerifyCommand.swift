import ArgumentParser
import Foundation
import SharkSync

/// `shark verify FILE…`: checks change logs without importing them.
struct VerifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check change logs whole (structure, checksums, digest, key) without importing them.",
        discussion: """
            Examples:
              shark verify laptop.sharklog phone.sharklog
              shark verify sealed.sharklog --log-key-env LOG_KEY && echo safe to import
              curl -s https://example.com/notes.sharklog | shark verify -

            Prints one line per file when every file is intact (exit 0); otherwise only the \
            error for the first damaged file (exit 65), or a missing or wrong key (exit 77).
            """)

    @Argument(help: ArgumentHelp("The change-log files (- for standard input).", valueName: "file"))
    var files: [String]

    @OptionGroup var logKey: LogKeyOptions

    @Flag(help: "Print JSON for scripts.")
    var json = false

    func validate() throws {
        if files.isEmpty { throw ValidationError("name at least one change-log file to verify") }
    }

    func run() throws {
        try reportingFailures {
            var results: [JSONText] = []
            var lines: [String] = []
            for file in files {
                let (data, contents) = try withProgress("checking \(file)") {
                    try ChangeLogFile.read(file, keys: logKey)
                }
                results.append(
                    .object([
                        ("file", .string(file)), ("ok", .bool(true)), ("bytes", .integer(data.count)),
                        ("rows", .integer(contents.rowCount)), ("frames", .integer(contents.frameCount)),
                        ("lineage", .string(contents.lineage)), ("source", .string(contents.source.uuidString)),
                    ]))
                lines.append(
                    "\(file): ok, \(contents.rowCount) row(s) in \(contents.frameCount) frame(s), lineage "
                        + "\(contents.lineage), from \(contents.source.uuidString)")
            }
            // Only once every file passed: a failure leaves standard output empty.
            Terminal.write(json ? JSONText.array(results).rendered : lines.joined(separator: "\n") + "\n")
        }
    }
}

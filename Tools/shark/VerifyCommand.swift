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

            Exits with 0 when every file is intact, 65 for the first damaged one, 77 for a \
            missing or wrong key.
            """)

    @Argument(help: ArgumentHelp("The change-log files.", valueName: "file"))
    var files: [String]

    @OptionGroup var logKey: LogKeyOptions

    @Flag(help: "Print JSON for scripts.")
    var json = false

    func validate() throws {
        if files.isEmpty { throw ValidationError("name at least one change-log file to verify") }
    }

    func run() throws {
        try reportingFailures {
            let key = try logKey.key()
            var results: [JSONText] = []
            for file in files {
                let (data, contents) = try ChangeLogFile.read(file, key: key)
                if json {
                    results.append(
                        .object([
                            ("file", .string(file)), ("ok", .bool(true)), ("bytes", .integer(data.count)),
                            ("rows", .integer(contents.rowCount)), ("frames", .integer(contents.frameCount)),
                            ("lineage", .string(contents.lineage)), ("source", .string(contents.source.uuidString)),
                        ]))
                } else {
                    Terminal.write(
                        "\(file): ok, \(contents.rowCount) row(s) in \(contents.frameCount) frame(s), lineage "
                            + "\(contents.lineage), from \(contents.source.uuidString)\n")
                }
            }
            if json { Terminal.write(JSONText.array(results).rendered) }
        }
    }
}

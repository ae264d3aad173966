import ArgumentParser
import Foundation

/// `shark bench`: runs `shark-bench`, the backend comparison, or says how to get it.
struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Run shark-bench, which compares the drivers with the raw SQLite C API and GRDB.",
        discussion: """
            Examples:
              shark bench --rows 10000 --runs 3
              shark bench --sync --rows 100000

            shark-bench is built by the Benchmarks package (it links GRDB, which the library \
            does not): swift build -c release --package-path Benchmarks. shark runs the one \
            beside it, in Benchmarks/.build/release, or on the PATH, with the arguments given.
            """)

    @Argument(parsing: .captureForPassthrough, help: "Arguments for shark-bench (see shark-bench --help).")
    var arguments: [String] = []

    func run() throws {
        // Everything after `bench` goes to shark-bench, `--help` included: show this
        // command's help too, then shark-bench's own when it is there.
        if arguments == ["--help"] || arguments == ["-h"] || arguments == ["help"] {
            Terminal.write(Self.helpMessage() + "\n")
            guard Self.locate() != nil else { return }
        }
        try reportingFailures {
            guard let benchmark = Self.locate() else {
                throw CommandFailure(
                    "shark-bench is not built: run swift build -c release --package-path Benchmarks, then shark bench again",
                    exitCode: CommandFailure.unavailable)
            }
            let process = Process()
            process.executableURL = benchmark
            process.arguments = arguments
            try process.run()
            process.waitUntilExit()
            if process.terminationStatus != 0 { throw ExitCode(process.terminationStatus) }
        }
    }

    /// shark-bench beside this executable, in the Benchmarks package's release build under the
    /// current directory, or on the PATH.
    static func locate() -> URL? {
        var candidates: [String] = []
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        candidates.append(executable.deletingLastPathComponent().appendingPathComponent("shark-bench").path)
        candidates.append(FileManager.default.currentDirectoryPath + "/Benchmarks/.build/release/shark-bench")
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        candidates += path.split(separator: ":").map { "\($0)/shark-bench" }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }.map(URL.init(fileURLWithPath:))
    }
}

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
                let package = Self.checkout().map { $0.appendingPathComponent("Benchmarks").path } ?? "Benchmarks"
                throw CommandFailure(
                    "shark-bench is not built: run swift build -c release --package-path \(package), then shark bench again",
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

    /// shark-bench beside this executable, in the release build of the Benchmarks package of
    /// the checkout this executable was built in (found by walking up from it, so `shark bench`
    /// works from any directory), of a checkout the current directory is in, or on the PATH.
    static func locate() -> URL? {
        candidates().first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    static func candidates() -> [URL] {
        let folder = executable.deletingLastPathComponent()
        var candidates = [folder.appendingPathComponent("shark-bench")]
        let current = URL(fileURLWithPath: FileManager.default.currentDirectoryPath, isDirectory: true)
        for start in [folder, current] {
            candidates += ancestors(of: start).map {
                $0.appendingPathComponent("Benchmarks/.build/release/shark-bench")
            }
        }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        candidates += path.split(separator: ":").map { URL(fileURLWithPath: "\($0)/shark-bench") }
        return candidates
    }

    /// The checkout this executable was built in, if it was: the nearest folder above it that
    /// holds Benchmarks/Package.swift.
    static func checkout() -> URL? {
        return ancestors(of: executable.deletingLastPathComponent()).first {
            FileManager.default.fileExists(atPath: $0.appendingPathComponent("Benchmarks/Package.swift").path)
        }
    }

    /// This executable, its symbolic links resolved: a link to it on the PATH still finds its checkout.
    private static var executable: URL {
        (Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])).resolvingSymlinksInPath()
    }

    private static func ancestors(of folder: URL) -> [URL] {
        var folders: [URL] = []
        var current = folder.standardizedFileURL
        while true {
            folders.append(current)
            let parent = current.deletingLastPathComponent()
            if parent.path == current.path || folders.count > 64 { return folders }
            current = parent
        }
    }
}

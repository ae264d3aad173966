import Foundation

/// Runs the `shark` executable built beside these tests, as a user would from a shell.
struct SharkProcess {
    struct Result {
        var status: Int32
        var output: String
        var error: String
        var outputData: Data

        /// The standard error's lines.
        var errorLines: [Substring] { error.split(separator: "\n") }
    }

    /// The `shark` binary: beside the test bundle (SwiftPM builds it for this test target).
    static let executable: URL = {
        let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var directory = bundle.deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent("shark")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        // The package's own build directory, from this file's place in it.
        let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        return package.appendingPathComponent(".build/debug/shark")
    }()

    /// Runs `shark arguments…` (or another copy of it) with `environment` added to a clean environment (no key
    /// variables inherited), no terminal, and `input` on standard input.
    static func run(
        _ arguments: [String], environment: [String: String] = [:], input: Data? = nil, in directory: URL? = nil,
        executable: URL = Self.executable
    ) throws -> Result {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        var base = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("SHARK_") }
        base.merge(environment) { _, new in new }
        process.environment = base
        let output = Pipe()
        let error = Pipe()
        let standardInput = Pipe()
        process.standardOutput = output
        process.standardError = error
        process.standardInput = standardInput
        try process.run()
        if let input { standardInput.fileHandleForWriting.write(input) }
        try standardInput.fileHandleForWriting.close()
        // Read both pipes to the end before waiting, so a large output never blocks the child.
        let errorReader = Thread.detachNewThreadReading(error.fileHandleForReading)
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        let errorData = errorReader.wait()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus, output: String(decoding: outputData, as: UTF8.self),
            error: String(decoding: errorData, as: UTF8.self), outputData: outputData)
    }
}

/// Reading a pipe to its end on a thread of its own.
final class PipeReader: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private var data = Data()

    init(_ handle: FileHandle) {
        Thread.detachNewThread { [self] in
            data = handle.readDataToEndOfFile()
            done.signal()
        }
    }

    func wait() -> Data {
        done.wait()
        return data
    }
}

extension Thread {
    static func detachNewThreadReading(_ handle: FileHandle) -> PipeReader { PipeReader(handle) }
}

/// A file's bytes and the names of the files beside it: what "unchanged on disk" compares.
struct DiskState: Equatable {
    var bytes: Data
    var siblings: [String]

    init(of path: String) throws {
        bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        siblings = try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
    }
}

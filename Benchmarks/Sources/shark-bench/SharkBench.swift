import ArgumentParser
import Foundation
import SharkSQLite

/// shark-bench: the same workloads through SharkORM on every driver, through GRDB records,
/// through hand-written loops over the SQLite and SQLCipher C APIs, and into a `Dictionary`,
/// interleaved in one process. Build in release:
///
///     swift run -c release --package-path Benchmarks shark-bench --rows 100000 --runs 5
@main
struct SharkBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "shark-bench",
        abstract: "Compares SharkORM's drivers with the raw SQLite C API, SQLCipher, GRDB and a Dictionary.",
        discussion: """
            Every repetition runs every backend on a fresh database, in an order rotated each \
            repetition. Figures are medians with their spread, and ratios to the raw C SQLite loop \
            of the same run. Instruction counts: run one backend under callgrind with \
            --toggle-collect='*measured*' (scripts/bench-instructions.sh does it).
            """)

    @Option(help: "Rows to insert.")
    var rows = 100_000

    @Option(help: "Repetitions of every backend.")
    var runs = 5

    @Option(
        help: "Comma-separated backends: \(BackendKind.allCases.map(\.rawValue).joined(separator: ", ")).",
        transform: { try commaSeparated($0, of: BackendKind.self, what: "backend") })
    var backends: [BackendKind] = BackendKind.allCases

    @Option(
        help: "Comma-separated workloads to time: W1, W2, W3, W4, L, Q, A, J (the others still run, untimed).",
        transform: { try commaSeparated($0, of: Workload.self, what: "workload") })
    var workloads: [Workload] = Workload.allCases

    @Option(help: "Where the database files go (default: /dev/shm when present, else the temporary folder).")
    var directory: String?

    @Flag(help: "Print the tables as Markdown.")
    var markdown = false

    @Option(
        help:
            "Instead of the workloads: fill a SQLite store with this many rows and report the peak memory of iterating it with batch(size:)."
    )
    var batchMemory: Int?

    @Option(help: "The window of --batch-memory.")
    var batchSize = 1_000

    @Option(help: .hidden)
    var batchIterate: String?

    mutating func run() throws {
        if let path = batchIterate { return try BatchMemory.iterate(path: path, size: batchSize) }
        if let rows = batchMemory {
            let folder =
                directory
                ?? (FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory())
            return try BatchMemory.measure(rows: rows, size: batchSize, directory: folder)
        }
        let folder =
            directory
            ?? (FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory())
        let harness = Harness(
            backends: backends, workloads: Set(workloads), input: WorkloadInput(rowCount: rows), directory: folder)
        let interactive = isatty(STDERR_FILENO) != 0
        try harness.run(repetitions: runs) { message in
            if interactive { FileHandle.standardError.write(Data("\u{1B}[2K\r\(message)".utf8)) }
        }
        if interactive { FileHandle.standardError.write(Data("\u{1B}[2K\r".utf8)) }
        let report = Report(
            timings: harness.timings, backends: backends, workloads: workloads, rows: rows, runs: runs,
            rangeWidth: harness.input.rangeWidth, markdown: markdown)
        print(report.render(sqliteVersion: sqliteVersion))
    }
}

/// `a,b,c` as values of `T`, or a validation error naming the first unknown one.
func commaSeparated<T: RawRepresentable>(_ text: String, of: T.Type, what: String) throws -> [T]
where T.RawValue == String {
    try text.split(separator: ",").map { name in
        guard let value = T(rawValue: String(name)) else { throw ValidationError("unknown \(what) \(name)") }
        return value
    }
}

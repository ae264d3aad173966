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

    @Flag(
        help:
            "Instead of the workloads: O, the cost of observing (commits with and without ten live queries, and the latency from commit to delivery), on the SharkORM backends chosen."
    )
    var observation = false

    @Flag(
        help:
            "Instead of the workloads: S, what sync costs (inserts with and without capture, bytes per change in the file, export and import throughput) for --rows changes, on the SharkORM backends chosen."
    )
    var sync = false

    @Option(help: "O: how many commits.")
    var commits = 1_000

    @Option(help: "O: how many objects each commit inserts.")
    var batch = 100

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
        if observation { return try runObservation(directory: folder) }
        if sync { return try runSync(directory: folder) }
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

extension SharkBench {
    /// O, `runs` times per backend, backends alternated; medians, and the latencies of all runs.
    func runObservation(directory: String) throws {
        let (kinds, results) = try SharkStoreRuns.alternating(backends, runs: runs, label: "O") { kind in
            try ObservationBench.run(kind, commits: commits, batch: batch, directory: directory)
        }
        let build = SharkStoreRuns.buildDescription
        print(
            "O: \(commits) commits of \(batch) inserted objects, without and with 10 live queries observing; "
                + "median of \(runs) runs (\(build))\n")
        print(
            "| driver | no observer (ms) | 10 observers, until caught up (ms) | ratio | spread of ratios | latency median (ms) | latency p99 (ms) | deliveries |"
        )
        print("| --- | ---: | ---: | ---: | --- | ---: | ---: | ---: |")
        func ms(_ duration: Duration) -> Double {
            Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
        }
        for kind in kinds {
            let runs = results[kind] ?? []
            let plain = runs.map { ms($0.plain) }.sorted()
            let observed = runs.map { ms($0.observed) }.sorted()
            let ratios = runs.map { ms($0.observed) / ms($0.plain) }.sorted()
            var latencies = runs[0].latencies
            for run in runs.dropFirst() { latencies.add(run.latencies) }
            let deliveries = runs.map(\.deliveries).reduce(0, +) / max(1, runs.count)
            let row = [
                kind.title, String(format: "%.1f", plain[plain.count / 2]),
                String(format: "%.1f", observed[observed.count / 2]),
                String(format: "%.2f×", ratios[ratios.count / 2]),
                String(format: "%.2f–%.2f×", ratios.first ?? 0, ratios.last ?? 0),
                String(format: "%.2f", Double(latencies.valueAtPercentile(50)) / 1e6),
                String(format: "%.2f", Double(latencies.valueAtPercentile(99)) / 1e6), "\(deliveries)",
            ]
            print("| " + row.joined(separator: " | ") + " |")
        }
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

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
        help: """
            Comma-separated workloads: W1, W2, W3, W4, L, Q, A, J, R on every backend (those left out \
            still run, untimed, since later ones need their data), S (sync) and O (observation) on \
            the SharkORM drivers. Default: all.
            """,
        transform: WorkloadSelection.init)
    var workloads = WorkloadSelection.all

    @Option(help: "Where the database files go (default: /dev/shm when present, else the temporary folder).")
    var directory: String?

    @Flag(help: "Print the tables as Markdown.")
    var markdown = false

    @Option(help: ArgumentHelp("Also write the results as JSON (what --compare reads).", valueName: "file"))
    var json: String?

    @Option(
        help: ArgumentHelp(
            "Also write a bar chart of the ratios to raw C SQLite and the peak memory.", valueName: "file"))
    var svg: String?

    @Option(
        help: ArgumentHelp("Show what got faster or slower since the run that wrote this JSON file.", valueName: "file")
    )
    var compare: String?

    @Option(
        help: ArgumentHelp(
            "Also write the results as Markdown into this file, between its <!-- shark-bench:begin --> and <!-- shark-bench:end --> lines (docs/benchmarks.md).",
            valueName: "file"))
    var markdownInto: String?

    @Option(
        help:
            "Instead of the workloads: fill a SQLite store with this many rows and report the peak memory of iterating it with batch(size:)."
    )
    var batchMemory: Int?

    @Option(help: "The window of --batch-memory.")
    var batchSize = 1_000

    @Option(help: .hidden)
    var batchIterate: String?

    @Flag(help: "Only O, the cost of observing: the same as --workloads O.")
    var observation = false

    @Flag(help: "Only S, what sync costs: the same as --workloads S.")
    var sync = false

    @Option(help: "O: how many commits (default: --rows / --batch, at least 10).")
    var commits: Int?

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
        var selection = workloads
        if observation || sync { selection = WorkloadSelection(main: [], sync: sync, observation: observation) }
        // Read before the measuring, so a wrong path fails at once.
        let previous = try compare.map(BenchResults.read)
        // Check the Markdown file now rather than after the run.
        if let markdownInto { _ = try GeneratedSection.splice("", into: markdownInto, dryRun: true) }
        var report = Report(
            timings: [:], backends: backends, workloads: [], rows: rows, runs: runs, rangeWidth: 0, markdown: markdown)
        var peakMemory: [BackendKind: Int] = [:]
        if !selection.main.isEmpty {
            let harness = Harness(
                backends: backends, workloads: Set(selection.main), input: WorkloadInput(rowCount: rows),
                directory: folder)
            let progress = ProgressBar(total: runs * backends.count)
            try harness.run(repetitions: runs) { message in progress.step(message) }
            progress.finish()
            report = Report(
                timings: harness.timings, backends: backends, workloads: selection.main, rows: rows, runs: runs,
                rangeWidth: harness.input.rangeWidth, markdown: markdown)
            peakMemory = harness.peakMemory
            print(report.render(sqliteVersion: sqliteVersion, peakMemory: peakMemory))
        }
        var results = BenchResults(report: report, peakMemory: peakMemory, sqliteVersion: sqliteVersion)
        var markdownSections: [String] = []
        if !selection.main.isEmpty {
            var asMarkdown = report
            asMarkdown.markdown = true
            markdownSections.append(asMarkdown.render(sqliteVersion: sqliteVersion, peakMemory: peakMemory))
        }
        if selection.sync {
            let figures = try SyncBench.measure(backends, runs: runs, changes: rows, directory: folder)
            let table = SyncBench.table(figures, changes: rows, runs: runs)
            print("\n" + table)
            markdownSections.append(table)
            results.sync = figures
        }
        if selection.observation {
            let commits = self.commits ?? max(10, rows / max(1, batch))
            let figures = try ObservationBench.measure(
                backends, runs: runs, commits: commits, batch: batch, directory: folder)
            let table = ObservationBench.table(figures, runs: runs)
            print("\n" + table)
            markdownSections.append(table)
            results.observation = figures
        }
        if let json { try results.write(to: json) }
        if let markdownInto {
            let command = (["shark-bench"] + CommandLine.arguments.dropFirst()).joined(separator: " ")
            var section = [
                "Generated by `\(command)` on \(results.date): \(results.machine.summary); \(results.build); "
                    + "SQLite \(results.sqliteVersion)."
            ]
            if let svg {
                let chart = URL(fileURLWithPath: svg).lastPathComponent
                section.append("![shark-bench: every workload's time relative to raw C SQLite, per backend](\(chart))")
            }
            section += markdownSections
            _ = try GeneratedSection.splice(section.joined(separator: "\n\n"), into: markdownInto, dryRun: false)
        }
        if let svg {
            try Data(RatioChart(results: results).svg.utf8).write(to: URL(fileURLWithPath: svg), options: .atomic)
        }
        if let previous { print("\n" + Comparison(old: previous, new: results).rendered) }
    }
}

/// The workloads `--workloads` chose: the ones every backend runs, and whether S and O run.
struct WorkloadSelection {
    var main: [Workload]
    var sync: Bool
    var observation: Bool

    static let all = WorkloadSelection(main: Workload.allCases, sync: true, observation: true)

    init(main: [Workload], sync: Bool, observation: Bool) {
        (self.main, self.sync, self.observation) = (main, sync, observation)
    }

    init(_ text: String) throws {
        var names = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        sync = names.contains("S")
        observation = names.contains("O")
        names.removeAll { $0 == "S" || $0 == "O" }
        main = try commaSeparated(names.joined(separator: ","), of: Workload.self, what: "workload")
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

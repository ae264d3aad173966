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
    var backends: [BackendKind] = BackendKind.embedded

    @Flag(
        help: """
            Instead of the embedded backends: the PostgreSQL family (raw postgres-nio, SharkORM postgres, \
            Fluent) on the server that SHARK_POSTGRES_HOST, _PORT, _USER and _PASSWORD_FILE name \
            (scripts/bench-postgres.sh starts a throw-away one). Workloads W1 to R.
            """)
    var postgres = false

    @Option(
        help: """
            Comma-separated workloads: W1, W2, W3, W4, L, Q, A, J, R on every backend (those left out \
            still run, untimed, since later ones need their data), S (sync) and O (observation) on \
            the SharkORM drivers, Z (scale: costs against the store's size; not in the default). \
            Default: all but Z.
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

    @Option(
        help:
            "Instead of the workloads: fill a SQLite and a SQLCipher synced store with this many rows, and report the time and peak memory of shark query, export and import on them (see --shark)."
    )
    var cliMemory: Int?

    @Option(
        help: ArgumentHelp(
            "The shark command line for --cli-memory (default: .build/release/shark of the package above).",
            valueName: "path"))
    var shark: String?

    @Flag(
        help: """
            Instead of the workloads: sustained sync through a hub (shark serve, see --shark) from many \
            devices at once, then a device that joins late pulling backlogs; changes per second, sync \
            latencies and the hub's memory.
            """)
    var hubLoad = false

    @Option(help: "--hub-load: how many devices sync at once.") var hubDevices = 20
    @Option(help: "--hub-load: how many rounds of a commit and a sync on every device.") var hubRounds = 20
    @Option(help: "--hub-load: changes in each device's commit of a round.") var hubChanges = 100
    @Option(
        help: "--hub-load: the backlogs a device that joins late pulls, in changes, comma-separated (none: empty).",
        transform: { text in
            try text.split(separator: ",").map { part in
                guard let size = Int(part.replacingOccurrences(of: "_", with: "")), size > 0 else {
                    throw ValidationError("a backlog is a number of changes: \(part)")
                }
                return size
            }
        })
    var hubBacklogs = [100_000, 1_000_000]

    @Flag(
        help: """
            --hub-load: the hub on PostgreSQL, on the server SHARK_POSTGRES_HOST, _PORT, _USER and \
            _PASSWORD_FILE name (as --postgres, which says the same here), in a fresh schema dropped at \
            the end; written between <!-- shark-bench-hub-postgres:begin --> and :end --> lines.
            """)
    var hubPostgres = false

    @Option(
        help: """
            --hub-load: how many shark serve processes share the hub's database, device i syncing through \
            process i mod N. More than one needs --hub-postgres: a second process on a SQLite hub is refused.
            """)
    var hubProcesses = 1

    /// Whether --hub-load runs the hub on PostgreSQL: --hub-postgres, or --postgres, which
    /// scripts/bench-postgres.sh passes along with the server it starts.
    var hubOnPostgres: Bool { hubPostgres || postgres }

    @Option(help: "The window of --batch-memory.")
    var batchSize = 1_000

    @Option(help: .hidden)
    var batchIterate: String?

    @Flag(help: "Only O, the cost of observing: the same as --workloads O.")
    var observation = false

    @Flag(help: "Only S, what sync costs: the same as --workloads S.")
    var sync = false

    @Flag(help: "S: the rows' two integers merge as a counter and a maximum (see MergePolicy).")
    var mergePolicies = false

    @Flag(help: "S: the receiver reports conflicts (SyncOptions.onConflict); the replay compares every row.")
    var conflicts = false

    @Flag(help: "Only Z, the cost of each operation as the store grows: the same as --workloads Z.")
    var scale = false

    @Option(
        help: "Z: the store sizes, comma-separated (10,000,000 on demand).",
        transform: { text in
            try text.split(separator: ",").map { part in
                guard let size = Int(part.replacingOccurrences(of: "_", with: "")), size >= 100 else {
                    throw ValidationError("a scale size is a number of rows, at least 100: \(part)")
                }
                return size
            }
        })
    var scaleSizes = [10_000, 100_000, 1_000_000]

    @Option(help: "Z: how many times each operation is timed per store (lookups: five times as many).")
    var probes = 200

    @Flag(
        inversion: .prefixedNo,
        help: """
            Z: read the whole store with batch(size:), by key and ordered (on by default). Its 100 \
            ordered windows each scan the store: at 10,000,000 rows, --no-scale-windows leaves them out.
            """)
    var scaleWindows = true

    @Option(help: ArgumentHelp("Z: also draw cost against size per operation, as SVG.", valueName: "file"))
    var scaleSvg: String?

    @Option(help: "O: how many commits (default: --rows / --batch, at least 10).")
    var commits: Int?

    @Option(help: "O: how many objects each commit inserts.")
    var batch = 100

    @Option(
        help:
            "O: rows the store holds before the commits; with any, the observers are a count, a filtered count and a small fetch."
    )
    var observeBase = 0

    /// The `shark` command line: --shark, else the one beside this binary (a build that
    /// shares the root package's build folder, as CI's), else the root package's release
    /// build, else its debug build.
    func sharkPath() throws -> String {
        if let shark { return shark }
        let here = URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL.deletingLastPathComponent()
        // Benchmarks/Sources/shark-bench/SharkBench.swift → the repository.
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let candidates = [
            here.appendingPathComponent("shark"), root.appendingPathComponent(".build/release/shark"),
            root.appendingPathComponent(".build/debug/shark"),
        ]
        if let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) {
            return found.path
        }
        throw ValidationError(
            "no shark at \(candidates.map(\.path).joined(separator: ", ")): build it "
                + "(swift build -c release --product shark) or name it with --shark")
    }

    /// Refuses a hub of several processes on SQLite before anything starts: `shark serve`
    /// would refuse the second process on the file by design (one process's state), and the
    /// run would fail only after the first was up.
    func validate() throws {
        guard hubProcesses >= 1 else { throw ValidationError("--hub-processes is at least 1") }
        if hubLoad && hubProcesses > 1 && !hubOnPostgres {
            throw ValidationError(
                "--hub-processes \(hubProcesses) needs --hub-postgres: a SQLite hub is served by one shark serve "
                    + "process (a second is refused by design); on PostgreSQL, hub processes share one database")
        }
    }

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
        if let rows = cliMemory {
            return try CommandLineMemory.measure(rows: rows, shark: try sharkPath(), directory: folder)
        }
        if hubLoad {
            // The PostgreSQL hub has a section of its own: the SQLite one stays beside it.
            let section = hubOnPostgres ? "shark-bench-hub-postgres" : "shark-bench-hub"
            if let markdownInto {
                _ = try GeneratedSection.splice("", into: markdownInto, section: section, dryRun: true)
            }
            let figures = try HubLoad.run(
                HubLoad.Settings(
                    devices: hubDevices, rounds: hubRounds, changesPerCommit: hubChanges, backlogs: hubBacklogs,
                    shark: try sharkPath(), directory: folder,
                    postgres: hubOnPostgres ? try PostgresBenchServer.fromEnvironment() : nil,
                    processes: hubProcesses))
            let text = figures.markdown
            print(text)
            if let markdownInto {
                _ = try GeneratedSection.splice(text, into: markdownInto, section: section, dryRun: false)
            }
            return
        }
        var selection = workloads
        if observation || sync || scale {
            selection = WorkloadSelection(main: [], sync: sync, observation: observation, scale: scale)
        }
        var backends = self.backends
        var server: PostgresBenchServer?
        var engine: String?
        if postgres {
            let postgres = try PostgresBenchServer.fromEnvironment()
            server = postgres
            engine = "PostgreSQL " + (try postgres.version())
            let named = backends.filter(BackendKind.postgresFamily.contains)
            backends = named.isEmpty ? BackendKind.postgresFamily : named
            selection = WorkloadSelection(main: selection.main, sync: false, observation: false, scale: false)
        }
        // Read before the measuring, so a wrong path fails at once.
        let previous = try compare.map(BenchResults.read)
        // Check the Markdown file now rather than after the run.
        // A run of Z alone has a section of its own: the workloads' section stays.
        let onlyScale = selection.scale && selection.main.isEmpty && !selection.sync && !selection.observation
        let section = postgres ? "shark-bench-postgres" : onlyScale ? "shark-bench-scale" : "shark-bench"
        if let markdownInto { _ = try GeneratedSection.splice("", into: markdownInto, section: section, dryRun: true) }
        var report = Report(
            timings: [:], backends: backends, workloads: [], rows: rows, runs: runs, rangeWidth: 0, markdown: markdown)
        var peakMemory: [BackendKind: Int] = [:]
        if !selection.main.isEmpty {
            let harness = Harness(
                backends: backends, workloads: Set(selection.main), input: WorkloadInput(rowCount: rows),
                directory: folder, postgres: server)
            let progress = ProgressBar(total: runs * backends.count)
            try harness.run(repetitions: runs) { message in progress.step(message) }
            progress.finish()
            report = Report(
                timings: harness.timings, backends: backends, workloads: selection.main, rows: rows, runs: runs,
                rangeWidth: harness.input.rangeWidth, markdown: markdown)
            if postgres {
                report.baseline = .rawPostgres
                report.engine = engine
            }
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
            let figures = try SyncBench.measure(
                backends, runs: runs, changes: rows, directory: folder, mergePolicies: mergePolicies,
                conflicts: conflicts)
            let table = SyncBench.table(
                figures, changes: rows, runs: runs, mergePolicies: mergePolicies, conflicts: conflicts)
            print("\n" + table)
            markdownSections.append(table)
            results.sync = figures
        }
        if selection.observation {
            let commits = self.commits ?? max(10, rows / max(1, batch))
            let figures = try ObservationBench.measure(
                backends, runs: runs, commits: commits, batch: batch, base: observeBase, directory: folder)
            let table = ObservationBench.table(figures, runs: runs)
            print("\n" + table)
            markdownSections.append(table)
            results.observation = figures
        }
        if selection.scale {
            let kinds = ScaleBench.backends.filter(backends.contains)
            let progress = ProgressBar(total: scaleSizes.count * runs * kinds.count)
            let figures = try ScaleBench.measure(
                kinds, sizes: scaleSizes, runs: runs, probes: probes, windows: scaleWindows, directory: folder
            ) { progress.step($0) }
            progress.finish()
            let table = ScaleBench.table(figures)
            print("\n" + table)
            markdownSections.append(table)
            results.scale = figures
            if let scaleSvg {
                let caption =
                    "median of \(runs) runs, \(results.build), SQLite \(results.sqliteVersion), \(results.date)"
                try Data(ScaleChart(figures: figures, caption: caption).svg.utf8).write(
                    to: URL(fileURLWithPath: scaleSvg), options: .atomic)
            }
        }
        if let json { try results.write(to: json) }
        if let markdownInto {
            let command = (["shark-bench"] + CommandLine.arguments.dropFirst()).joined(separator: " ")
            var lines = [
                "Generated by `\(command)` on \(results.date): \(results.machine.summary); \(results.build); "
                    + (engine.map { "\($0) on the same machine, over TCP on loopback" }
                        ?? "SQLite \(results.sqliteVersion)")
                    + "."
            ]
            if let svg {
                let chart = URL(fileURLWithPath: svg).lastPathComponent
                lines.append("![shark-bench: every workload's time relative to raw C SQLite, per backend](\(chart))")
            }
            if let scaleSvg {
                let chart = URL(fileURLWithPath: scaleSvg).lastPathComponent
                lines.append("![shark-bench Z: each operation's cost against the store's size, per backend](\(chart))")
            }
            lines += markdownSections
            _ = try GeneratedSection.splice(
                lines.joined(separator: "\n\n"), into: markdownInto, section: section, dryRun: false)
        }
        if let svg, !postgres {
            try Data(RatioChart(results: results).svg.utf8).write(to: URL(fileURLWithPath: svg), options: .atomic)
        }
        if let previous { print("\n" + Comparison(old: previous, new: results).rendered) }
    }
}

/// The workloads `--workloads` chose: the ones every backend runs, and whether S, O and Z run.
struct WorkloadSelection {
    var main: [Workload]
    var sync: Bool
    var observation: Bool
    var scale: Bool

    /// Every workload but Z, which fills stores of a million rows.
    static let all = WorkloadSelection(main: Workload.allCases, sync: true, observation: true, scale: false)

    init(main: [Workload], sync: Bool, observation: Bool, scale: Bool) {
        (self.main, self.sync, self.observation, self.scale) = (main, sync, observation, scale)
    }

    init(_ text: String) throws {
        var names = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        sync = names.contains("S")
        observation = names.contains("O")
        scale = names.contains("Z")
        names.removeAll { $0 == "S" || $0 == "O" || $0 == "Z" }
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

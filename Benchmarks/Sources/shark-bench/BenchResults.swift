import Foundation

/// A run's results as `--json` writes them and `--compare` reads them back: the machine, the
/// settings, and per workload and backend the median, minimum and maximum milliseconds with
/// the ratio to the raw C SQLite loop of the same run; peak heap per backend.
struct BenchResults: Codable {
    struct Machine: Codable {
        var os: String
        var cpu: String
        var cores: Int
        var memoryBytes: UInt64
    }

    struct Backend: Codable {
        var id: String
        var title: String
        /// The most heap it held beyond its start in any repetition.
        var peakMemoryBytes: Int?
    }

    struct Timing: Codable {
        var backend: String
        var medianMilliseconds: Double
        var minMilliseconds: Double
        var maxMilliseconds: Double
        /// The median over raw C SQLite's median, when raw C SQLite ran.
        var ratioToRawSQLite: Double?
    }

    struct Workload: Codable {
        var id: String
        var title: String
        var timings: [Timing]
    }

    var tool = "shark-bench"
    var formatVersion = 1
    var date: String
    var build: String
    var machine: Machine
    var sqliteVersion: String
    var rows: Int
    var runs: Int
    var backends: [Backend]
    var workloads: [Workload]
    /// S, when it ran.
    var sync: [SyncFigures]?
    /// O, when it ran.
    var observation: [ObservationFigures]?
    /// Z, when it ran.
    var scale: ScaleFigures?

    init(report: Report, peakMemory: [BackendKind: Int], sqliteVersion: String) {
        date = Date().formatted(Date.ISO8601FormatStyle())
        build = SharkStoreRuns.buildDescription
        machine = .current
        self.sqliteVersion = sqliteVersion
        rows = report.rows
        runs = report.runs
        backends = report.backends.map { Backend(id: $0.rawValue, title: $0.title, peakMemoryBytes: peakMemory[$0]) }
        workloads = report.workloads.map { workload in
            Workload(
                id: workload.rawValue, title: workload.title,
                timings: report.backends.compactMap { backend in
                    guard let median = report.median(workload, backend),
                        let values = report.timings[workload]?[backend], let low = values.min(), let high = values.max()
                    else { return nil }
                    return Timing(
                        backend: backend.rawValue, medianMilliseconds: median * 1000, minMilliseconds: low * 1000,
                        maxMilliseconds: high * 1000, ratioToRawSQLite: report.ratio(workload, backend, to: .rawSQLite))
                })
        }
    }

    func write(to path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(self).write(to: URL(fileURLWithPath: path), options: .atomic)
    }

    static func read(from path: String) throws -> BenchResults {
        try JSONDecoder().decode(BenchResults.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// The timing of `backend` in `workload`, when both ran.
    func timing(_ workload: String, _ backend: String) -> Timing? {
        workloads.first { $0.id == workload }?.timings.first { $0.backend == backend }
    }
}

extension BenchResults.Machine {
    /// This machine: its OS, CPU model (from /proc/cpuinfo on Linux), cores and memory.
    static var current: Self {
        let info = ProcessInfo.processInfo
        var cpu = "unknown"
        if let text = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8),
            let line = text.split(separator: "\n").first(where: { $0.hasPrefix("model name") }),
            let name = line.split(separator: ":", maxSplits: 1).last
        {
            cpu = name.trimmingCharacters(in: .whitespaces)
        }
        return Self(
            os: info.operatingSystemVersionString, cpu: cpu, cores: info.activeProcessorCount,
            memoryBytes: info.physicalMemory)
    }

    var summary: String { "\(cpu), \(cores) cores, \(memoryBytes >> 30) GiB, \(os)" }
}

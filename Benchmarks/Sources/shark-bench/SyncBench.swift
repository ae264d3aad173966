import Foundation
import SharkORM
import SharkSync

/// The rows S inserts, updates and syncs.
protocol SyncBenchRow: Model {
    init(id: UUID, name: String, amount: Int, kind: Int)
    var amount: Int { get set }
    var kind: Int { get set }
}

/// A small synced row: a UUID key, a short string, two integers.
@Model
final class SyncRow4: SyncBenchRow {
    var id: UUID
    var name: String = ""
    var amount: Int = 0
    var kind: Int = 0

    init(id: UUID, name: String, amount: Int, kind: Int) {
        (self.id, self.name, self.amount, self.kind) = (id, name, amount, kind)
    }
}

/// The same row with merge policies (`--merge-policies`): `amount` a counter, `kind` a
/// maximum, what their capture, export and import cost.
@Model
final class SyncRow4Merged: SyncBenchRow, SyncMerging {
    var id: UUID
    var name: String = ""
    var amount: Int = 0
    var kind: Int = 0

    static let mergePolicies: [MergePolicy<SyncRow4Merged>] = [.counter(\.amount), .maximum(\.kind)]

    init(id: UUID, name: String, amount: Int, kind: Int) {
        (self.id, self.name, self.amount, self.kind) = (id, name, amount, kind)
    }
}

/// S: what sync costs and how compact its files are, for `changes` inserted rows, in commits
/// of 1,000: the same inserts on a store without sync and on one with it (capture cost), the
/// size of the full export per change, the export's throughput, and the import of that file
/// into a fresh synced store against the plain inserts (import throughput).
enum SyncBench {
    struct Result {
        var plainInsert: Duration
        var syncedInsert: Duration
        var export: Duration
        var fileBytes: Int
        var importTime: Duration
        /// The first commit after the inserts that is not an insert: one row's update.
        var firstUpdate: Duration
        /// An ordinary commit: the same row updated again, its state a row of its own by then
        /// (the median of 101 such commits).
        var laterUpdate: Duration
        /// The most heap the export to a file, and the import from it, held above their start.
        var exportPeakBytes: Int
        var importPeakBytes: Int
        /// An export of the last 100 changes (the first update and 99 more) since the vector
        /// from before them: what a peer that is almost up to date asks for.
        var recentExport: Duration
        /// The receiver's digest compared with the one the file carried: a scan of every row.
        var digest: Duration
        /// The same file imported again: every row merged with the one the receiver has, and
        /// with `--conflicts` compared for conflicts (there are none).
        var replay: Duration
    }

    static let commitSize = 1_000

    static func run<Row: SyncBenchRow>(
        _ kind: BackendKind, row _: Row.Type, changes: Int, directory: String, conflicts: Bool
    ) throws -> Result {
        let ids = (0..<changes).map { _ in UUID.v7() }
        func rows() -> [Row] {
            ids.enumerated().map { Row(id: $1, name: "row \($0)", amount: ($0 * 7919) % 10_000, kind: $0 % 10) }
        }
        func insert(_ objects: [Row], into store: Store) throws -> Duration {
            let start = ContinuousClock.now
            var index = 0
            while index < objects.count {
                try store.commit(objects[index..<min(index + commitSize, objects.count)])
                index += commitSize
            }
            return ContinuousClock.now - start
        }

        let (plain, closePlain) = try SharkStoreRuns.open(kind, directory: directory, workload: "sync")
        defer { closePlain() }
        try plain.prepare(Row.self)
        let plainInsert = try insert(rows(), into: plain)

        let (synced, closeSynced) = try SharkStoreRuns.open(kind, directory: directory, workload: "sync")
        defer { closeSynced() }
        let sender = try SyncEngine(store: synced, lineage: "bench", models: [Row.self])
        let syncedInsert = try insert(rows(), into: synced)
        // The first commit that is not an insert: the inserts' states are batched, and this
        // one update is where a batch's rows first change one by one.
        guard let changed = try Row.query(in: synced).first() else {
            throw BenchError.wrongResult("S: the synced store has no rows")
        }
        let before = try sender.versionVector()
        changed.amount += 1
        var start = ContinuousClock.now
        try synced.commit(changed)
        let firstUpdate = ContinuousClock.now - start
        // Ordinary commits are short: the median of 101 of them, the same row each time.
        var laterUpdates: [Duration] = []
        for _ in 0...100 {
            changed.amount += 1
            start = ContinuousClock.now
            try synced.commit(changed)
            laterUpdates.append(ContinuousClock.now - start)
        }
        let laterUpdate = laterUpdates.sorted()[laterUpdates.count / 2]
        let more = try Row.query(in: synced).orderByDescending(\.id).limit(99).fetch()
        for row in more { row.kind += 1 }
        try synced.commit(more)
        start = ContinuousClock.now
        let recent = try sender.exportChanges(since: before)
        let recentExport = ContinuousClock.now - start
        guard try ChangeLogHeader(reading: recent).rowCount == 100 else {
            throw BenchError.wrongResult("S: the export since the vector before the last 100 changes has another count")
        }

        // Through a file, as a large log should travel: written and read a page at a time.
        let file = URL(fileURLWithPath: directory + "/shark-sync-\(UUID().uuidString).sharklog")
        defer { try? FileManager.default.removeItem(at: file) }
        start = ContinuousClock.now
        var fileBytes = 0
        let exportPeakBytes = try PeakMemory.measure(every: .milliseconds(25)) {
            fileBytes = try sender.exportChanges(to: file)
        }
        let export = ContinuousClock.now - start

        let (receiving, closeReceiving) = try SharkStoreRuns.open(kind, directory: directory, workload: "sync")
        defer { closeReceiving() }
        var options = SyncOptions()
        let reported = ConflictCount()
        if conflicts { options.onConflict = { _ in reported.add() } }
        let receiver = try SyncEngine(store: receiving, lineage: "bench", models: [Row.self], options: options)
        start = ContinuousClock.now
        var summary = SyncImportSummary()
        let importPeakBytes = try PeakMemory.measure(every: .milliseconds(25)) {
            summary = try receiver.importChanges(from: file)
        }
        let importTime = ContinuousClock.now - start
        guard summary.rowsApplied == changes, try Row.query(in: receiving).count() == changes else {
            throw BenchError.wrongResult("S: the import applied \(summary.rowsApplied) of \(changes) rows")
        }
        start = ContinuousClock.now
        let comparison = try receiver.compareDigest(after: summary)
        let digest = ContinuousClock.now - start
        guard comparison == .equal else {
            throw BenchError.wrongResult("S: after a full import the digests compare \(comparison)")
        }
        start = ContinuousClock.now
        let replayed = try receiver.importChanges(from: file)
        let replay = ContinuousClock.now - start
        guard replayed.rowsUnchanged == changes, reported.value == 0 else {
            throw BenchError.wrongResult("S: the replay changed rows or reported \(reported.value) conflicts")
        }
        return Result(
            plainInsert: plainInsert, syncedInsert: syncedInsert, export: export, fileBytes: fileBytes,
            importTime: importTime, firstUpdate: firstUpdate, laterUpdate: laterUpdate,
            exportPeakBytes: exportPeakBytes,
            importPeakBytes: importPeakBytes, recentExport: recentExport, digest: digest, replay: replay)
    }
}

/// How many conflicts a receiver reported (none are expected: the benchmark measures the
/// cost of looking).
private final class ConflictCount: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func add() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}

/// What S reports per driver: medians of the runs, with the spread of the capture cost.
struct SyncFigures: Codable {
    var backend: String
    var plainInsertMilliseconds: Double
    var syncedInsertMilliseconds: Double
    /// Inserts with sync on over inserts with sync off (goal ≤ 1.5).
    var captureRatio: Double
    var captureRatioMin: Double
    var captureRatioMax: Double
    /// The full export's size over the rows changed (goal ≤ 25).
    var bytesPerChange: Double
    /// Rows exported per second (goal ≥ 500,000).
    var exportChangesPerSecond: Double
    var importMilliseconds: Double
    /// The import's throughput as a share of the plain inserts' (goal ≥ 0.5).
    var importShareOfPlainInserts: Double
    /// The first commit after the inserts that is not an insert (one row's update); absent
    /// from results written before it was measured.
    var firstUpdateMilliseconds: Double?
    /// The same row updated again right after: an ordinary commit, to set the first against.
    var laterUpdateMilliseconds: Double?
    /// The most heap the export to a file held above its start, in megabytes (median);
    /// absent from results written before it was measured.
    var exportPeakMegabytes: Double?
    /// The same for the import from that file (for the memory driver it includes the rows
    /// the store itself takes on).
    var importPeakMegabytes: Double?
    /// The export of the last 100 changes since the vector before them, in milliseconds.
    var recentExportMilliseconds: Double?
    /// The receiver's digest, compared after the import: a scan of every row, in milliseconds.
    var digestMilliseconds: Double?
    /// The same file imported again (every row merged, none changed), in milliseconds.
    var replayMilliseconds: Double?
}

extension SyncBench {
    /// S, `runs` times per SharkORM backend among `backends`, alternated.
    /// `mergePolicies`: rows whose `amount` is a counter and `kind` a maximum.
    static func measure(
        _ backends: [BackendKind], runs: Int, changes: Int, directory: String, mergePolicies: Bool = false,
        conflicts: Bool = false
    ) throws -> [SyncFigures] {
        let (kinds, results) = try SharkStoreRuns.alternating(backends, runs: runs, label: "S") { kind in
            mergePolicies
                ? try run(
                    kind, row: SyncRow4Merged.self, changes: changes, directory: directory, conflicts: conflicts)
                : try run(kind, row: SyncRow4.self, changes: changes, directory: directory, conflicts: conflicts)
        }
        return kinds.map { kind in
            let runs = results[kind] ?? []
            let capture = runs.map { $0.syncedInsert.seconds / $0.plainInsert.seconds }.sorted()
            return SyncFigures(
                backend: kind.rawValue, plainInsertMilliseconds: median(runs.map(\.plainInsert.seconds)) * 1000,
                syncedInsertMilliseconds: median(runs.map(\.syncedInsert.seconds)) * 1000,
                captureRatio: median(capture), captureRatioMin: capture.first ?? 0, captureRatioMax: capture.last ?? 0,
                bytesPerChange: Double(runs.first?.fileBytes ?? 0) / Double(max(1, changes)),
                exportChangesPerSecond: median(runs.map { Double(changes) / $0.export.seconds }),
                importMilliseconds: median(runs.map(\.importTime.seconds)) * 1000,
                importShareOfPlainInserts: median(runs.map { $0.plainInsert.seconds / $0.importTime.seconds }),
                firstUpdateMilliseconds: median(runs.map(\.firstUpdate.seconds)) * 1000,
                laterUpdateMilliseconds: median(runs.map(\.laterUpdate.seconds)) * 1000,
                exportPeakMegabytes: median(runs.map { Double($0.exportPeakBytes) / 1_048_576 }),
                importPeakMegabytes: median(runs.map { Double($0.importPeakBytes) / 1_048_576 }),
                recentExportMilliseconds: median(runs.map(\.recentExport.seconds)) * 1000,
                digestMilliseconds: median(runs.map(\.digest.seconds)) * 1000,
                replayMilliseconds: median(runs.map(\.replay.seconds)) * 1000)
        }
    }

    /// The Markdown table of `figures`.
    static func table(
        _ figures: [SyncFigures], changes: Int, runs: Int, mergePolicies: Bool = false, conflicts: Bool = false
    ) -> String {
        let rows = figures.map { figure in
            let title = BackendKind(rawValue: figure.backend)?.title ?? figure.backend
            func optional(_ value: Double?, _ format: String) -> String {
                value.map { String(format: format, $0) } ?? "—"
            }
            let cells: [String] = [
                title, String(format: "%.1f", figure.plainInsertMilliseconds),
                String(format: "%.1f", figure.syncedInsertMilliseconds),
                String(
                    format: "%.2f× (%.2f–%.2f)", figure.captureRatio, figure.captureRatioMin, figure.captureRatioMax),
                String(format: "%.1f", figure.bytesPerChange), String(format: "%.0f", figure.exportChangesPerSecond),
                String(format: "%.1f", figure.importMilliseconds),
                String(format: "%.0f%%", figure.importShareOfPlainInserts * 100),
                optional(figure.firstUpdateMilliseconds, "%.2f"), optional(figure.laterUpdateMilliseconds, "%.2f"),
                optional(figure.exportPeakMegabytes, "%.1f"), optional(figure.importPeakMegabytes, "%.1f"),
                optional(figure.recentExportMilliseconds, "%.2f"), optional(figure.digestMilliseconds, "%.1f"),
                optional(figure.replayMilliseconds, "%.1f"),
            ]
            return cells
        }
        let header = [
            "driver", "insert, sync off (ms)", "insert, sync on (ms)", "capture cost", "bytes per change",
            "export (changes/s)", "import (ms)", "import vs plain inserts", "first update after (ms)",
            "a later update (ms)",
            "export peak heap (MB)", "import peak heap (MB)", "export of the last 100 changes (ms)",
            "digest after import (ms)", "replay of the file (ms)",
        ]
        return
            "S: \(changes) inserted rows (UUID key, a short string, two integers"
            + (mergePolicies ? ", one a counter and one a maximum" : "") + ") in commits of \(commitSize); "
            + (conflicts ? "the receiver reports conflicts; " : "")
            + "median of \(runs) runs (\(SharkStoreRuns.buildDescription)); the log goes through a file, "
            + "and the peaks are the heap held above the start of the export and the import, sampled every 25 ms "
            + "(for the memory driver the import's includes the rows the store takes on)\n\n"
            + markdownTable(header, rows).joined(separator: "\n")
    }
}

extension Duration {
    /// The duration in seconds, as a Double.
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}

/// The median of `values` (the upper one of an even count); 0 for none.
func median(_ values: [Double]) -> Double {
    guard !values.isEmpty else { return 0 }
    return values.sorted()[values.count / 2]
}

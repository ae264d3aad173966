import Foundation
import SharkORM
import SharkSync

/// A small synced row: a UUID key, a short string, two integers.
@Model
final class SyncRow4 {
    var id: UUID
    var name: String = ""
    var amount: Int = 0
    var kind: Int = 0

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
    }

    static let commitSize = 1_000

    static func run(_ kind: BackendKind, changes: Int, directory: String) throws -> Result {
        let ids = (0..<changes).map { _ in UUID.v7() }
        func rows() -> [SyncRow4] {
            ids.enumerated().map { SyncRow4(id: $1, name: "row \($0)", amount: ($0 * 7919) % 10_000, kind: $0 % 10) }
        }
        func insert(_ objects: [SyncRow4], into store: Store) throws -> Duration {
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
        try plain.prepare(SyncRow4.self)
        let plainInsert = try insert(rows(), into: plain)

        let (synced, closeSynced) = try SharkStoreRuns.open(kind, directory: directory, workload: "sync")
        defer { closeSynced() }
        let sender = try SyncEngine(store: synced, lineage: "bench", models: [SyncRow4.self])
        let syncedInsert = try insert(rows(), into: synced)

        var start = ContinuousClock.now
        let file = try sender.exportChanges()
        let export = ContinuousClock.now - start

        let (receiving, closeReceiving) = try SharkStoreRuns.open(kind, directory: directory, workload: "sync")
        defer { closeReceiving() }
        let receiver = try SyncEngine(store: receiving, lineage: "bench", models: [SyncRow4.self])
        start = ContinuousClock.now
        let summary = try receiver.importChanges(from: file)
        let importTime = ContinuousClock.now - start
        guard summary.rowsApplied == changes, try SyncRow4.query(in: receiving).count() == changes else {
            throw BenchError.wrongResult("S: the import applied \(summary.rowsApplied) of \(changes) rows")
        }
        return Result(
            plainInsert: plainInsert, syncedInsert: syncedInsert, export: export, fileBytes: file.count,
            importTime: importTime)
    }
}

extension SharkBench {
    /// S, `runs` times per backend, backends alternated; medians with their spread.
    func runSync(directory: String) throws {
        let (kinds, results) = try SharkStoreRuns.alternating(backends, runs: runs, label: "S") { kind in
            try SyncBench.run(kind, changes: rows, directory: directory)
        }
        let build = SharkStoreRuns.buildDescription
        print(
            "S: \(rows) inserted rows (UUID key, a short string, two integers) in commits of \(SyncBench.commitSize); "
                + "median of \(runs) runs (\(build))\n")
        print(
            "| driver | insert, sync off (ms) | insert, sync on (ms) | capture cost | bytes per change | export (changes/s) | import (ms) | import vs plain inserts |"
        )
        print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
        func seconds(_ duration: Duration) -> Double {
            Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        }
        func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
        func spread(_ values: [Double], _ format: String) -> String {
            let sorted = values.sorted()
            return String(format: format, sorted[sorted.count / 2]) + " ("
                + String(format: format, sorted.first!) + "–" + String(format: format, sorted.last!) + ")"
        }
        for kind in kinds {
            let runs = results[kind] ?? []
            let plain = runs.map { seconds($0.plainInsert) }
            let synced = runs.map { seconds($0.syncedInsert) }
            let capture = runs.map { seconds($0.syncedInsert) / seconds($0.plainInsert) }
            let bytes = Double(runs[0].fileBytes) / Double(rows)
            let export = runs.map { Double(rows) / seconds($0.export) }
            let imports = runs.map { seconds($0.importTime) }
            // Import throughput as a share of plain-insert throughput: plain time / import time.
            let share = runs.map { seconds($0.plainInsert) / seconds($0.importTime) }
            let row = [
                kind.title, String(format: "%.1f", median(plain) * 1000), String(format: "%.1f", median(synced) * 1000),
                spread(capture, "%.2f") + "×", String(format: "%.1f", bytes),
                String(format: "%.0f", median(export)), String(format: "%.1f", median(imports) * 1000),
                spread(share.map { $0 * 100 }, "%.0f") + "%",
            ]
            print("| " + row.joined(separator: " | ") + " |")
        }
    }
}

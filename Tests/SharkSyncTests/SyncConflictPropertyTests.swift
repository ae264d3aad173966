import Foundation
@_spi(SharkDriver) import SharkORM
import SharkTestSupport
import Synchronization
import Testing

@testable import SharkDriverConformance
@testable import SharkSync

/// Random histories of renames and removals of a few rows on 3 replicas over mixed drivers,
/// files dropped, duplicated and reordered, every replica reporting conflicts: each conflict
/// reported is between two writes that were truly concurrent (neither writer's vector, when it
/// wrote, counted the other's write); every write that no later write superseded and that is
/// not the final value (a value lost to a concurrent one) is reported at least once; and the
/// replicas still converge. `SHARK_CONFLICT_SEED`
/// replays one history; the normal run spends about 3 seconds.
@Suite("Sync conflicts: only concurrent writes are reported")
struct SyncConflictPropertyTests {
    /// A write: its site and sequence.
    private struct Write: Hashable {
        let site: UUID
        let sequence: UInt64
    }

    /// The conflicts every replica reported, with the replica that reported them.
    private final class Reports: Sendable {
        private let all = Mutex<[(Int, SyncConflict)]>([])
        func add(_ conflict: SyncConflict, by replica: Int) { all.withLock { $0.append((replica, conflict)) } }
        var reported: [(Int, SyncConflict)] { all.withLock { $0 } }
    }

    @Test(
        "every conflict reported is between concurrent writes, every value lost to one is reported; replicas converge")
    func onlyConcurrentWrites() throws {
        if let seed = ProcessInfo.processInfo.environment["SHARK_CONFLICT_SEED"].flatMap(UInt64.init) {
            _ = try Self.history(seed: seed)
            return
        }
        let budget = ProcessInfo.processInfo.environment["SHARK_SYNC_SOAK"].flatMap(Double.init) ?? 3
        let start = Date()
        var seed: UInt64 = 1
        var reports = 0
        var lost = 0
        while seed <= 3 || Date().timeIntervalSince(start) < budget {
            let counts = try Self.history(seed: seed)
            reports += counts.reports
            lost += counts.lost
            seed += 1
        }
        print(
            "sync conflicts: \(seed - 1) seeded histories, \(reports) conflicts reported, each between concurrent writes; \(lost) values lost to concurrent ones, each reported"
        )
        #expect(reports > 0 && lost > 0)
    }

    /// Runs one history; returns how many conflicts were reported, and how many writes were
    /// lost to concurrent ones.
    private static func history(seed: UInt64) throws -> (reports: Int, lost: Int) {
        var random = SeededGenerator(state: seed &* 104_729)
        let drivers: [TestDriver] = [.memory, .sqlite, .sqlcipher]
        let reports = Reports()
        var engines: [SyncEngine] = []
        defer { for engine in engines { engine.store.close() } }
        for index in 0..<3 {
            var options = SyncOptions()
            options.now = { 1_700_000_000_000 + UInt64(index) }
            options.onConflict = { reports.add($0, by: index) }
            engines.append(
                try syncReplica(
                    drivers[(index + Int(seed)) % 3], site: index + 1, lineage: "conflicts",
                    models: [SyncFolder.self], options: options))
        }
        // What each write's writer had seen when it wrote: its vector before the commit.
        var seen: [Write: VersionVector] = [:]
        // The writes of each row's name, for rows never removed.
        var named: [String: [Write]] = [:]
        var removed = Set<String>()
        @discardableResult
        func commit(_ engine: SyncEngine, _ body: () throws -> Void) throws -> Write {
            let before = try engine.versionVector()
            try body()
            let write = Write(site: engine.site, sequence: try engine.versionVector()[engine.site])
            seen[write] = before
            return write
        }
        var network: [(to: Int, file: Data)] = []
        for _ in 0..<Int.random(in: 30...90, using: &random) {
            let actor = Int.random(in: 0..<3, using: &random)
            let engine = engines[actor]
            let key = ["a", "b", "c"].randomElement(using: &random)!
            let row = try engine.store.find(SyncFolder.self, id: key)
            switch Int.random(in: 0..<10, using: &random) {
            case 0:
                guard row == nil else { continue }
                named[key, default: []].append(
                    try commit(engine) { try engine.store.commit(SyncFolder(id: key, name: "new \(actor)")) })
            case 1...3:
                guard let row else { continue }
                row.name = "n\(Int.random(in: 0..<100, using: &random))"
                named[key, default: []].append(try commit(engine) { try engine.store.commit(row) })
            case 4:
                guard let row, Int.random(in: 0..<3, using: &random) == 0 else { continue }
                try commit(engine) { try engine.store.remove(row) }
                removed.insert(key)
            case 5...6:
                let receiver = (actor + Int.random(in: 1..<3, using: &random)) % 3
                let file =
                    Bool.random(using: &random)
                    ? try engine.exportChanges()
                    : try engine.exportChanges(since: try engines[receiver].versionVector())
                if Int.random(in: 0..<5, using: &random) > 0 { network.append((receiver, file)) }
                if Int.random(in: 0..<5, using: &random) == 0 { network.append((receiver, file)) }
            default:
                guard !network.isEmpty else { continue }
                let delivery = network.remove(at: Int.random(in: 0..<network.count, using: &random))
                try engines[delivery.to].importChanges(from: delivery.file)
            }
        }
        try settle(engines, inFlight: network, using: &random)
        let expected = try contents(of: ["SyncFolder"], in: engines[0].store)
        for engine in engines {
            #expect(try contents(of: ["SyncFolder"], in: engine.store) == expected, "seed \(seed): replicas differ")
        }
        for (replica, conflict) in reports.reported {
            guard let local = conflict.localVersion, let incoming = conflict.incomingVersion else {
                Issue.record("seed \(seed): replica \(replica) reported \(conflict) without versions")
                continue
            }
            let a = Write(site: local.site, sequence: local.column.sequence)
            let b = Write(site: incoming.site, sequence: incoming.column.sequence)
            guard let seenByA = seen[a], let seenByB = seen[b] else {
                Issue.record("seed \(seed): replica \(replica) reported \(conflict) of a write no replica made")
                continue
            }
            #expect(
                !seenByA.covers(site: b.site, sequence: b.sequence)
                    && !seenByB.covers(site: a.site, sequence: a.sequence),
                "seed \(seed): replica \(replica) reported \(conflict), but one writer had seen the other's write (replay with SHARK_CONFLICT_SEED=\(seed))"
            )
        }
        // Each write lost to a concurrent one (superseded by none, not the final value) was
        // reported somewhere, as the value that lost.
        let final = try ChangeLogContents(reading: try engines[0].exportChanges())
        var lost = 0
        let reportedWrites = Set(
            reports.reported.flatMap { _, conflict in
                [conflict.localVersion, conflict.incomingVersion].compactMap { version in
                    version.map { Write(site: $0.site, sequence: $0.column.sequence) }
                }
            })
        for row in final.entities.first?.rows ?? [] {
            guard case .text(let key) = row.key, !removed.contains(key), let writes = named[key],
                let value = row.values.first(where: { $0.column == "name" })
            else { continue }
            let last = Write(site: value.version.site, sequence: value.version.sequence)
            for write in writes where write != last {
                let superseded = writes.contains { other in
                    other != write && seen[other]?.covers(site: write.site, sequence: write.sequence) == true
                }
                guard !superseded else { continue }
                lost += 1
                #expect(
                    reportedWrites.contains(write),
                    "seed \(seed): \(key)'s write \(write) lost to a concurrent one and nobody reported it (replay with SHARK_CONFLICT_SEED=\(seed))"
                )
            }
        }
        return (reports.reported.count, lost)
    }
}

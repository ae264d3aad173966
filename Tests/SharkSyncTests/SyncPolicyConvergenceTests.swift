import Foundation
@_spi(SharkDriver) import SharkORM
import SharkSync
import SharkTestSupport
import Testing

@testable import SharkDriverConformance

/// Random histories of rows with a counter, a maximum, a minimum, tags joined by an app
/// resolver (their union) and a last-writer-wins column, on 3 to 5 replicas over mixed drivers, files dropped, duplicated and reordered.
/// After a final exchange every replica holds the same rows and digest, and for every row no
/// replica ever removed: the counter is the sum of every difference any replica made, the
/// maximum the greatest value written, the minimum the least, the tags every tag written. Each
/// policy has histories of
/// its own (only its writes, beside removals and the exchange of files), and a mix of all of
/// them. `SHARK_POLICY_SEED=<seed>` replays one history of each; the normal run spends about
/// 3 seconds on each.
@Suite("Sync convergence: merge policies")
struct SyncPolicyConvergenceTests {
    /// Which writes a history makes.
    enum Focus: String, CaseIterable, Sendable {
        case counter, maximum, minimum, resolver, mixed

        /// Whether a history of this focus makes writes of kind `operation` (see `history`).
        func makes(_ operation: Int) -> Bool {
            switch (self, operation) {
            case (.mixed, _), (_, 0), (_, 6...8), (_, 10...): return true
            case (.counter, 1...2), (.maximum, 3), (.minimum, 4), (.resolver, 9): return true
            default: return false
            }
        }
    }

    @Test(
        "counters, maxima, minima and resolvers converge to what every replica wrote, whatever the files' fate",
        arguments: Focus.allCases)
    func randomHistories(focus: Focus) throws {
        let environment = ProcessInfo.processInfo.environment
        if let seed = environment["SHARK_POLICY_SEED"].flatMap(UInt64.init) {
            try Self.history(seed: seed, focus: focus)
            return
        }
        let budget = environment["SHARK_SYNC_SOAK"].flatMap(Double.init) ?? 3
        let start = Date()
        var seed: UInt64 = 1
        while seed <= 3 || Date().timeIntervalSince(start) < budget {
            try Self.history(seed: seed, focus: focus)
            seed += 1
        }
        print("sync convergence of merge policies (\(focus.rawValue)): \(seed - 1) seeded histories converged")
    }

    /// What every replica wrote to one row, for the rows no replica removed.
    private struct Written {
        var likes = 0
        var best = -Double.infinity
        var lowest = Int.max
        var tags = Set<String>()
    }

    private static func history(seed: UInt64, focus: Focus) throws {
        var random = SeededGenerator(state: seed &* 7919)
        let drivers: [TestDriver] = [.memory, .sqlite, .sqlcipher]
        let count = Int.random(in: 3...5, using: &random)
        var engines: [SyncEngine] = []
        defer { for engine in engines { engine.store.close() } }
        for index in 0..<count {
            var options = SyncOptions(
                site: UUID(uuidString: String(format: "00000000-0000-0000-0000-%012d", index + 1))!)
            options.now = { 1_700_000_000_000 + UInt64(index) }
            engines.append(
                try SyncEngine(
                    store: try drivers[(index + Int(seed)) % drivers.count].makeStore(), lineage: "policies",
                    models: [SyncTaggedScore.self], options: options))
        }
        let keys = ["a", "b", "c"]
        var written: [String: Written] = [:]
        var removed = Set<String>()
        var network: [(to: Int, file: Data)] = []

        for _ in 0..<Int.random(in: 40...120, using: &random) {
            let actor = Int.random(in: 0..<count, using: &random)
            let store = engines[actor].store
            let key = keys.randomElement(using: &random)!
            let row = try store.find(SyncTaggedScore.self, id: key)
            let operation = Int.random(in: 0..<13, using: &random)
            guard focus.makes(operation) else { continue }
            switch operation {
            case 0:  // insert a row not here, with values of its own
                guard row == nil else { continue }
                let score = SyncTaggedScore(id: key, title: "new")
                score.likes = Int.random(in: 0...3, using: &random)
                score.best = Double(Int.random(in: 0...20, using: &random))
                score.lowest = Int.random(in: 100...200, using: &random)
                score.tags = Bool.random(using: &random) ? ["t\(Int.random(in: 0..<6, using: &random))"] : []
                try store.commit(score)
                written[key, default: Written()].tags.formUnion(score.tags)
                written[key, default: Written()].likes += score.likes
                written[key]!.best = max(written[key]!.best, score.best)
                written[key]!.lowest = min(written[key]!.lowest, score.lowest)
            case 1:  // add to the counter, or set it (a reset included): a difference either way
                guard let row else { continue }
                let before = row.likes
                row.likes =
                    Bool.random(using: &random)
                    ? before + Int.random(in: -5...5, using: &random) : Int.random(in: 0...2, using: &random)
                try store.commit(row)
                written[key, default: Written()].likes += row.likes - before
            case 2:  // an expression over the row
                guard row != nil else { continue }
                let step = Int.random(in: 1...3, using: &random)
                try SyncTaggedScore.query(in: store).where(\.id == key).updateAll(.set(\.likes, to: \.likes + step))
                written[key, default: Written()].likes += step
            case 3:  // a maximum: raising works, lowering throws and changes nothing
                guard let row else { continue }
                let value = Double(Int.random(in: 0...40, using: &random))
                let before = row.best
                row.best = value
                do {
                    try store.commit(row)
                    #expect(value >= before, "\(focus) seed \(seed): a lower maximum was committed")
                    written[key, default: Written()].best = max(written[key]!.best, value)
                } catch SyncError.mergePolicy(let detail) {
                    #expect(detail.reason == .lowersMaximum && value < before, "\(focus) seed \(seed): \(detail)")
                    row.best = before
                }
            case 4:  // a minimum
                guard let row else { continue }
                let value = Int.random(in: 50...250, using: &random)
                let before = row.lowest
                row.lowest = value
                do {
                    try store.commit(row)
                    #expect(value <= before, "\(focus) seed \(seed): a higher minimum was committed")
                    written[key, default: Written()].lowest = min(written[key]!.lowest, value)
                } catch SyncError.mergePolicy(let detail) {
                    #expect(detail.reason == .raisesMinimum && value > before, "\(focus) seed \(seed): \(detail)")
                    row.lowest = before
                }
            case 5:  // last-writer-wins beside them
                guard let row else { continue }
                row.title = "t\(Int.random(in: 0..<50, using: &random))"
                try store.commit(row)
            case 6:  // a removal, now and then
                guard let row, Int.random(in: 0..<3, using: &random) == 0 else { continue }
                try store.remove(row)
                removed.insert(key)
            case 7...8:  // send a file: everything, or since the receiver's vector
                let receiver = (actor + Int.random(in: 1..<count, using: &random)) % count
                let file =
                    Bool.random(using: &random)
                    ? try engines[actor].exportChanges()
                    : try engines[actor].exportChanges(since: try engines[receiver].versionVector())
                if Int.random(in: 0..<5, using: &random) > 0 { network.append((receiver, file)) }
                if Int.random(in: 0..<5, using: &random) == 0 { network.append((receiver, file)) }
            case 9:  // tags: adding is kept by the union; removing one is refused, and changes nothing
                guard let row else { continue }
                let before = row.tags
                let tag = "t\(Int.random(in: 0..<6, using: &random))"
                let removes = !before.isEmpty && Int.random(in: 0..<4, using: &random) == 0
                row.tags = removes ? Array(before.dropFirst()) : Array(Set(before + [tag])).sorted()
                do {
                    try store.commit(row)
                    #expect(!removes, "\(focus) seed \(seed): a removed tag was committed")
                    written[key, default: Written()].tags.formUnion(row.tags)
                } catch SyncError.mergePolicy(let detail) {
                    #expect(detail.reason == .writeNotKept && removes, "\(focus) seed \(seed): \(detail)")
                    row.tags = before
                }
            default:  // deliver a file in flight, in any order
                guard !network.isEmpty else { continue }
                let delivery = network.remove(at: Int.random(in: 0..<network.count, using: &random))
                try engines[delivery.to].importChanges(from: delivery.file)
            }
        }
        try settle(engines, inFlight: network, using: &random)
        let expected = try contents(of: ["SyncTaggedScore"], in: engines[0].store)
        for (index, engine) in engines.enumerated() {
            #expect(
                try contents(of: ["SyncTaggedScore"], in: engine.store) == expected,
                "\(focus) seed \(seed): replica \(index) differs (replay with SHARK_POLICY_SEED=\(seed))")
            #expect(
                try engine.digest() == engines[0].digest(), "\(focus) seed \(seed): replica \(index)'s digest differs")
        }
        for (key, wrote) in written where !removed.contains(key) {
            guard let row = try engines[0].store.find(SyncTaggedScore.self, id: key) else {
                Issue.record("\(focus) seed \(seed): \(key) is missing")
                continue
            }
            #expect(
                row.likes == wrote.likes, "\(focus) seed \(seed): \(key)'s counter is \(row.likes), not \(wrote.likes)")
            #expect(row.best == wrote.best, "\(focus) seed \(seed): \(key)'s maximum is \(row.best), not \(wrote.best)")
            #expect(
                row.lowest == wrote.lowest,
                "\(focus) seed \(seed): \(key)'s minimum is \(row.lowest), not \(wrote.lowest)")
            #expect(
                row.tags == wrote.tags.sorted(),
                "\(focus) seed \(seed): \(key)'s tags are \(row.tags), not \(wrote.tags)")
        }
    }
}

import Dispatch
import Foundation
import Histogram
import SharkORM
import Synchronization

/// An event of O: a kind (indexed), an amount (indexed), and a team (a relationship).
@Model
final class Event10 {
    var kind: Int = 0
    var amount: Int = 0
    var team: Team10?

    static let indexes: [Index<Event10>] = [.on(\.kind), .on(\.amount)]

    init(kind: Int, amount: Int, team: Team10?) {
        (self.kind, self.amount, self.team) = (kind, amount, team)
    }
}

/// O: what observing costs the writer. The same commits (each inserting `batch` events) run
/// twice on a fresh store, without observers, then with ten live queries of different
/// shapes observing; the second run's clock stops when the last observer has caught up with
/// the last commit. Also measured: the latency from a commit to the delivery of a result that
/// reflects it, over every delivery.
enum ObservationBench {
    struct Result {
        var plain: Duration
        var observed: Duration
        var latencies: Histogram<UInt64>
        var deliveries: Int
    }

    /// The observers: a filter, a count, aggregates, ordered limits, a relationship path. On a
    /// store that already holds rows (`base`), the three of the scale goal: a count, a count
    /// filtered on an indexed column, and a fetch whose filter matches at most 100 rows.
    static func observers(_ store: Store, base: Int) throws -> [LiveQuery<[Int]>] {
        func keys(_ query: Query<Event10>) -> LiveQuery<[Int]> {
            store.observe { try await query.ids().map(Int.init) }
        }
        func number(_ compute: @escaping @Sendable () async throws -> Int?) -> LiveQuery<[Int]> {
            store.observe { [try await compute() ?? -1] }
        }
        let events = try Event10.query(in: store)
        if base > 0 {
            return [
                number { try await events.count() },
                number { try await events.where(\.kind == 7).count() },
                keys(events.where(\.kind == 7 && \.amount == 500).limit(100)),
            ]
        }
        return [
            keys(events.where(\.kind == 7)),  // a filter
            number { try await events.count() },  // a count
            number { try await events.sum(\.amount) },  // an aggregate
            keys(events.orderByDescending(\.amount).limit(10)),  // an ordered limit
            keys(events.where(\.team?.name == "team 3").orderByDescending(\.id).limit(20)),  // a path
            number { try await events.where(\.kind < 10).count() },
            number { try await events.where(\.kind == 1).max(\.amount) },
            number { try await events.max(\.amount) },
            keys(events.where(\.kind == 5).orderBy(\.amount).limit(5)),
            number { try await events.where(\.amount > 990).count() },
        ]
    }

    static func run(_ kind: BackendKind, commits: Int, batch: Int, base: Int, directory: String) throws -> Result {
        let box = Mutex<Swift.Result<Result, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task {
            do {
                let plain = try await measure(
                    kind, commits: commits, batch: batch, base: base, directory: directory, observed: false)
                let observed = try await measure(
                    kind, commits: commits, batch: batch, base: base, directory: directory, observed: true)
                box.withLock {
                    $0 = .success(
                        Result(
                            plain: plain.time, observed: observed.time, latencies: observed.latencies,
                            deliveries: observed.deliveries))
                }
            } catch {
                box.withLock { $0 = .failure(error) }
            }
            done.signal()
        }
        done.wait()
        return try box.withLock { $0! }.get()
    }

    private static func measure(
        _ kind: BackendKind, commits: Int, batch: Int, base: Int, directory: String, observed: Bool
    ) async throws -> (time: Duration, latencies: Histogram<UInt64>, deliveries: Int) {
        let (store, dispose) = try SharkStoreRuns.open(kind, directory: directory, workload: "observation")
        defer { dispose() }
        try store.commit((0..<100).map { Team10(name: "team \($0)") })
        _ = try store.prepare(Event10.self)
        // The rows already there, unobserved and untimed, in commits of 10,000.
        for start in stride(from: 0, to: base, by: 10_000) {
            try store.commit(
                (start..<min(start + 10_000, base)).map { row in
                    Event10(kind: row % 100, amount: (row * 7919) % 1000, team: nil)
                })
        }
        // When each commit finished, by commit number, for the latencies.
        let committedAt = CommitTimes()
        let observers = observed ? try observers(store, base: base) : []
        // Each observer notes when each result arrived; latencies are computed once the
        // commits and deliveries are over. A result can arrive before the writing thread has
        // read its own clock after `commit` returned: such a delivery counts as zero latency,
        // never as a negative one or as none.
        let consumers = observers.map { live in
            Task { () -> [(sequence: UInt64, at: ContinuousClock.Instant)] in
                var arrivals: [(sequence: UInt64, at: ContinuousClock.Instant)] = []
                for try await value in live { arrivals.append((value.sequence, ContinuousClock.now)) }
                return arrivals
            }
        }
        for live in observers { await live.caughtUp(through: store.lastCommitSequence) }
        // The commits run on a thread of their own, as an app's background writes would,
        // with the synchronous API.
        let start = ContinuousClock.now
        let failure = Mutex<(any Error)?>(nil)
        await withCheckedContinuation { (finished: CheckedContinuation<Void, Never>) in
            Thread {
                do {
                    let teams = try Team10.query(in: store).orderBy(\.id).fetch()
                    for commit in 0..<commits {
                        let events = (0..<batch).map { n in
                            let row = commit * batch + n
                            return Event10(kind: row % 100, amount: (row * 7919) % 1000, team: teams[row % teams.count])
                        }
                        try store.commit(events)
                        let sequence = store.lastCommitSequence
                        let now = ContinuousClock.now
                        committedAt[sequence] = now
                    }
                } catch {
                    failure.withLock { $0 = error }
                }
                finished.resume()
            }.start()
        }
        if let error = failure.withLock({ $0 }) { throw error }
        let last = store.lastCommitSequence
        for live in observers { await live.caughtUp(through: last) }
        let time = ContinuousClock.now - start
        store.close()  // ends the observers' iterations
        var latencies = Histogram<UInt64>(highestTrackableValue: 60_000_000_000, numberOfSignificantValueDigits: .three)
        var deliveries = 0
        for consumer in consumers {
            for arrival in try await consumer.value {
                guard let committed = committedAt[arrival.sequence] else { continue }  // the caught-up result
                _ = latencies.record(Nanoseconds.elapsed(from: committed, to: arrival.at))
                deliveries += 1
            }
        }
        return (time, latencies, deliveries)
    }
}

/// What O reports per driver: medians of the runs, the spread of the ratio, and latencies over
/// every delivery of every run.
struct ObservationFigures: Codable {
    var backend: String
    var commits: Int
    var batch: Int
    var plainMilliseconds: Double
    var observedMilliseconds: Double
    /// Until the last observer caught up, over the same commits unobserved (goal ≤ 1.2).
    var ratio: Double
    var ratioMin: Double
    var ratioMax: Double
    var latencyMedianMilliseconds: Double
    var latencyP99Milliseconds: Double
    var deliveries: Int
    /// The rows the store held before the commits (absent: none, and the ten observers).
    var base: Int?
}

extension ObservationBench {
    /// O, `runs` times per SharkORM backend among `backends`, alternated.
    static func measure(
        _ backends: [BackendKind], runs: Int, commits: Int, batch: Int, base: Int = 0, directory: String
    ) throws -> [ObservationFigures] {
        let (kinds, results) = try SharkStoreRuns.alternating(backends, runs: runs, label: "O") { kind in
            try run(kind, commits: commits, batch: batch, base: base, directory: directory)
        }
        return kinds.map { kind in
            let runs = results[kind] ?? []
            let ratios = runs.map { $0.observed.seconds / $0.plain.seconds }.sorted()
            var latencies = runs[0].latencies
            for run in runs.dropFirst() { latencies.add(run.latencies) }
            return ObservationFigures(
                backend: kind.rawValue, commits: commits, batch: batch,
                plainMilliseconds: median(runs.map(\.plain.seconds)) * 1000,
                observedMilliseconds: median(runs.map(\.observed.seconds)) * 1000, ratio: median(ratios),
                ratioMin: ratios.first ?? 0, ratioMax: ratios.last ?? 0,
                latencyMedianMilliseconds: Double(latencies.valueAtPercentile(50)) / 1e6,
                latencyP99Milliseconds: Double(latencies.valueAtPercentile(99)) / 1e6,
                deliveries: runs.map(\.deliveries).reduce(0, +) / max(1, runs.count), base: base)
        }
    }

    /// The Markdown table of `figures`.
    static func table(_ figures: [ObservationFigures], runs: Int) -> String {
        guard let first = figures.first else { return "O: no SharkORM driver chosen" }
        let rows = figures.map { figure in
            let title = BackendKind(rawValue: figure.backend)?.title ?? figure.backend
            return [
                title, String(format: "%.1f", figure.plainMilliseconds),
                String(format: "%.1f", figure.observedMilliseconds),
                String(format: "%.2f×", figure.ratio), String(format: "%.2f–%.2f×", figure.ratioMin, figure.ratioMax),
                String(format: "%.2f", figure.latencyMedianMilliseconds),
                String(format: "%.2f", figure.latencyP99Milliseconds), "\(figure.deliveries)",
            ]
        }
        let header = [
            "driver", "no observer (ms)", "observed, until caught up (ms)", "ratio", "spread of ratios",
            "latency median (ms)", "latency p99 (ms)", "deliveries",
        ]
        let base = first.base ?? 0
        let observing =
            base > 0
            ? "on a store of \(base) rows, without and with 3 live queries (a count, a count filtered on an "
                + "indexed column, a fetch of at most 100 rows) observing"
            : "without and with 10 live queries observing"
        return "O: \(first.commits) commits of \(first.batch) inserted objects, \(observing); "
            + "median of \(runs) runs (\(SharkStoreRuns.buildDescription))\n\n"
            + markdownTable(header, rows).joined(separator: "\n")
    }
}

/// When each commit finished, by commit number.
private final class CommitTimes: Sendable {
    private let times = Mutex<[UInt64: ContinuousClock.Instant]>([:])

    subscript(sequence: UInt64) -> ContinuousClock.Instant? {
        get { times.withLock { $0[sequence] } }
        set { times.withLock { $0[sequence] = newValue } }
    }
}

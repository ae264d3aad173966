import Synchronization

/// A query's result (or any value computed from a store) kept fresh: an `AsyncSequence` that
/// yields the first result at once, then a new one after each commit that changed it.
///
/// ```swift
/// for try await adults in try Person.query(in: store).where(\.age >= 18).observe() {
///     print("as of commit \(adults.sequence): \(adults.value.map(\.name))")
/// }
/// let headcount = store.observe { try await Person.query(in: store).count() }
/// ```
///
/// - **What it watches** is what the computation read, recorded as it runs (see
///   `ObservedRegion`): the query's entity, the entities its paths, subqueries and prefetches
///   reach, the related objects faults load. A commit that touches none of them does not
///   re-run it; raw SQL reads widen the region to every entity.
/// - **When it delivers**: only when the result differs from the last one delivered (objects
///   compared by their stored values), never twice for one result.
/// - **Bursts coalesce**: however many commits arrived since it last ran, the computation runs
///   once more for all of them; each value says the commit it reflects at least
///   (``ObservedValue/sequence``).
/// - **It never misses a commit**: it listens before it first reads, and a commit whose
///   changes are unknown (a transaction that began before anyone listened) re-runs it.
/// - **It never stalls writers**: it reads like any async query, on a reader connection (or a
///   snapshot of the memory engine), outside the writer's lock.
///
/// Each iteration is an observation of its own; ``caughtUp(through:)`` follows the latest.
/// It ends when the store closes.
public struct LiveQuery<Value>: AsyncSequence, Sendable {
    public typealias Element = ObservedValue<Value>
    public typealias Failure = any Error

    let store: Store
    let compute: @Sendable () async throws -> sending Value
    /// Makes, for one iteration, the test of whether a result differs from the last one.
    let makeChangeTest: @Sendable () -> (Value) -> Bool
    let progress = LiveQueryProgress()

    /// Starts an iteration: it listens for commits from now on, and computes at its first `next`.
    public func makeAsyncIterator() -> Iterator {
        Iterator(observation: self, notices: store.eventHub.notices().makeAsyncIterator())
    }

    /// Waits until this observation's iteration has taken into account every commit up to
    /// `sequence` (usually `store.lastCommitSequence` after a write): it has found that they
    /// did not change the result, or delivered a result reflecting them and been asked for
    /// the next one (so the consumer has handled it). Returns at once for commits already
    /// seen, and once the iteration has ended (the store closed, or the computation threw);
    /// waits while nothing iterates.
    ///
    /// ```swift
    /// let adults = try Person.query(in: store).where(\.age >= 18).observe()
    /// try store.commit(Person(name: "Ada"))
    /// await adults.caughtUp(through: store.lastCommitSequence)
    /// ```
    public func caughtUp(through sequence: UInt64) async {
        await progress.wait(through: sequence)
    }

    /// Calls `handler` with each new value (the first at once), on the actor of the caller
    /// (the main actor, or one of yours), until the subscription is cancelled or released.
    ///
    /// ```swift
    /// @MainActor func showAdults() throws {
    ///     subscription = try Person.query(in: store).where(\.age >= 18).observe().onChange { adults in
    ///         render(adults.value)
    ///     }
    /// }
    /// ```
    public func onChange(
        isolation: isolated any Actor = #isolation, _ handler: @escaping (ObservedValue<Value>) -> Void
    ) -> EventSubscription {
        let task = Task {
            await deliver(isolation: isolation, handler)
        }
        return EventSubscription(stoppingTask: task)
    }

    private func deliver(isolation: isolated any Actor, _ handler: (ObservedValue<Value>) -> Void) async {
        var iterator = makeAsyncIterator()
        // A failing computation ends the subscription, as it ends an iteration.
        while let value = try? await iterator.next(isolation: isolation) { handler(value) }
    }

    /// Delivers the observation's values one by one.
    public struct Iterator: AsyncIteratorProtocol {
        let observation: LiveQuery
        var notices: AsyncStream<CommitNotice>.Iterator
        var region: ObservedRegion?
        var evaluated: UInt64 = 0
        var isChange: ((Value) -> Bool)?
        /// The commit the value delivered last reflects: caught up with once the consumer
        /// comes back for the next value, having handled that one.
        var delivered: UInt64?

        init(observation: LiveQuery, notices: AsyncStream<CommitNotice>.Iterator) {
            self.observation = observation
            self.notices = notices
            observation.progress.begin()
        }

        /// ``next(isolation:)`` outside any actor.
        public mutating func next() async throws -> ObservedValue<Value>? {
            try await next(isolation: nil)
        }

        /// The next result that differs from the last one delivered (the first result
        /// first); nil once the store has closed.
        public mutating func next(isolation actor: isolated (any Actor)?) async throws -> ObservedValue<Value>? {
            // However the iteration ends, nobody waits for it to catch up any more.
            do {
                guard let value = try await advance(isolation: actor) else {
                    observation.progress.end()
                    return nil
                }
                return value
            } catch {
                observation.progress.end()
                throw error
            }
        }

        private mutating func advance(isolation actor: isolated (any Actor)?) async throws -> ObservedValue<Value>? {
            if let delivered {
                observation.progress.advance(to: delivered)
                self.delivered = nil
            }
            guard let region else { return try await evaluate(isolation: actor) }
            while true {
                // Cancelled, the iteration ends (a stream would still hand out what it buffered).
                guard !Task.isCancelled, let notice = await notices.next(isolation: actor) else { return nil }
                if notice.sequence <= evaluated { continue }  // seen by a later computation
                if !region.mayBeChanged(by: notice) {
                    evaluated = notice.sequence
                    observation.progress.advance(to: evaluated)
                    continue
                }
                if let value = try await evaluate(isolation: actor) { return value }
            }
        }

        /// Computes the value, recording what it reads; returns it when it is new.
        private mutating func evaluate(isolation actor: isolated (any Actor)?) async throws -> ObservedValue<Value>? {
            let store = observation.store
            let region = ObservedRegion(store: store)
            let compute = observation.compute
            // Waits for a place among the store's observer computations (see `ObserverGate`).
            let (value, reflected) = try await store.observerGate.run(in: store) { () async throws -> (Value, UInt64) in
                // Every commit up to this number is in what the computation reads (perhaps more).
                let reflected = store.lastCommitSequence
                let value = try await TransactionScope.$open.withValue(TransactionScope.open + [region]) {
                    try await compute()
                }
                return (value, reflected)
            }
            self.region = region
            evaluated = Swift.max(evaluated, reflected)
            let isChange = self.isChange ?? observation.makeChangeTest()
            self.isChange = isChange
            guard isChange(value) else {
                observation.progress.advance(to: evaluated)
                return nil
            }
            delivered = evaluated
            return ObservedValue(value: value, sequence: reflected)
        }
    }
}

/// One value of a ``LiveQuery``, with the commit it reflects.
///
/// ```swift
/// for try await adults in query.observe() { print(adults.sequence, adults.value.count) }
/// ```
public struct ObservedValue<Value> {
    /// The result.
    public let value: Value
    /// Every commit up to this number (see ``Store/lastCommitSequence``) is reflected in it.
    public let sequence: UInt64
}

extension ObservedValue: Sendable where Value: Sendable {}

/// How far an observation has caught up, for ``LiveQuery/caughtUp(through:)``.
final class LiveQueryProgress: Sendable {
    private struct State {
        /// Nil until the first computation.
        var evaluated: UInt64?
        /// The iteration ended (the store closed, or the computation failed).
        var ended = false
        var waiters: [(sequence: UInt64, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state = Mutex(State())

    func advance(to sequence: UInt64) {
        let ready = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            let evaluated = Swift.max(state.evaluated ?? 0, sequence)
            guard !state.ended else { return [] }
            state.evaluated = evaluated
            let ready = state.waiters.filter { $0.sequence <= evaluated }.map(\.continuation)
            state.waiters.removeAll { $0.sequence <= evaluated }
            return ready
        }
        for continuation in ready { continuation.resume() }
    }

    /// A new iteration starts: catching up means catching up with it.
    func begin() {
        state.withLock { $0.ended = false }
    }

    /// Releases every waiter, now and later: the iteration is over.
    func end() {
        let waiting = state.withLock { state in
            state.ended = true
            defer { state.waiters.removeAll() }
            return state.waiters.map(\.continuation)
        }
        for continuation in waiting { continuation.resume() }
    }

    func wait(through sequence: UInt64) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = state.withLock { state -> Bool in
                if state.ended { return true }
                if let evaluated = state.evaluated, evaluated >= sequence { return true }
                state.waiters.append((sequence, continuation))
                return false
            }
            if done { continuation.resume() }
        }
    }
}

extension Store {
    /// Observes any value computed from this store: `compute` runs once at first, then again
    /// after each commit that touched what it read; a value is delivered when it differs from
    /// the last one.
    ///
    /// ```swift
    /// let payroll = store.observe { try await Employee.query(in: store).sum(\.salary) }
    /// for try await total in payroll { print(total.value ?? 0) }
    /// ```
    public func observe<Value: Equatable & SendableMetatype>(
        _ compute: @escaping @Sendable () async throws -> sending Value
    ) -> LiveQuery<Value> {
        LiveQuery(store: self, compute: compute) {
            var last: Value?
            return { value in
                defer { last = value }
                return last != value
            }
        }
    }
}

extension Query {
    /// The matching objects, kept fresh (see ``LiveQuery``). A query without an ordering
    /// is observed in key order, so that its results do not appear to move.
    ///
    /// ```swift
    /// for try await team in try Employee.query(in: store).where(\.team == "Compilers").observe() {
    ///     print(team.value.map(\.name))
    /// }
    /// ```
    public func observe() -> LiveQuery<[Root]> {
        let query = description.ordering.isEmpty ? orderBy(\.id) : self
        return LiveQuery(store: store, compute: { try await query.fetch() }) {
            // Compared by stored values, taken when delivered: the app may change the
            // objects it was given afterwards.
            var last: [[Value]]?
            return { objects in
                let rows = objects.map(storedValues)
                defer { last = rows }
                return last != rows
            }
        }
    }
}

/// The values `object` would store, by column.
func storedValues<M: Model>(of object: M) -> [Value] {
    let collector = ValueCollector(count: M._sharkSchemaColumns.count)
    try? object._sharkWriteColumns(from: 0, to: collector, offset: 0)
    return collector.values
}

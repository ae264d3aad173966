import Foundation
import Observation
@_spi(SharkDriver) import SharkORM
import Synchronization
import Testing

/// Counts how often an observation computes.
private final class Runs: Sendable {
    private let count = Atomic<Int>(0)
    func tick() { count.add(1, ordering: .relaxed) }
    var value: Int { count.load(ordering: .relaxed) }
}

/// Plain functions, so that inside async tests these writes use the synchronous API.
private func commit<M: Model>(_ object: M, to store: Store) throws { try store.commit(object) }

struct LiveQueryTests {

    func deliversChanges(driver: ConformanceDriver) async throws {
        let store = try driver.makeStore()
        defer { store.close() }
        let ada = Person(name: "Ada", age: 36, payrollNumber: 1)
        try store.commit([ada, Person(name: "Alan", age: 41, payrollNumber: 2)])
        var adults = try Person.query(in: store).where(\.age >= 40).observe().makeAsyncIterator()
        let first = try #require(try await adults.next())
        #expect(first.value.map(\.name) == ["Alan"])
        #expect(first.sequence == store.lastCommitSequence)

        try commit(Person(name: "Grace", age: 85, payrollNumber: 3), to: store)
        let second = try #require(try await adults.next())
        #expect(second.value.map(\.name) == ["Alan", "Grace"])  // no ordering asked: key order
        #expect(second.sequence == store.lastCommitSequence)

        // A commit that leaves the result as it was delivers nothing; the next change does.
        ada.age = 37
        try commit(ada, to: store)
        let unchanged = store.lastCommitSequence
        ada.age = 50
        try commit(ada, to: store)
        let third = try #require(try await adults.next())
        #expect(third.value.map(\.name) == ["Ada", "Alan", "Grace"])
        #expect(third.sequence > unchanged)
        // Objects are compared by their stored values: an update of a matching object counts.
        ada.name = "Ada L."
        try commit(ada, to: store)
        #expect(try await adults.next()?.value.first?.name == "Ada L.")
    }

    func regionAndCoalescing(driver: ConformanceDriver) async throws {
        let store = try driver.makeStore()
        defer { store.close() }
        _ = try store.prepare(Note.self)
        try store.commit(Person(name: "Ada", payrollNumber: 1))
        let runs = Runs()
        let headcount = store.observe {
            runs.tick()
            return try await Person.query(in: store).count()
        }
        var counts = headcount.makeAsyncIterator()
        #expect(try await counts.next()?.value == 1)
        #expect(runs.value == 1)
        for n in 0..<3 { try commit(Note(text: "note \(n)"), to: store) }  // another entity
        for n in 2...6 { try commit(Person(name: "p\(n)", payrollNumber: n), to: store) }  // a burst
        let latest = try #require(try await counts.next())
        #expect(latest.value == 6)
        #expect(latest.sequence == store.lastCommitSequence)
        #expect(runs.value == 2)
    }

    func relationships(driver: ConformanceDriver) async throws {
        let store = try driver.makeStore()
        defer { store.close() }
        let company = try TwoDepartments(committedTo: store)
        let (sales, research) = (company.sales, company.research)
        var inRome = try Employee.query(in: store).where(\.department?.location?.name == "Rome").observe()
            .makeAsyncIterator()
        #expect(try await inRome.next()?.value.map(\.name) == ["Ada"])
        // Only a Location changes: the path made it part of the region.
        research.location?.name = "Rome"
        try commit(research.location!, to: store)
        #expect(try await inRome.next()?.value.map(\.name) == ["Ada", "Alan"])

        // Related objects loaded lazily inside the computation are watched as well.
        var departmentNames = store.observe {
            try await Employee.query(in: store).orderBy(\.name).fetch().map { $0.department?.name }
        }.makeAsyncIterator()
        #expect(try await departmentNames.next()?.value == ["Sales", "Research"])
        sales.name = "Marketing"
        try commit(sales, to: store)
        #expect(try await departmentNames.next()?.value == ["Marketing", "Research"])

        var payroll = store.observe { try await Employee.query(in: store).sum(\.salary) }.makeAsyncIterator()
        #expect(try await payroll.next()?.value == 190)
        try commit(Employee("Grace", salary: 120), to: store)
        #expect(try await payroll.next()?.value == 310)
    }

    func caughtUp(driver: ConformanceDriver) async throws {
        let store = try driver.makeStore()
        defer { store.close() }
        _ = try store.prepare(Person.self)
        let names = store.observe { try await Person.query(in: store).orderBy(\.name).fetch().map(\.name) }
        let latest = Mutex<[String]?>(nil)
        let deliveries = Atomic<Int>(0)
        let consumer = Task {
            for try await value in names {
                latest.withLock { $0 = value.value }
                deliveries.add(1, ordering: .relaxed)
            }
        }
        await names.caughtUp(through: store.lastCommitSequence)
        #expect(latest.withLock { $0 } == [])
        try commit(Person(name: "Grace", payrollNumber: 1), to: store)
        try commit(Person(name: "Ada", payrollNumber: 2), to: store)
        _ = try store.prepare(Note.self)
        try commit(Note(text: "unrelated"), to: store)
        await names.caughtUp(through: store.lastCommitSequence)
        #expect(latest.withLock { $0 } == ["Ada", "Grace"])
        #expect(deliveries.load(ordering: .relaxed) <= 3)
        store.close()  // ends the sequence
        try await consumer.value
    }

    func closeEnds(driver: ConformanceDriver) async throws {
        let store = try driver.makeStore()
        var iterator = store.observe { try await Person.query(in: store).count() }.makeAsyncIterator()
        #expect(try await iterator.next()?.value == 0)
        store.close()
        #expect(try await iterator.next() == nil)
    }

    @MainActor
    func observableHolder(driver: ConformanceDriver) async throws {
        let store = try driver.makeStore()
        defer { store.close() }
        try store.commit(Person(name: "Ada", payrollNumber: 1))
        let live = try Person.query(in: store).orderBy(\.name).observe()
        let holder = LiveResults(live)
        await live.caughtUp(through: store.lastCommitSequence)
        #expect(holder.value?.map(\.name) == ["Ada"])
        let changed = Mutex<Bool>(false)
        withObservationTracking {
            _ = holder.value
        } onChange: {
            changed.withLock { $0 = true }
        }
        try commit(Person(name: "Grace", payrollNumber: 2), to: store)
        await live.caughtUp(through: store.lastCommitSequence)
        #expect(changed.withLock { $0 })
        #expect(holder.value?.map(\.name) == ["Ada", "Grace"])
        #expect(holder.sequence == store.lastCommitSequence)
        holder.stop()
    }

    @MainActor
    func callback(driver: ConformanceDriver) async throws {
        let store = try driver.makeStore()
        defer { store.close() }
        _ = try store.prepare(Person.self)
        let live = store.observe { try await Person.query(in: store).count() }
        var seen: [Int] = []
        let subscription = live.onChange { value in
            MainActor.assertIsolated()
            seen.append(value.value)
        }
        await live.caughtUp(through: store.lastCommitSequence)
        try commit(Person(name: "Ada", payrollNumber: 1), to: store)
        await live.caughtUp(through: store.lastCommitSequence)
        #expect(seen == [0, 1])
        subscription.cancel()
        try commit(Person(name: "Alan", payrollNumber: 2), to: store)
        var check = live.makeAsyncIterator()  // a second iteration: sees 2; the cancelled one stays at 1
        #expect(try await check.next()?.value == 2)
        #expect(seen == [0, 1])
    }

    func failure(driver: ConformanceDriver) async throws {
        let store = try driver.makeStore()
        defer { store.close() }
        _ = try store.prepare(Person.self)
        let runs = Runs()
        let failing = store.observe { () async throws -> Int in
            runs.tick()
            if runs.value > 1 { throw SharkError.invalidQuery("the second run fails") }
            return try await Person.query(in: store).count()
        }
        let consumer = Task {
            for try await _ in failing {}
        }
        await failing.caughtUp(through: store.lastCommitSequence)
        try commit(Person(name: "Ada", payrollNumber: 1), to: store)
        await failing.caughtUp(through: store.lastCommitSequence)  // returns: the iteration ended
        await #expect(throws: SharkError.self) { try await consumer.value }
    }

    func backgroundReads(driver: ConformanceDriver) async throws {
        let store = try driver.makeStore()
        defer { store.close() }
        _ = try store.prepare(Person.self)
        /// The name and the scheduling priority of the thread a read runs on.
        @Sendable func readingThread() async throws -> ThreadFacts {
            try await store.read { _ in ThreadFacts.current }
        }
        let appRead = try await readingThread()
        var observed = store.observe { try await readingThread() }.makeAsyncIterator()
        let observerRead = try #require(try await observed.next()).value
        #expect(appRead.name.hasPrefix("Shark reader"))
        #expect(observerRead.name.hasPrefix("Shark watcher"))
        #if os(Linux)
            #expect(observerRead.niceness > appRead.niceness)
        #endif
    }
}

/// What a test can see of the thread it runs on.
private struct ThreadFacts: Equatable, Sendable {
    var name: String
    var niceness: Int32

    static var current: ThreadFacts {
        #if os(Linux)
            errno = 0
            let niceness = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
        #else
            let niceness: Int32 = 0
        #endif
        #if os(Linux)
            // What the system calls the thread: Foundation's `Thread.current` may be a
            // stand-in object early in a thread's life.
            let name = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? ""
        #else
            let name = Thread.current.name ?? ""
        #endif
        return ThreadFacts(name: name, niceness: niceness)
    }
}

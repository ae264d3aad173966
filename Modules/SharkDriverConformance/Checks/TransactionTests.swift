import Foundation
@_spi(SharkDriver) import SharkORM
import Testing

struct Failure: Error {}

struct TransactionTests {

    func rollbackLeavesNoTrace(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        let kept = Person(name: "Kept", age: 1, payrollNumber: 1)
        try store.commit(kept)

        let fresh = Person(name: "Fresh", payrollNumber: 2)
        #expect(throws: Failure.self) {
            try store.transaction {
                try store.commit(fresh)
                kept.age = 2
                try store.commit(kept)
                throw Failure()
            }
        }
        #expect(try Person.query(in: store).count() == 1)
        #expect(try store.find(Person.self, id: kept.id)?.age == 1)
        // Objects are restored too: the new one is new again, the stored one shows the stored values.
        #expect(!fresh.isPersisted && fresh.id == 0 && fresh.hasChanges)
        #expect(kept.age == 1 && !kept.hasChanges && kept.isPersisted)

        // The restored new object commits again normally.
        try store.commit(fresh)
        #expect(try Person.query(in: store).count() == 2)
    }

    func rollbackOfRemoval(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        let person = Person(name: "Ada", payrollNumber: 1)
        try store.commit(person)
        #expect(throws: Failure.self) {
            try store.transaction {
                try store.remove(person)
                throw Failure()
            }
        }
        #expect(person.isPersisted)
        #expect(try store.find(Person.self, id: person.id) != nil)
    }

    func deferredSnapshot(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        // The first use of a model inside the read creates its table before the snapshot.
        #expect(try store.read { _ in try Person.query(in: store).count() } == 0)
        // A table created once the snapshot exists is not in it, on any driver: prepare first.
        _ = try store.prepare(Note.self)
        let counts = try store.read { _ in (try Person.query(in: store).count(), try Note.query(in: store).count()) }
        #expect(counts == (0, 0))
    }

    func nestedSavepoints(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        try store.transaction {
            try store.commit(Person(name: "Outer", payrollNumber: 1))
            #expect(throws: Failure.self) {
                try store.transaction {
                    try store.commit(Person(name: "Inner", payrollNumber: 2))
                    try store.transaction {
                        try store.commit(Person(name: "Innermost", payrollNumber: 3))
                    }
                    throw Failure()
                }
            }
            try store.transaction {
                try store.commit(Person(name: "Second inner", payrollNumber: 4))
            }
            // Reads inside a transaction see its own writes.
            #expect(try Person.query(in: store).count() == 2)
        }
        #expect(try Person.query(in: store).orderBy(\.name).fetch().map(\.name) == ["Outer", "Second inner"])
    }

    func outerRollbackUndoesInner(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        let inner = Person(name: "Inner", payrollNumber: 1)
        #expect(throws: Failure.self) {
            try store.transaction {
                try store.transaction { try store.commit(inner) }
                #expect(inner.isPersisted)
                throw Failure()
            }
        }
        #expect(!inner.isPersisted && inner.id == 0)
        #expect(try Person.query(in: store).count() == 0)
    }

    func isolation(driver: ConformanceDriver) async throws {
        let store = try driver.makeStore()
        defer { store.close() }
        try store.commit(Person(name: "Before", payrollNumber: 1))
        try await store.transaction {
            try store.commit(Person(name: "Inside", payrollNumber: 2))
            let seenElsewhere = Thread.runAndWait { try? Person.query(in: store).count() }
            #expect(seenElsewhere == 1)
        }
        #expect(try await Person.query(in: store).count() == 2)
    }

    /// What a reader on another thread sees of the people: how many, how many of age 7 (an
    /// index), the age of payroll number 5's row (by key) and the sum of ages (a scan).
    struct Seen: Equatable, Sendable {
        var count: Int
        var agedSeven: Int
        var fifthAge: Int?
        var totalAge: Int?

        static func look(_ store: Store, fifth: Int64) -> Seen? {
            Thread.runAndWait {
                let people = try? Person.query(in: store)
                guard let people, let count = try? people.count(),
                    let agedSeven = try? people.where(\.age == 7).count(),
                    let found = try? store.find(Person.self, id: fifth), let total = try? people.sum(\.age)
                else { return nil }
                return Seen(count: count, agedSeven: agedSeven, fifthAge: found.age, totalAge: total)
            }
        }
    }

    func readersDuringLongTransactions(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        let people = (0..<600).map { Person(name: "p\($0)", age: $0 % 50, payrollNumber: $0) }
        try store.commit(people)
        let fifth = people[5].id
        let before = Seen.look(store, fifth: fifth)
        #expect(before == Seen(count: 600, agedSeven: 12, fifthAge: 5, totalAge: 600 / 50 * (49 * 50 / 2)))

        // 300 updates, 100 removals, 700 inserts and a rolled-back savepoint of 50 more: well
        // past the thousand changes after which the memory engine stops logging its undo.
        func longTransaction(then ending: () throws -> Void) throws {
            try store.transaction {
                for person in people[0..<300] {
                    person.age += 100
                    try store.commit(person)
                }
                #expect(Seen.look(store, fifth: fifth) == before)
                for person in people[500..<600] { try store.remove(person) }
                try? store.transaction {
                    try store.commit((0..<50).map { Person(name: "gone \($0)", age: 7, payrollNumber: 5_000 + $0) })
                    #expect(try Person.query(in: store).count() == 550)
                    throw Failure()
                }
                for batch in 0..<7 {
                    try store.commit(
                        (0..<100).map { n in
                            Person(name: "new", age: 7, payrollNumber: 1_000 + batch * 100 + n)
                        })
                    #expect(Seen.look(store, fifth: fifth) == before)
                }
                #expect(try Person.query(in: store).count() == 1_200)
                #expect(try Person.query(in: store).where(\.age == 7).count() == 4 + 700)
                try ending()
            }
        }
        #expect(throws: Failure.self) { try longTransaction { throw Failure() } }
        #expect(Seen.look(store, fifth: fifth) == before)
        #expect(people[5].age == 5)

        try longTransaction {}
        let after = Seen.look(store, fifth: fifth)
        #expect(after?.count == 1_200 && after?.fifthAge == 105)
        // Ages 0–49 twelve times, 300 of them 100 older (six of age 7), 100 removed (ages 0–49
        // twice, two of age 7), 700 of age 7.
        #expect(after?.agedSeven == 12 - 6 - 2 + 700)
        #expect(after?.totalAge == 600 / 50 * (49 * 50 / 2) + 300 * 100 - 2 * (49 * 50 / 2) + 700 * 7)
    }

    func readersSeeWholeTransactions(driver: ConformanceDriver) async throws {
        let store = try driver.makeStore()
        defer { store.close() }
        try store.prepare(Person.self)
        let oddCounts = try await withThrowingTaskGroup(of: Int.self) { group in
            group.addTask {
                // Every transaction adds two rows: a consistent reader only ever sees even counts.
                for pair in 0..<40 {
                    try await store.transaction {
                        try store.commit(Person(name: "a", payrollNumber: pair * 2))
                        try store.commit(Person(name: "b", payrollNumber: pair * 2 + 1))
                    }
                }
                return 0
            }
            for _ in 0..<2 {
                group.addTask {
                    var odd = 0
                    for _ in 0..<200 where try await Person.query(in: store).count() % 2 != 0 { odd += 1 }
                    return odd
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(oddCounts == 0)
        #expect(try await Person.query(in: store).count() == 80)
    }

    func concurrentWriters(driver: ConformanceDriver) async throws {
        let store = try driver.makeStore()
        defer { store.close() }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<4 {
                group.addTask {
                    for index in 0..<25 {
                        try store.commit(Person(name: "w\(worker)", payrollNumber: worker * 100 + index))
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try await Person.query(in: store).count() == 100)
    }
}

extension Thread {
    /// Runs `body` on a new thread and waits for its result: for checking what another
    /// thread sees while this one holds a transaction open.
    static func runAndWait<T: Sendable>(_ body: @escaping @Sendable () -> T) -> T {
        let box = ResultBox<T>()
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            box.set(body())
            done.signal()
        }
        thread.start()
        done.wait()
        return box.get()!
    }
}

final class ResultBox<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: T?
    func set(_ newValue: T) { lock.withLock { value = newValue } }
    func get() -> T? { lock.withLock { value } }
}

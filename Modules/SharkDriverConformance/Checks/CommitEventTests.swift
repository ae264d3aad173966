import Foundation
@_spi(SharkDriver) @_spi(SharkReplication) import SharkORM
import Synchronization
import Testing

/// An observer that keeps its own bookkeeping entity (as sync keeps its metadata) and, when
/// asked, also touches an app entity.
private final class BookkeepingObserver: TransactionObserver, Sendable {
    let alsoTouchesPeople: Bool
    init(alsoTouchesPeople: Bool) { self.alsoTouchesPeople = alsoTouchesPeople }

    var protectedEntities: Set<String> { ["AuditEntry"] }

    func transactionWillCommit(_ changes: [Change], in transaction: WriteTransaction) throws {
        for change in changes {
            let entry = AuditEntry()
            entry.entity = change.entity
            try transaction.commit(entry)
        }
        if alsoTouchesPeople { try transaction.commit(Person(name: "observer", payrollNumber: 777)) }
    }
}

/// Protects the people from raw SQL (as sync protects its synced entities) and, for each
/// person inserted, renames another one as a consequence, through `writingConsequences`.
private final class ConsequenceObserver: TransactionObserver, Sendable {
    var protectedEntities: Set<String> { ["Person"] }
    let shown = Mutex<[Change]>([])

    func transactionWillCommit(_ changes: [Change], in transaction: WriteTransaction) throws {
        shown.withLock { $0 += changes }
        guard changes.contains(where: { $0.operation == .insert }) else { return }
        try transaction.writingConsequences {
            _ = try transaction.updateRow(withKey: .integer(1), in: "Person", setting: ["name": "renamed"])
        }
    }
}

/// Keeps every change it is shown, and writes nothing.
private final class WatchingObserver: TransactionObserver, Sendable {
    let shown = Mutex<[Change]>([])

    func transactionWillCommit(_ changes: [Change], in transaction: WriteTransaction) throws {
        shown.withLock { $0 += changes }
    }
}

/// Awaits the next event of a stream, failing the test rather than hanging when the stream
/// ends first.
private func next<S: AsyncSequence & Sendable>(_ iterator: inout S.AsyncIterator, of _: S.Type) async throws
    -> S.Element
where S.Element: Sendable {
    guard let element = try await iterator.next() else {
        throw SharkError.invalidQuery("the event stream ended early")
    }
    return element
}

/// Every element of a finite sequence.
private func collect<S: AsyncSequence>(_ sequence: S) async -> [S.Element] where S.Failure == Never {
    var elements: [S.Element] = []
    for await element in sequence { elements.append(element) }
    return elements
}

@Suite("Commit events")
struct CommitEventTests {
    func afterCommitOnly(driver: ConformanceDriver) async throws {
        let store = try driver.makeStore()
        defer { store.close() }
        _ = try store.prepare(Person.self)
        var events = store.events().makeAsyncIterator()
        let ada = Person(name: "Ada", payrollNumber: 1)
        let alan = Person(name: "Alan", payrollNumber: 2)
        try store.commit([ada, alan])
        let inserted = try await next(&events, of: AsyncStream<CommitEvent>.self)
        #expect(inserted.entities["Person"]?.inserted == [.integer(ada.id), .integer(alan.id)])
        #expect(inserted.origin == .local)
        #expect(inserted.sequence == store.lastCommitSequence)

        ada.age = 37
        try store.commit(ada)
        let updated = try await next(&events, of: AsyncStream<CommitEvent>.self)
        #expect(updated.entities["Person"]?.updated == [.integer(ada.id): ["age"]])
        #expect(updated.sequence > inserted.sequence)

        // Rolled back, vetoed, or netted out to nothing: no event. The next event is the marker.
        // (Plain functions: inside an async one, `store.write` would pick the async overload.)
        struct Refused: Error {}
        let grace = Person(name: "Grace", payrollNumber: 6)
        func writeWithoutEvents() throws {
            _ = try? store.write { tx in
                try tx.commit(Person(name: "Rolled back", payrollNumber: 3))
                throw Refused()
            }
            let vetoed = Person(name: "Vetoed", payrollNumber: 4)
            vetoed.vetoInsert = true
            #expect(throws: SharkError.self) { try store.commit(vetoed) }
            try store.write { tx in
                let transient = Person(name: "Transient", payrollNumber: 5)
                try tx.commit(transient)
                try tx.remove(transient)
            }
        }
        // Inside a committed transaction: a savepoint rolled back leaves nothing; removed then
        // inserted again is an update; inserted then updated is an insert.
        func writeMixed() throws {
            try store.write { tx in
                _ = try? tx.transaction { inner in
                    try inner.commit(Person(name: "Savepoint", payrollNumber: 7))
                    throw Refused()
                }
                try tx.commit(grace)
                grace.age = 85
                try tx.commit(grace)
                try tx.remove(alan)
            }
        }
        func reinsert() throws {
            try store.write { tx in
                try tx.remove(ada)
                ada.name = "Ada again"
                try tx.commit(ada)
            }
        }
        try writeWithoutEvents()
        try writeMixed()
        let mixed = try await next(&events, of: AsyncStream<CommitEvent>.self)
        #expect(mixed.entities.keys.sorted() == ["Person"])
        #expect(mixed.entities["Person"]?.inserted == [.integer(grace.id)])
        #expect(mixed.entities["Person"]?.removed == [.integer(alan.id)])
        #expect(mixed.entities["Person"]?.updated == [:])
        try reinsert()
        let reinserted = try await next(&events, of: AsyncStream<CommitEvent>.self)
        #expect(reinserted.entities["Person"]?.updated[.integer(ada.id)]?.contains("name") == true)
        #expect(reinserted.entities["Person"]?.inserted == [])
        #expect(reinserted.entities["Person"]?.removed == [])
    }

    func typedChanges(driver: ConformanceDriver) async throws {
        let store = try driver.makeStore()
        defer { store.close() }
        _ = try store.prepare(Person.self)
        _ = try store.prepare(Note.self)
        var people = store.events(for: Person.self).makeAsyncIterator()
        try store.commit(Note(text: "not a person"))
        let ada = Person(name: "Ada", payrollNumber: 1)
        try store.commit(ada)
        let changes = try #require(await people.next())
        #expect(changes.inserted == [ada.id])
        try store.remove(ada)
        let removal = try #require(await people.next())
        #expect(removal.removed == [ada.id])
        #expect(removal.sequence == changes.sequence + 1)
    }

    func queryWrites(driver: ConformanceDriver) async throws {
        let store = try driver.makeStore()
        defer { store.close() }
        let people = (1...4).map { Person(name: "p\($0)", age: $0, payrollNumber: $0) }
        try store.commit(people)
        var events = store.events().makeAsyncIterator()
        try await Person.query(in: store).where(\.age <= 2).updateAll(.set(\.email, to: "x@example.com"))
        let updated = try await next(&events, of: AsyncStream<CommitEvent>.self)
        #expect(
            Set(updated.entities["Person"]?.updated.keys ?? [:].keys) == [
                .integer(people[0].id), .integer(people[1].id),
            ])
        #expect(updated.entities["Person"]?.updated[.integer(people[0].id)] == ["email"])
        try await Person.query(in: store).where(\.age > 2).removeAll()
        let removed = try await next(&events, of: AsyncStream<CommitEvent>.self)
        #expect(Set(removed.entities["Person"]?.removed ?? []) == [.integer(people[2].id), .integer(people[3].id)])
    }

    func rawSQL(driver: ConformanceDriver) async throws {
        let store = try driver.makeStore()
        defer { store.close() }
        try store.commit(Person(name: "Ada", payrollNumber: 1))
        var events = store.events().makeAsyncIterator()
        try store.execute(
            driver.sql("UPDATE Person SET age = age + 1", postgresql: #"UPDATE "Person" SET age = age + 1"#))
        let event = try await next(&events, of: AsyncStream<CommitEvent>.self)
        #expect(event.entities["Person"]?.hasUnknownChanges == true)
        #expect(event.entities["Person"]?.inserted == [])
    }

    func observerBookkeeping(driver: ConformanceDriver) async throws {
        for touchesPeople in [false, true] {
            let store = try driver.makeStore()
            defer { store.close() }
            _ = try store.prepare(AuditEntry.self)
            store.addTransactionObserver(BookkeepingObserver(alsoTouchesPeople: touchesPeople))
            var events = store.events().makeAsyncIterator()
            let ada = Person(name: "Ada", payrollNumber: 1)
            try store.commit(ada)
            let event = try await next(&events, of: AsyncStream<CommitEvent>.self)
            #expect(event.entities["AuditEntry"] == nil)
            #expect(try await AuditEntry.query(in: store).count() == 1)
            #expect(event.entities["Person"]?.inserted.count == (touchesPeople ? 2 : 1))
        }
    }

    func writeRoles(driver: ConformanceDriver) async throws {
        let store = try driver.makeStore()
        defer { store.close() }
        _ = try store.prepare(Person.self)
        _ = try store.prepare(AuditEntry.self)
        let observer = WatchingObserver()
        store.addTransactionObserver(observer)
        var events = store.events().makeAsyncIterator()
        try await store.write { tx in
            try tx.attributeChanges(to: .imported("peer"))
            try tx.commit(Person(name: "Ada", payrollNumber: 1))
            try tx.writingBookkeeping {
                try tx.commit(AuditEntry())
                // Attributing the transaction does not make bookkeeping the app's.
                try tx.attributeChanges(to: .imported("peer"))
                _ = try tx.insertRow(["entity": "Person"], into: "AuditEntry")
            }
            let row = try tx.insertRow(["name": "Alan", "payrollNumber": 2], into: "Person")
            try tx.writingBookkeeping { _ = try tx.deleteRow(withKey: row, from: "Person") }
        }
        let shown = observer.shown.withLock { $0 }
        #expect(shown.map(\.entity) == ["Person", "Person"])
        #expect(shown.allSatisfy { $0.origin == .imported("peer") && $0.operation == .insert })
        let event = try await next(&events, of: AsyncStream<CommitEvent>.self)
        #expect(event.origin == .imported("peer"))
        #expect(event.entities["AuditEntry"] == nil)
        #expect(event.entities["Person"]?.inserted.count == 2)
        #expect(event.entities["Person"]?.removed.isEmpty == true)
        // Written all the same.
        #expect(try await AuditEntry.query(in: store).count() == 2)
        #expect(try await Person.query(in: store).count() == 1)
        // The next transaction is the app's again.
        try store.commit(Person(name: "Grace", payrollNumber: 3))
        #expect(try await next(&events, of: AsyncStream<CommitEvent>.self).origin == .local)
        #expect(observer.shown.withLock { $0.last?.origin } == .local)
    }

    func observerConsequences(driver: ConformanceDriver) async throws {
        let store = try driver.makeStore()
        defer { store.close() }
        _ = try store.prepare(Person.self)
        let first = try await store.write { tx in try tx.insertRow(["name": "Ada", "payrollNumber": 1], into: "Person")
        }
        #expect(first == .integer(1))
        let observer = ConsequenceObserver()
        let watcher = WatchingObserver()
        store.addTransactionObserver(observer)
        store.addTransactionObserver(watcher)
        var events = store.events().makeAsyncIterator()
        try store.commit(Person(name: "Grace", payrollNumber: 2))
        let event = try await next(&events, of: AsyncStream<CommitEvent>.self)
        // The event has the app's insert and the observer's consequence, with the app's origin.
        #expect(event.origin == .local)
        #expect(event.entities["Person"]?.inserted.count == 1)
        #expect(event.entities["Person"]?.updated[.integer(1)] == ["name"])
        // Neither observer is shown the consequence; it is written all the same.
        #expect(observer.shown.withLock { $0.map(\.operation) } == [.insert])
        #expect(watcher.shown.withLock { $0.map(\.operation) } == [.insert])
        #expect(try await Person.query(in: store).where(\.name == "renamed").count() == 1)
    }

    func callbacks(driver: ConformanceDriver) async throws {
        let store = try driver.makeStore()
        defer { store.close() }
        _ = try store.prepare(Person.self)
        let (fromQueue, queueInput) = AsyncStream<UInt64>.makeStream()
        let (fromActor, actorInput) = AsyncStream<UInt64>.makeStream()
        let (typed, typedInput) = AsyncStream<[Int64]>.makeStream()
        let queue = DispatchQueue(label: "events")
        let onQueue = store.onCommit(queue: queue) { queueInput.yield($0.sequence) }
        let onActor = store.onCommit(on: MainActor.shared) { _, event in
            MainActor.assertIsolated()
            actorInput.yield(event.sequence)
        }
        let ofPeople = store.onCommit(of: Person.self, queue: DispatchQueue(label: "people")) {
            typedInput.yield($0.inserted)
        }
        var expected: [UInt64] = []
        var keys: [[Int64]] = []
        for n in 1...5 {
            let person = Person(name: "p\(n)", payrollNumber: n)
            try store.commit(person)
            expected.append(store.lastCommitSequence)
            keys.append([person.id])
        }
        #expect(await collect(fromQueue.prefix(5)) == expected)
        #expect(await collect(fromActor.prefix(5)) == expected)
        #expect(await collect(typed.prefix(5)) == keys)
        // After cancel, nothing more arrives: the actor's subscription sees a later commit, the
        // queue's does not.
        onQueue.cancel()
        try store.commit(Person(name: "after", payrollNumber: 99))
        var actorEvents = fromActor.makeAsyncIterator()
        #expect(await actorEvents.next() == store.lastCommitSequence)
        queue.sync {}
        queueInput.finish()
        #expect(await collect(fromQueue).isEmpty)
        withExtendedLifetime((onActor, ofPeople)) {}
    }

    func closeEnds(driver: ConformanceDriver) async throws {
        let store = try driver.makeStore()
        let events = store.events()
        store.close()
        var count = 0
        for await _ in events { count += 1 }
        #expect(count == 0)
        var late = store.events().makeAsyncIterator()
        #expect(await late.next() == nil)
    }

    func releaseEnds(driver: ConformanceDriver) async throws {
        var store: Store? = try driver.makeStore()
        let events = store!.events()
        store = nil
        var count = 0
        for await _ in events { count += 1 }
        #expect(count == 0)
    }
}

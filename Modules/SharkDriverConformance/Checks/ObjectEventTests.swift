import Foundation
@_spi(SharkDriver) import SharkORM
import Testing

/// Plain functions, so that inside async tests these writes use the synchronous API.
private func commitElsewhere(_ person: Person, to store: Store) throws { try store.commit(person) }
private func removeElsewhere(_ person: Person, from store: Store) throws { try store.remove(person) }

@Suite("Object events and live objects")
struct ObjectEventTests {
    @MainActor
    func liveObject(driver: ConformanceDriver) async throws {
        let store = try driver.makeStore()
        defer { store.close() }
        let ada = Person(name: "Ada", age: 36, payrollNumber: 1)
        try store.commit([ada, Person(name: "Alan", age: 41, payrollNumber: 2)])
        // What the handler sees: the event, and the object's age and name when it runs.
        let (seen, input) = AsyncStream<(ObjectEvent, Int, String)>.makeStream()
        let subscription = try store.observe(ada) { event in input.yield((event, ada.age, ada.name)) }
        var events = seen.makeAsyncIterator()

        // Another instance of the same row changes it.
        let other = try #require(try await store.find(Person.self, id: ada.id))
        other.age = 50
        try commitElsewhere(other, to: store)
        let first = try #require(await events.next())
        #expect(first.0 == .updated(["age"], sequence: store.lastCommitSequence))
        #expect(first.1 == 50)  // refreshed before the handler ran

        // Unsaved changes stay, and win; the rest is refreshed.
        ada.name = "Ada (unsaved)"
        other.age = 51
        other.name = "Other"
        try commitElsewhere(other, to: store)
        let second = try #require(await events.next())
        #expect(second.0 == .updated(["age", "name"], sequence: store.lastCommitSequence))
        #expect(second.1 == 51 && second.2 == "Ada (unsaved)")
        #expect(ada.hasChanges)
        try store.commit(ada)  // its own commit is an update too
        #expect(try #require(await events.next()).0 == .updated(["name"], sequence: store.lastCommitSequence))

        // Commits to other rows say nothing to it; its removal elsewhere ends the observation.
        try commitElsewhere(Person(name: "Grace", payrollNumber: 3), to: store)
        try removeElsewhere(other, from: store)
        let last = try #require(await events.next())
        #expect(last.0 == .removed(sequence: store.lastCommitSequence))
        withExtendedLifetime(subscription) {}
    }

    @MainActor
    func rawSQL(driver: ConformanceDriver) async throws {
        let store = try driver.makeStore()
        defer { store.close() }
        let ada = Person(name: "Ada", age: 36, payrollNumber: 1)
        let alan = Person(name: "Alan", age: 41, payrollNumber: 2)
        try store.commit([ada, alan])
        let (seen, input) = AsyncStream<ObjectEvent>.makeStream()
        let subscription = try store.observe(ada) { input.yield($0) }
        // Not Ada: nothing.
        try store.execute(
            driver.sql(
                "UPDATE Person SET age = age + 1 WHERE name = 'Alan'",
                postgresql: #"UPDATE "Person" SET age = age + 1 WHERE name = 'Alan'"#))
        try store.execute(
            driver.sql(
                "UPDATE Person SET age = 40 WHERE name = 'Ada'",
                postgresql: #"UPDATE "Person" SET age = 40 WHERE name = 'Ada'"#))
        var events = seen.makeAsyncIterator()
        // One event, for whichever commit's read first found the change.
        guard case .updated(let properties, _) = await events.next() else {
            Issue.record("expected an update")
            return
        }
        #expect(properties == ["age"])
        #expect(ada.age == 40)
        withExtendedLifetime(subscription) {}
    }

    @MainActor
    func stops(driver: ConformanceDriver) async throws {
        let store = try driver.makeStore()
        defer { store.close() }
        #expect(throws: SharkError.self) { try store.observe(Person(name: "new", payrollNumber: 9)) { _ in } }
        let ada = Person(name: "Ada", age: 36, payrollNumber: 1)
        let alan = Person(name: "Alan", age: 41, payrollNumber: 2)
        try store.commit([ada, alan])
        let (seen, input) = AsyncStream<String>.makeStream()
        let onAda = try store.observe(ada) { _ in input.yield("ada") }
        let onAlan = try store.observe(alan) { _ in input.yield("alan") }
        onAda.cancel()
        let copy = try #require(try await store.find(Person.self, id: ada.id))
        copy.age = 99
        try commitElsewhere(copy, to: store)
        let alanCopy = try #require(try await store.find(Person.self, id: alan.id))
        alanCopy.age = 98
        try commitElsewhere(alanCopy, to: store)
        var events = seen.makeAsyncIterator()
        #expect(await events.next() == "alan")  // the first event to arrive is Alan's
        #expect(ada.age == 36)  // no longer live
        withExtendedLifetime(onAlan) {}
    }
}

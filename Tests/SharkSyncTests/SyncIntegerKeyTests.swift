import Crypto
import Foundation
@_spi(SharkDriver) import SharkORM
import SharkTestSupport
import Testing

@testable import SharkDriverConformance
@testable import SharkSync

/// A replica syncing the `Int64`-keyed models, visits' keys assigned as `visits` says.
private func integerReplica(
    _ driver: TestDriver, site: Int, visits: IntegerKeyAssignment, store: Store? = nil
) throws -> SyncEngine {
    var options = SyncOptions(site: UUID(uuidString: String(format: "00000000-0000-0000-0000-%012d", site))!)
    options.assignKeys(of: SyncTally.self, .appAssigned)
    options.assignKeys(of: SyncVisit.self, visits)
    return try SyncEngine(
        store: try store ?? driver.makeStore(), lineage: "integers", models: [SyncTally.self, SyncVisit.self],
        options: options)
}

/// Every row of the `Int64`-keyed models, in a form that compares across drivers.
func integerContents(_ store: Store) throws -> [String] { try contents(of: ["SyncTally", "SyncVisit"], in: store) }

private func exchange(_ a: SyncEngine, _ b: SyncEngine) throws { try exchangeChanges(a, b) }

@Suite("Sync: Int64 keys")
struct SyncIntegerKeyTests {
    @Test(
        "app-assigned keys: the same key on two replicas is one row, merged column by column",
        arguments: TestDriver.allCases)
    func appAssigned(driver: TestDriver) throws {
        let a = try integerReplica(driver, site: 1, visits: .random)
        let b = try integerReplica(.memory, site: 2, visits: .random)
        defer {
            a.store.close()
            b.store.close()
        }
        try a.store.commit(SyncTally(id: 42, label: "from a"))
        try exchange(a, b)
        let onA = try #require(try a.store.find(SyncTally.self, id: 42))
        let onB = try #require(try b.store.find(SyncTally.self, id: 42))
        onA.label = "renamed on a"
        onB.count = 9
        try a.store.commit(onA)
        try b.store.commit(onB)
        // Two replicas inserting the same key offline: one row, its columns merged.
        try a.store.commit([SyncTally(id: -7, label: "negative keys too"), SyncTally(id: 8, label: "a's 8", count: 1)])
        try b.store.commit(SyncTally(id: 8, label: "b's 8", count: 2))
        try exchange(a, b)
        #expect(try integerContents(a.store) == integerContents(b.store))
        let merged = try #require(try b.store.find(SyncTally.self, id: 42))
        #expect(merged.label == "renamed on a" && merged.count == 9)
        #expect(try SyncTally.query(in: a.store).count() == 3)

        // Key 0 asks the store to number the row, which an app-assigned model refuses.
        #expect(throws: SharkError.self) { try a.store.commit(SyncTally(id: 0, label: "no key")) }
        #expect(throws: SharkError.self) { try a.store.commit([SyncTally(id: 0, label: "no key either")]) }
        #expect(throws: SharkError.self) {
            try a.store.write { tx in try tx.insertRow(["label": .text("raw")], into: "SyncTally") }
        }
        #expect(try SyncTally.query(in: a.store).count() == 3)
    }

    @Test(
        "slots: each replica numbers its rows in its own range, before and after imports",
        arguments: TestDriver.allCases)
    func slots(driver: TestDriver) throws {
        let a = try integerReplica(driver, site: 1, visits: .slot(1))
        let b = try integerReplica(.sqlite, site: 2, visits: .slot(2))
        defer { b.store.close() }
        let tally = SyncTally(id: 5, label: "shared")
        let first = SyncVisit(place: "Rome")
        first.tally = tally
        try a.store.commit(tally)
        try a.store.commit(first)
        try a.store.commit([SyncVisit(place: "Lyon"), SyncVisit(place: "Oslo")])
        try b.store.commit(SyncVisit(place: "Kyoto"))
        let slotOne = SlotKeys.range(of: 1)
        let slotTwo = SlotKeys.range(of: 2)
        #expect(first.id == slotOne.lowerBound + 1)
        #expect(try SyncVisit.query(in: a.store).fetch().allSatisfy { slotOne.contains($0.id) })

        try exchange(a, b)
        #expect(try integerContents(a.store) == integerContents(b.store))
        #expect(try b.store.find(SyncVisit.self, id: first.id)?.tally?.label == "shared")
        // After an import of slot 2's rows, a's next key is still its own, not max + 1.
        let later = SyncVisit(place: "Quito")
        try a.store.commit(later)
        #expect(later.id == slotOne.lowerBound + 4)
        let onB = SyncVisit(place: "Lima")
        try b.store.commit(onB)
        #expect(slotTwo.contains(onB.id) && onB.id == slotTwo.lowerBound + 2)

        // Opened again, the engine goes on after the largest key of its slot.
        if driver != .memory {
            let reopened = try integerReplica(driver, site: 1, visits: .slot(1), store: a.store)
            let next = SyncVisit(place: "Baku")
            try reopened.store.commit(next)
            #expect(next.id == slotOne.lowerBound + 5)
        }
        try exchange(a, b)
        #expect(try integerContents(a.store) == integerContents(b.store))
        a.store.close()
    }

    @Test("random keys: distinct, positive, and carried like any other", arguments: TestDriver.allCases)
    func randomKeys(driver: TestDriver) throws {
        let a = try integerReplica(driver, site: 1, visits: .random)
        let b = try integerReplica(.memory, site: 2, visits: .random)
        defer {
            a.store.close()
            b.store.close()
        }
        let visits = (0..<50).map { SyncVisit(place: "place \($0)") }
        try a.store.commit(visits)
        try b.store.commit(SyncVisit(place: "one more"))
        #expect(Set(visits.map(\.id)).count == 50 && visits.allSatisfy { $0.id > 0 })
        try exchange(a, b)
        #expect(try SyncVisit.query(in: b.store).count() == 51)
        #expect(try integerContents(a.store) == integerContents(b.store))
    }

    @Test(
        "Int64 keys without an assignment, slots out of range, numbered rows and unsynced targets are refused",
        arguments: TestDriver.allCases)
    func refusals(driver: TestDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        func reason(_ body: () throws -> Void) -> String? {
            do {
                try body()
                return nil
            } catch SyncError.unsupportedModel(_, let reason) {
                return reason
            } catch {
                return "\(error)"
            }
        }
        #expect(
            reason { _ = try SyncEngine(store: store, lineage: "i", models: [SyncCounter.self]) }?.contains(
                ".appAssigned") == true)
        var options = SyncOptions()
        options.assignKeys(of: SyncVisit.self, .slot(IntegerKeyAssignment.slotCount))
        options.assignKeys(of: SyncTally.self, .appAssigned)
        #expect(
            reason {
                _ = try SyncEngine(
                    store: store, lineage: "i", models: [SyncTally.self, SyncVisit.self], options: options)
            }?.contains("slot") == true)
        // A relationship whose target is not synced.
        options.assignKeys(of: SyncVisit.self, .random)
        #expect(
            reason { _ = try SyncEngine(store: store, lineage: "i", models: [SyncVisit.self], options: options) }?
                .contains("not synced") == true)
        #expect(
            reason { _ = try SyncEngine(store: store, lineage: "i", models: [SyncNote.self]) }?.contains("SyncFolder")
                == true)

        // Rows the store numbered before sync: only app-assigned keys take them on.
        try store.commit([SyncCounter(), SyncCounter()])
        var counters = SyncOptions()
        counters.assignKeys(of: SyncCounter.self, .slot(3))
        #expect(
            reason { _ = try SyncEngine(store: store, lineage: "i", models: [SyncCounter.self], options: counters) }?
                .contains("already holds rows") == true)
        counters.assignKeys(of: SyncCounter.self, .appAssigned)
        let sync = try SyncEngine(store: store, lineage: "i", models: [SyncCounter.self], options: counters)
        // Its rows stay; a new one needs the key the app gives (this model cannot give one).
        #expect(throws: SharkError.self) { try sync.store.commit(SyncCounter()) }
        #expect(try SyncCounter.query(in: store).count() == 2)
    }

    @Test("a file since a vector is format 1 unless it carries Int64 keys; the same file relabeled format 1 is damaged")
    func formatVersions() throws {
        let notes = try SyncEngine(
            store: try TestDriver.memory.makeStore(), lineage: "v", models: [SyncNote.self, SyncFolder.self])
        defer { notes.store.close() }
        try notes.store.commit(SyncNote(title: "plain"))
        #expect(
            try ChangeLogContents(reading: try notes.exportChanges(since: VersionVector([UUID(): 1]))).formatVersion
                == 1)

        let integers = try integerReplica(.memory, site: 1, visits: .random)
        defer { integers.store.close() }
        try integers.store.commit(SyncTally(id: 1, label: "one"))
        var file = try integers.exportChanges()
        let contents = try ChangeLogContents(reading: file)
        #expect(contents.formatVersion == 2)
        #expect(contents.entities.map(\.keyKindName) == ["int64"])
        // The same file calling itself version 1, its digest made right again (the trailer's
        // last 32 bytes, over everything before the trailer's 44).
        file[8] = 1
        let digest = Array(SHA256.hash(data: file.prefix(file.count - 44)))
        file.replaceSubrange((file.count - 32)..<file.count, with: digest)
        // Version 2's header also holds a horizon, so a version 1 reader finds it damaged
        // before it reaches the key kind; the kind itself is unknown to version 1 as well.
        #expect {
            try ChangeLogContents(reading: file)
        } throws: { error in
            guard case SyncError.corrupt = error else { return false }
            return true
        }
        #expect(ChangeLogFormat.keyKind(named: "int64", version: 1) == nil)
        #expect(ChangeLogFormat.keyKind(named: "int64", version: 2) == .autoIncrement)
    }
}

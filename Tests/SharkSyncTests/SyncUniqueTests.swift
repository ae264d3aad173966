import Foundation
@_spi(SharkDriver) import SharkORM
import SharkSync
import SharkTestSupport
import Synchronization
import Testing

@testable import SharkDriverConformance

/// A clock the replicas of one test share, moved by the test: which claim is later is the
/// test's choice.
private final class SharedClock: Sendable {
    private let milliseconds = Mutex<UInt64>(1_700_000_000_000)
    func read() -> UInt64 { milliseconds.withLock { $0 } }
    func advance() { milliseconds.withLock { $0 += 10 } }
}

/// The rows of the models with unique indexes, as text.
func uniqueContents(_ store: Store) throws -> [String] { try contents(of: ["SyncAccount", "SyncBadge"], in: store) }

@Suite("Sync of unique indexes: the latest claim holds the value, the others wait with a stand-in")
struct SyncUniqueTests {
    private static func replica(_ driver: TestDriver, site: Int, clock: SharedClock) throws -> SyncEngine {
        var options = SyncOptions(site: UUID(uuidString: String(format: "00000000-0000-0000-0000-%012d", site))!)
        options.now = { clock.read() }
        return try SyncEngine(
            store: try driver.makeStore(), lineage: "unique", models: [SyncAccount.self, SyncBadge.self],
            options: options)
    }

    private static func send(_ from: SyncEngine, to: SyncEngine) throws {
        try to.importChanges(from: try from.exportChanges(since: try to.versionVector()))
    }

    private static func exchange(_ a: SyncEngine, _ b: SyncEngine) throws {
        try send(a, to: b)
        try send(b, to: a)
    }

    private static func handle(_ id: UUID, in engine: SyncEngine) throws -> String? {
        try engine.store.find(SyncAccount.self, id: id)?.handle
    }

    /// `a` (on `driver`) gives "ann" to one account, then `b` to another, later; both hear of
    /// both. Returns the replicas and the two accounts' keys (earlier, later).
    private static func contest(
        _ driver: TestDriver, clock: SharedClock
    ) throws -> (a: SyncEngine, b: SyncEngine, earlier: UUID, later: UUID) {
        let a = try replica(driver, site: 1, clock: clock)
        let b = try replica(.memory, site: 2, clock: clock)
        let earlier = SyncAccount(handle: "ann", note: "a's")
        try a.store.commit(earlier)
        clock.advance()
        let later = SyncAccount(handle: "ann", note: "b's")
        try b.store.commit(later)
        try exchange(a, b)
        return (a, b, earlier.id, later.id)
    }

    @Test(
        "two replicas give one handle to two rows: the later claim holds it everywhere, the other shows a stand-in",
        arguments: TestDriver.allCases)
    func laterClaimHolds(driver: TestDriver) throws {
        let clock = SharedClock()
        let (a, b, earlier, later) = try Self.contest(driver, clock: clock)
        let c = try Self.replica(.sqlite, site: 3, clock: clock)
        defer { for engine in [a, b, c] { engine.store.close() } }
        let standIn = "ann\u{1F}" + earlier.uuidString
        for engine in [a, b] {
            #expect(try Self.handle(later, in: engine) == "ann")
            #expect(try Self.handle(earlier, in: engine) == standIn)
            let waiting = try engine.standIns()
            #expect(waiting.count == 1)
            #expect(waiting.first?.entity == "SyncAccount")
            #expect(waiting.first?.columns == ["handle"])
            #expect(waiting.first?.claimed == [.text("ann")])
            #expect(waiting.first?.column == "handle")
            #expect(waiting.first?.standIn == .text(standIn))
            let rows = try engine.store.fetchRows(of: "SyncAccount")
            let laterKey = rows.first { $0.values.contains(.text("b's")) }?.values[0]
            #expect(waiting.first?.holder == laterKey)
            #expect(laterKey != nil)
        }
        #expect(try uniqueContents(a.store) == uniqueContents(b.store))
        // A replica that hears only from one of them ends the same: a file carries the claim,
        // never the stand-in.
        try c.importChanges(from: try a.exportChanges())
        #expect(try uniqueContents(c.store) == uniqueContents(a.store))
        #expect(try c.standIns() == a.standIns())
        let contents = try ChangeLogContents(reading: try a.exportChanges())
        let handles = contents.entities.first { $0.name == "SyncAccount" }?.rows.flatMap { row in
            row.values.map(\.value)
        }
        #expect(handles?.contains(.text(standIn)) == false)
    }

    @Test(
        "when the holder takes another value or is removed, the waiting row takes the value back, here and elsewhere",
        arguments: TestDriver.allCases)
    func waitingRowTakesTheValueBack(driver: TestDriver) throws {
        for removes in [false, true] {
            let clock = SharedClock()
            let (a, b, earlier, later) = try Self.contest(driver, clock: clock)
            defer { for engine in [a, b] { engine.store.close() } }
            clock.advance()
            let holder = try #require(try a.store.find(SyncAccount.self, id: later))
            if removes {
                try a.store.remove(holder)
            } else {
                holder.handle = "bo"
                try a.store.commit(holder)
            }
            // Here at once: the same transaction gave the value back.
            #expect(try Self.handle(earlier, in: a) == "ann")
            #expect(try a.standIns().isEmpty)
            try Self.send(a, to: b)
            #expect(try Self.handle(earlier, in: b) == "ann")
            #expect(try Self.handle(later, in: b) == (removes ? nil : "bo"))
            #expect(try b.standIns().isEmpty)
            #expect(try uniqueContents(a.store) == uniqueContents(b.store))
        }
    }

    @Test(
        "two rows swap their handles in one transaction, and the file that carries it", arguments: TestDriver.allCases)
    func swaps(driver: TestDriver) throws {
        let clock = SharedClock()
        let a = try Self.replica(driver, site: 1, clock: clock)
        let b = try Self.replica(driver, site: 2, clock: clock)
        defer { for engine in [a, b] { engine.store.close() } }
        let x = SyncAccount(handle: "p")
        let y = SyncAccount(handle: "q")
        try a.store.commit([x, y])
        try Self.send(a, to: b)
        clock.advance()
        try a.store.write { tx in
            x.handle = "swapping"
            try tx.commit(x)
            y.handle = "p"
            try tx.commit(y)
            x.handle = "q"
            try tx.commit(x)
        }
        try Self.send(a, to: b)
        for engine in [a, b] {
            #expect(try Self.handle(x.id, in: engine) == "q")
            #expect(try Self.handle(y.id, in: engine) == "p")
            #expect(try engine.standIns().isEmpty)
        }
    }

    @Test(
        "a one-to-one reference and a two-column index: the losing row reads nil in the optional column until it holds",
        arguments: TestDriver.allCases)
    func optionalColumnsTakeNull(driver: TestDriver) throws {
        let clock = SharedClock()
        let a = try Self.replica(driver, site: 1, clock: clock)
        let b = try Self.replica(.sqlcipher, site: 2, clock: clock)
        defer { for engine in [a, b] { engine.store.close() } }
        let account = SyncAccount(handle: "ann")
        try a.store.commit(account)
        try Self.send(a, to: b)
        clock.advance()
        let first = SyncBadge(id: "first", series: "gold", number: 1)
        first.account = try a.store.find(SyncAccount.self, id: account.id)
        try a.store.commit(first)
        clock.advance()
        let second = SyncBadge(id: "second", series: "gold", number: 1)
        second.account = try b.store.find(SyncAccount.self, id: account.id)
        try b.store.commit(second)
        try Self.exchange(a, b)
        for engine in [a, b] {
            let losing = try #require(try engine.store.find(SyncBadge.self, id: "first"))
            #expect(losing.account == nil)
            #expect(losing.number == nil)
            #expect(losing.series == "gold")
            let holding = try #require(try engine.store.find(SyncBadge.self, id: "second"))
            #expect(holding.account?.id == account.id)
            #expect(holding.number == 1)
            #expect(try engine.standIns().map(\.columns) == [["account"], ["series", "number"]])
        }
        clock.advance()
        try b.store.remove(try #require(try b.store.find(SyncBadge.self, id: "second")))
        try Self.exchange(a, b)
        for engine in [a, b] {
            let badge = try #require(try engine.store.find(SyncBadge.self, id: "first"))
            #expect(badge.account?.id == account.id)
            #expect(badge.number == 1)
            #expect(try engine.standIns().isEmpty)
        }
        #expect(try uniqueContents(a.store) == uniqueContents(b.store))
    }

    @Test(
        "local writes: a clash still throws, another column leaves the wait as it is, a new handle ends it",
        arguments: TestDriver.allCases)
    func localWrites(driver: TestDriver) throws {
        let clock = SharedClock()
        let (a, b, earlier, later) = try Self.contest(driver, clock: clock)
        defer { for engine in [a, b] { engine.store.close() } }
        clock.advance()
        #expect(throws: SharkError.self) { try a.store.commit(SyncAccount(handle: "ann")) }
        let waiting = try #require(try a.store.find(SyncAccount.self, id: earlier))
        waiting.note = "edited while waiting"
        try a.store.commit(waiting)
        #expect(try a.standIns().count == 1)
        try Self.send(a, to: b)
        #expect(try b.store.find(SyncAccount.self, id: earlier)?.note == "edited while waiting")
        #expect(try uniqueContents(a.store) == uniqueContents(b.store))
        clock.advance()
        waiting.handle = "cat"
        try a.store.commit(waiting)
        #expect(try a.standIns().isEmpty)
        try Self.send(a, to: b)
        for engine in [a, b] {
            #expect(try Self.handle(earlier, in: engine) == "cat")
            #expect(try Self.handle(later, in: engine) == "ann")
            #expect(try engine.standIns().isEmpty)
        }
    }
}

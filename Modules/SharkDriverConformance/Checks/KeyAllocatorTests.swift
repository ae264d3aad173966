import Foundation
@_spi(SharkDriver) @_spi(SharkReplication) import SharkORM
import Testing

/// A model whose `Int64` key the store assigns.
@Model
final class Ticket {
    var title: String = ""

    init(title: String) { self.title = title }
}

/// Hands out keys from `next` upward, or refuses when `refusing`.
private final class CountingAllocator: KeyAllocator, @unchecked Sendable {
    var next: Int64
    var refusing = false
    private(set) var calls = 0

    init(from next: Int64) { self.next = next }

    func allocateKeys(_ count: Int, for schema: EntitySchema) throws -> [Int64] {
        calls += 1
        if refusing { throw SharkError.invalidKey(entity: schema.name, reason: "refused by the test") }
        defer { next += Int64(count) }
        return (0..<Int64(count)).map { next + $0 }
    }
}

/// A key allocator (what sync installs for `Int64` keys) replaces the driver's numbering on
/// every path that inserts a row without a key, and nowhere else.
struct KeyAllocatorTests {
    func allocatorAssignsKeys(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        let base: Int64 = 1 << 40
        let allocator = CountingAllocator(from: base)
        try store.commit(Ticket(title: "before"))
        store.setKeyAllocator(allocator, for: "Ticket")

        let one = Ticket(title: "one")
        try store.commit(one)
        #expect(one.id == base)
        let bulk = [Ticket(title: "a"), Ticket(title: "b"), Ticket(title: "c")]
        try store.commit(bulk)
        let expected: [Int64] = [base + 1, base + 2, base + 3]
        #expect(bulk.map(\.id) == expected)
        let row = try store.write { tx in try tx.insertRow(["title": .text("row")], into: "Ticket") }
        #expect(row == .integer(base + 4))
        // A key given is the row's: the allocator is not asked.
        let calls = allocator.calls
        try store.write { tx in _ = try tx.insertRow(["id": .integer(77), "title": .text("given")], into: "Ticket") }
        #expect(allocator.calls == calls)
        #expect(try store.find(Ticket.self, id: base + 2)?.title == "b")
        #expect(try store.find(Ticket.self, id: 77)?.title == "given")

        // Refused: nothing is written, the object keeps key 0 and can be committed later.
        allocator.refusing = true
        let refused = Ticket(title: "refused")
        #expect(throws: SharkError.self) { try store.commit(refused) }
        #expect(throws: SharkError.self) { try store.commit([Ticket(title: "x"), Ticket(title: "y")]) }
        #expect(refused.id == 0 && !refused.isPersisted)
        #expect(try Ticket.query(in: store).count() == 7)
        allocator.refusing = false

        // Rolled back: the row goes, the allocator's key is simply not used again.
        struct Abort: Error {}
        #expect(throws: Abort.self) {
            try store.write { tx in
                try tx.commit(Ticket(title: "rolled back"))
                throw Abort()
            }
        }
        #expect(try Ticket.query(in: store).where(\.title == "rolled back").count() == 0)
        try store.commit(refused)
        #expect(refused.id == base + 6)

        // Without it, the driver numbers rows again, after the largest key.
        store.setKeyAllocator(nil, for: "Ticket")
        let after = Ticket(title: "after")
        try store.commit(after)
        #expect(after.id == base + 7)
        #expect(try Ticket.query(in: store).count() == 9)
    }
}

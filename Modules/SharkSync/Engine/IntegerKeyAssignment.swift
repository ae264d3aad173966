import Foundation
@_spi(SharkReplication) import SharkORM

/// How new rows of a synced model with an `Int64` key get their keys.
///
/// One store alone gives each new row the key after its largest. Replicas that merge their
/// rows cannot: two of them offline would give two different rows the same key, and the same
/// key on two replicas means the same row. No 64-bit key is free of collisions without some
/// coordination, so sync asks which of these the app wants:
///
/// ```swift
/// var options = SyncOptions()
/// options.assignKeys(of: Person.self, .slot(7))   // slot 7 was granted to this replica
/// let people = try SyncEngine(store: store, lineage: "com.example.people", models: [Person.self], options: options)
/// ```
///
/// Whichever it is, keys are chosen when an object is inserted, never by the driver's next
/// rowid (which after an import would jump into another replica's range).
public enum IntegerKeyAssignment: Sendable, Hashable {
    /// The app gives every new object its key, never 0: the same key on two replicas is the
    /// same row, merged column by column, as with `String` keys. Inserting an object whose key
    /// is still 0 throws `SharkError.invalidKey`. A model whose rows the store numbered before
    /// sync was enabled can only be synced this way.
    case appAssigned
    /// The engine numbers this replica's new rows within its slot: keys `slot × 2^40 + 1`,
    /// `+ 2`, and so on (2^40 keys a slot; slots from 0 to 2^23 − 1). Keys never collide as
    /// long as no two replicas hold the same slot: the app (or a server that knows its
    /// devices) grants them.
    case slot(Int)
    /// The engine draws each key at random from 1 to 2^63 − 1: no coordination, and a chance
    /// of about n² / 2^64 that two of n keys made on all replicas together collide (1 in 18
    /// million for a million keys, 1 in 1,800 for a hundred million). Two rows that collide
    /// merge into one. Random keys also scatter a SQLite table's inserts over its pages.
    case random

    /// Bits of a key below its slot.
    static let slotShift = 40
    /// The number of slots: what fits in a positive `Int64` above the counter's bits.
    static let slotCount = 1 << (63 - slotShift)
}

extension SyncOptions {
    /// Says how new rows of `model`, whose key is an `Int64`, get their keys (see
    /// ``IntegerKeyAssignment``). Sync refuses such a model until it is told.
    ///
    /// ```swift
    /// var options = SyncOptions()
    /// options.assignKeys(of: Person.self, .random)
    /// ```
    public mutating func assignKeys(of model: any Model.Type, _ assignment: IntegerKeyAssignment) {
        integerKeys[model.schema.name] = assignment
    }
}

/// The allocator for `.appAssigned`: there is nothing to choose, so an object that comes with
/// key 0 is refused rather than numbered.
final class AppAssignedKeys: KeyAllocator {
    func allocateKeys(_ count: Int, for schema: EntitySchema) throws -> [Int64] {
        throw SharkError.invalidKey(
            entity: schema.name,
            reason: "its keys are app-assigned for sync: give each new object a key other than 0")
    }
}

/// The allocator for `.slot(n)`: the next key after the largest of the slot used so far (by a
/// row, or by a row's sync state, which a removed row leaves behind), read again before each
/// allocation: other stores may number rows in the same slot (other processes writing the
/// same PostgreSQL schema or SQLite file), and a store's writes see theirs. Called with the
/// store's writer held, inside the write transaction, so the counter needs no lock of its
/// own; a rolled-back insert leaves a gap, as SQLite's rowids can.
final class SlotKeys: KeyAllocator, @unchecked Sendable {
    /// The next key to give; nil once the slot's last key is given.
    private var next: Int64?
    private let end: Int64
    /// Reads the largest key of the slot used now.
    private let refresh: @Sendable () throws -> Int64?

    /// `largest` is the largest key of the slot used already, if any; `refresh` reads it
    /// again before each allocation.
    init(slot: Int, largest: Int64?, refreshedBy refresh: @escaping @Sendable () throws -> Int64?) {
        let range = Self.range(of: slot)
        end = range.upperBound
        next = range.lowerBound + 1
        self.refresh = refresh
        advance(past: largest)
    }

    /// Moves `next` past `used`, the largest key used somewhere.
    private func advance(past used: Int64?) {
        guard let used, let current = next, used >= current else { return }
        next = used == end ? nil : used + 1
    }

    /// The largest key of `slot` among the rows of `schema`'s entity in `store` and, when
    /// given, among the rows of its sync state table `states` (keyed by `id`), if any.
    static func largestUsed(in slot: Int, of schema: EntitySchema, states: EntitySchema?, in store: Store) throws
        -> Int64?
    {
        let range = range(of: slot)
        var largest: Int64?
        for (table, key) in [(schema, schema.key.name), states.map { ($0, "id") }].compactMap({ $0 }) {
            let row = try store.storedRows(
                of: table,
                where: .between(.column(key), .value(.integer(range.lowerBound)), .value(.integer(range.upperBound))),
                orderedBy: [Ordering(.column(key), ascending: false)], limit: 1
            ).first
            if case .integer(let stored)? = row?.first { largest = max(largest ?? stored, stored) }
        }
        return largest
    }

    /// The smallest and largest key of `slot`.
    static func range(of slot: Int) -> ClosedRange<Int64> {
        let first = Int64(slot) << IntegerKeyAssignment.slotShift
        return first...(first | ((1 << IntegerKeyAssignment.slotShift) - 1))
    }

    func allocateKeys(_ count: Int, for schema: EntitySchema) throws -> [Int64] {
        advance(past: try refresh())
        guard let first = next, count <= end - first + 1 else {
            throw SharkError.invalidKey(
                entity: schema.name, reason: "its sync key slot is full (2^40 keys): grant this replica another")
        }
        guard count > 0 else { return [] }
        let last = first + Int64(count) - 1
        next = last == end ? nil : last + 1
        return Array(first...last)
    }
}

/// The allocator for `.random`: uniform keys from the system's generator.
final class RandomKeys: KeyAllocator {
    func allocateKeys(_ count: Int, for schema: EntitySchema) throws -> [Int64] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in Int64.random(in: 1...Int64.max, using: &generator) }
    }
}

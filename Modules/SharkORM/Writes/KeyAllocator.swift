/// Who assigns the `Int64` keys of new rows of one entity, in place of the driver.
///
/// Left alone, a driver gives a new row the next key after its largest (SQLite's rowid). That
/// is right for one store and wrong for several that merge their rows: two replicas would give
/// two different rows the same key, and after an import the next key jumps into the range of
/// another replica's. Sync installs an allocator for each synced model with `Int64` keys (a
/// slot of keys granted to this replica, random keys, or none at all where the app assigns
/// them), and every insert that would let the driver choose asks it instead: object commits,
/// bulk commits and row inserts alike, since they all reach the write stage.
///
/// ```swift
/// @_spi(SharkReplication) import SharkORM
///
/// final class Slotted: KeyAllocator, @unchecked Sendable {
///     var next: Int64 = 1 << 40
///     func allocateKeys(_ count: Int, for schema: EntitySchema) throws -> [Int64] {
///         defer { next += Int64(count) }
///         return (0..<count).map { next + Int64($0) }
///     }
/// }
/// store.setKeyAllocator(Slotted(), for: "Counter")
/// ```
///
/// It is called with the store's writer held, inside the transaction of the insert: it need
/// not lock, and it must not write through the store. A key it returns that is already stored
/// fails the insert as any duplicate key does.
@_spi(SharkReplication) public protocol KeyAllocator: AnyObject, Sendable {
    /// `count` new keys, all distinct, for rows about to be inserted into `schema`'s entity.
    /// Throwing refuses the insert (an entity whose keys the app must give, say).
    func allocateKeys(_ count: Int, for schema: EntitySchema) throws -> [Int64]
}

extension Store {
    /// Makes `allocator` assign the keys of new rows of `entity` (nil: the driver again).
    /// Takes effect with the next insert; waits for an open write transaction to end.
    @_spi(SharkReplication) public func setKeyAllocator(_ allocator: (any KeyAllocator)?, for entity: String) {
        writerLock.withLock { writeStage.keyAllocators[entity] = allocator }
    }
}

/// A row source whose key is `key`, whatever the wrapped source holds there: how the write
/// stage inserts a row whose key an allocator chose (the object still holds 0 until the
/// insert returns its key, as with a key the driver chose).
struct AllocatedKeyRow<Source: RowSource>: RowSource {
    let source: Source
    let key: Int64

    func _sharkWrite(column: Int32, to row: any RowWriter, at position: Int32) throws(SharkError) {
        guard column != 0 else { return row.write(key, at: position) }
        try source._sharkWrite(column: column, to: row, at: position)
    }

    func _sharkWriteColumns(from first: Int32, to row: any RowWriter, offset: Int32) throws(SharkError) {
        guard first <= 0 else { return try source._sharkWriteColumns(from: first, to: row, offset: offset) }
        row.write(key, at: offset)
        try source._sharkWriteColumns(from: 1, to: row, offset: offset)
    }
}

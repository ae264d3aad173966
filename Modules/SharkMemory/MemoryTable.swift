@_spi(SharkDriver) import SharkORM

/// A primary-key value with SQLite's equality: text and blobs compare by bytes (Swift's
/// `String ==` would treat canonically equivalent text as equal, SQLite does not).
struct RowKey: Hashable {
    let value: Value

    static func == (a: RowKey, b: RowKey) -> Bool {
        SQLiteSemantics.compare(a.value, b.value) == 0 && a.value.storageType == b.value.storageType
    }

    func hash(into hasher: inout Hasher) {
        switch value {
        case .null: hasher.combine(0)
        case .integer(let v): hasher.combine(v)
        case .real(let v): hasher.combine(v)
        case .text(let v):
            var text = v
            text.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        case .blob(let v): v.withUnsafeBytes { hasher.combine(bytes: $0) }
        }
    }
}

/// A stored row: the values of the entity's columns in schema order.
typealias Row = [Value]

/// A row in primary-key order.
struct KeyedRow: SortedElement {
    /// The key in the form searches compare (see ``SortKey``).
    let sortKey: SortKey
    var row: Row

    /// A row, keyed by its first value.
    init(_ row: Row) {
        sortKey = SortKey(row[0])
        self.row = row
    }

    private init(sortKey: SortKey) {
        self.sortKey = sortKey
        row = []
    }

    /// The row's key (a branch's search key, which holds no row, rebuilds it).
    var key: Value { row.isEmpty ? sortKey.value : row[0] }

    static func compare(_ lhs: KeyedRow, _ rhs: KeyedRow) -> Int { SortKey.compare(lhs.sortKey, rhs.sortKey) }

    static func compare(_ lhs: UnsafePointer<KeyedRow>, _ rhs: UnsafePointer<KeyedRow>) -> Int {
        SortKey.compare(lhs.pointee.sortKey, rhs.pointee.sortKey)
    }

    /// The key alone: branches guide searches without holding rows.
    var searchKey: KeyedRow { KeyedRow(sortKey: sortKey) }
}

/// An entry of a secondary index: the indexed values, then the row's key as a tie-break
/// (which also makes every entry unique), and the row itself (a shared reference, not a
/// copy) so that an index scan reads rows without a lookup by key. The first value is held
/// apart so that entries of single-column indexes (the common case) hold no array: a write
/// copies every entry of the leaf it changes, and an array would be one more reference to
/// retain for each.
struct IndexEntry: SortedElement {
    /// The first indexed value, in the form searches compare (see ``SortKey``): a
    /// relationship to a model keyed by UUID indexes blobs.
    let first: SortKey
    /// The indexed values after the first; nil for an index of one column.
    let rest: [Value]?
    /// The row's key, the tie-break, in the form searches compare (see ``SortKey``).
    let sortKey: SortKey
    let row: Row

    /// The row's key (a branch's search key, which holds no row, rebuilds it).
    var key: Value { row.isEmpty ? sortKey.value : row[0] }

    /// The indexed values.
    var values: [Value] { [first.value] + (rest ?? []) }

    static func compare(_ lhs: IndexEntry, _ rhs: IndexEntry) -> Int {
        withUnsafePointer(to: lhs) { lhs in withUnsafePointer(to: rhs) { rhs in compare(lhs, rhs) } }
    }

    static func compare(_ lhs: UnsafePointer<IndexEntry>, _ rhs: UnsafePointer<IndexEntry>) -> Int {
        let order = compareValues(lhs, rhs)
        return order != 0 ? order : SortKey.compare(lhs.pointee.sortKey, rhs.pointee.sortKey)
    }

    /// The order of the indexed values alone, without the key's tie-break.
    static func compareValues(_ lhs: UnsafePointer<IndexEntry>, _ rhs: UnsafePointer<IndexEntry>) -> Int {
        let order = SortKey.compare(lhs.pointee.first, rhs.pointee.first)
        if order != 0 { return order }
        if let left = lhs.pointee.rest, let right = rhs.pointee.rest {
            for (leftValue, rightValue) in zip(left, right) {
                let order = SQLiteSemantics.compare(leftValue, rightValue)
                if order != 0 { return order }
            }
        }
        return 0
    }

    /// The values and the key, without the row: branches guide searches without holding rows.
    var searchKey: IndexEntry { IndexEntry(first: first, rest: rest, sortKey: sortKey, row: []) }

    /// Smaller than a table's leaves: rows are mostly added in key order, at the table's end,
    /// but an index takes them wherever their values fall, so a commit of 100 rows copies up
    /// to 100 leaves of every index. O (commits of 100 rows over two indexes) ran in 28% fewer
    /// instructions with leaves of 32 than of 128 (callgrind); branches of 32 as well did no
    /// better (more levels to copy).
    static var leafCapacity: Int { 32 }
}

/// One secondary index: its declaration, column positions and entries.
struct MemoryIndex {
    let schema: IndexSchema
    let columns: [Int]
    var entries = SortedList<IndexEntry>()

    func entry(for row: Row) -> IndexEntry {
        IndexEntry(
            first: SortKey(row[columns[0]]), rest: columns.count == 1 ? nil : columns.dropFirst().map { row[$0] },
            sortKey: SortKey(row[0]), row: row)
    }

    // The writes are methods of the index, called in place (`indexes[i].insert(row)`):
    // `indexes[i].entries.insert(indexes[i].entry(for: row))` copied the index out of the
    // array to build the entry (its schema, columns and list retained and released), twice
    // for each row replaced.

    /// Adds the entry of `row`.
    mutating func insert(_ row: Row) { entries.insert(entry(for: row)) }

    /// Removes the entry of `row`.
    mutating func remove(_ row: Row) { entries.remove(entry(for: row)) }

    /// Moves the entry of `old` to `new`'s values, or, when they are the same, points it at
    /// the new row in place.
    mutating func replace(_ old: Row, with new: Row) {
        let before = entry(for: old)
        let after = entry(for: new)
        if IndexEntry.compare(before, after) != 0 {
            entries.remove(before)
            entries.insert(after)
        } else {
            entries.replace(after)  // same place, new row
        }
    }
}

/// One entity's storage: its rows in key order (a B+ tree, which serves point lookups, ranges
/// and scans alike) and the secondary indexes. Every part copies in O(1), so a transaction or
/// a reader snapshots the whole table for free.
///
/// Rows were also kept in a persistent hash map by key, for lookups. At a million rows it
/// held 61 bytes a row, and copying its paths made a commit of 100 new rows cost 517 µs
/// against 90 µs without it; lookups by key were faster with it, by about half a
/// microsecond (shark-bench's scale family, single runs).
struct MemoryTable {
    var schema: EntitySchema
    var ordered = SortedList<KeyedRow>()
    var indexes: [MemoryIndex] = []
    /// The columns SQLite's table declares NOT NULL (see `SchemaMigrator`): the key, and every
    /// non-optional column but reals (a NaN is stored as NULL, so real columns allow it).
    private let requiredColumns: [Int]

    init(schema: EntitySchema) {
        self.schema = schema
        requiredColumns = schema.columns.indices.filter { position in
            let column = schema.columns[position]
            return position == 0 || (!column.isNullable && column.type != .real)
        }
        indexes = schema.indexes.map { index in
            MemoryIndex(schema: index, columns: index.columns.compactMap { schema.columnIndex(named: $0) })
        }
    }

    var count: Int { ordered.count }

    /// The key SQLite would assign: one more than the largest integer key, 1 when empty.
    var nextKey: Int64 {
        if case .integer(let largest) = ordered.last?.key { return largest == .max ? largest : largest + 1 }
        return 1
    }

    // MARK: Writes

    /// Adds a row, enforcing the key and unique indexes first so a refusal changes nothing.
    mutating func insert(_ row: Row) throws {
        try checkRequired(row)
        // One sort key for the check and the insert: a UUID's costs a read of its `Data`.
        let keyed = KeyedRow(row)
        if Self.keyedRow(for: keyed.sortKey, in: ordered) != nil { throw uniqueViolation(columns: [schema.key.name]) }
        try checkUnique(row, ignoring: nil)
        ordered.insert(keyed)
        for index in indexes.indices { indexes[index].insert(row) }
    }

    /// Replaces the row with the same key. The unique indexes are checked first.
    mutating func replace(_ old: Row, with new: Row) throws {
        try checkRequired(new)
        try checkUnique(new, ignoring: old[0])
        ordered.replace(KeyedRow(new))
        for index in indexes.indices { indexes[index].replace(old, with: new) }
    }

    /// Refuses NULL where the SQLite table would: the same constraint, the same message.
    private func checkRequired(_ row: Row) throws {
        for position in requiredColumns where row[position].isNull {
            throw SharkError.constraintViolation(
                entity: schema.name,
                message: "NOT NULL constraint failed: \(schema.name).\(schema.columns[position].name)")
        }
    }

    /// Removes the row with `key` and returns it; nil when there is none.
    mutating func delete(key: Value) -> Row? {
        guard let row = row(forKey: key) else { return nil }
        ordered.remove(KeyedRow(row))
        for index in indexes.indices { indexes[index].remove(row) }
        return row
    }

    /// The row whose key is `key` (by SQLite's comparison, and of the same storage class:
    /// text '1' is not the integer 1).
    func row(forKey key: Value) -> Row? { Self.row(forKey: key, in: ordered) }

    /// The row of `ordered` whose key is `key`: what ``row(forKey:)`` finds, for a caller that
    /// holds only the table's rows.
    static func row(forKey key: Value, in ordered: SortedList<KeyedRow>) -> Row? {
        if case .integer(let sought) = key {
            // Integer keys compared as integers, without the general comparison's dispatch on
            // both values (a third of a lookup's comparisons); a key of another storage class
            // still compares as SQLite orders them.
            let soughtKey = SortKey.integer(sought)
            guard
                let keyed = ordered.find({ element in
                    guard case .integer(let stored) = element.pointee.sortKey else {
                        return SortKey.compare(element.pointee.sortKey, soughtKey)
                    }
                    return stored < sought ? -1 : stored == sought ? 0 : 1
                }), keyed.sortKey.storageType == .integer
            else { return nil }
            return keyed.row
        }
        return keyedRow(for: SortKey(key), in: ordered)?.row
    }

    /// The element of `ordered` whose key is `key`, of the same storage class.
    private static func keyedRow(for key: SortKey, in ordered: SortedList<KeyedRow>) -> KeyedRow? {
        guard let keyed = ordered.find({ SortKey.compare($0.pointee.sortKey, key) }),
            keyed.sortKey.storageType == key.storageType
        else { return nil }
        return keyed
    }

    /// Throws when `row` would duplicate the values of a unique index (NULLs never clash,
    /// as in SQLite).
    private func checkUnique(_ row: Row, ignoring key: Value?) throws {
        for index in indexes where index.schema.isUnique {
            if index.columns.contains(where: { row[$0].isNull }) { continue }
            let probe = index.entry(for: row)
            func order(_ entry: UnsafePointer<IndexEntry>) -> Int {
                withUnsafePointer(to: probe) { IndexEntry.compareValues(entry, $0) }
            }
            let start = index.entries.firstPosition { entry in withUnsafePointer(to: entry) { order($0) < 0 } }
            var clash = false
            let ignored = key.map(SortKey.init)
            index.entries.forEach(from: start) { entry in
                guard withUnsafePointer(to: entry, { order($0) == 0 }) else { return false }
                if let ignored, SortKey.compare(entry.sortKey, ignored) == 0 { return true }
                clash = true
                return false
            }
            if clash { throw uniqueViolation(columns: index.schema.columns) }
        }
    }

    static func compareValues(_ a: [Value], _ b: [Value]) -> Int {
        for (x, y) in zip(a, b) {
            let order = SQLiteSemantics.compare(x, y)
            if order != 0 { return order }
        }
        return 0
    }

    /// The error SQLite reports, with its message, so both drivers fail alike.
    func uniqueViolation(columns: [String]) -> SharkError {
        let message = "UNIQUE constraint failed: " + columns.map { "\(schema.name).\($0)" }.joined(separator: ", ")
        return .uniqueConstraint(entity: schema.name, columns: columns, message: message)
    }
}

/// Every table of a memory database. A value type: copying it is the snapshot.
///
/// Tables sit in an array, found by name through a dictionary of positions: an array
/// element can be mutated in place, so a write never copies a table (which would make each
/// of its persistent structures copy itself on the next write).
struct MemoryDatabaseState {
    private(set) var tables: [MemoryTable] = []
    private var positions: [String: Int] = [:]
    /// The tables' names, in their order: a store of a few tables finds one by comparing
    /// names (a word or two each), cheaper than hashing the name (a fifteenth of a lookup).
    private var names: [String] = []

    /// The position of the table named `name`.
    func position(of name: String) -> Int? {
        guard names.count <= 16 else { return positions[name] }
        return names.firstIndex(of: name)
    }

    func table(named name: String) -> MemoryTable? { positions[name].map { tables[$0] } }

    /// The rows of the table at `position`, in key order (an O(1) copy).
    func rows(at position: Int) -> SortedList<KeyedRow> { tables[position].ordered }

    /// Adds or replaces the table named by its schema.
    mutating func set(_ table: MemoryTable) {
        if let position = positions[table.schema.name] {
            tables[position] = table
        } else {
            positions[table.schema.name] = tables.count
            names.append(table.schema.name)
            tables.append(table)
        }
    }

    /// Runs `change` on the table at `position`, in place.
    mutating func modify<T>(at position: Int, _ change: (inout MemoryTable) throws -> T) rethrows -> T {
        try change(&tables[position])
    }
}

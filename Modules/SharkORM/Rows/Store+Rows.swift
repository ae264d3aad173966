/// One row of an entity, read by the entity's recorded schema rather than a model type.
///
/// ```swift
/// for row in try store.fetchRows(of: "Person") {
///     print(row.key, row["name"] ?? .null)
/// }
/// ```
public struct StoredRow: Sendable, Hashable {
    /// The entity the row belongs to.
    public let entity: String
    /// The column names, the key first, in schema order.
    public let columns: [String]
    /// The values, one per column.
    public var values: [Value]

    public init(entity: String, columns: [String], values: [Value]) {
        self.entity = entity
        self.columns = columns
        self.values = values
    }

    /// The row's key.
    public var key: Value { values[0] }

    /// The value of `column`, or nil when the entity has no such column.
    public subscript(column: String) -> Value? {
        columns.firstIndex(of: column).map { values[$0] }
    }
}

/// Rows without model types: what a sync import, the `shark` command line or any tool that
/// works on a database it did not define reads and writes by. Every entity a store has
/// applied is recorded with its schema (columns, storage classes, logical types, key kind);
/// these calls work from that record alone, and the writes go through the same pipeline as
/// model writes (observers see them, events will report them).
extension Store {
    /// The schemas of the entities this store holds, as recorded when they were applied.
    ///
    /// ```swift
    /// for schema in try store.recordedSchemas() { print(schema.name, schema.columns.map(\.name)) }
    /// ```
    public func recordedSchemas() throws -> [EntitySchema] {
        try withReader { try $0.recordedSchemas() }
    }

    /// The recorded schema of `entity`; throws ``SharkError/invalidModel(entity:reason:)``
    /// when the store has none.
    public func recordedSchema(of entity: String) throws -> EntitySchema {
        let folded = EntitySchema.folded(entity)
        guard let schema = try recordedSchemas().first(where: { EntitySchema.folded($0.name) == folded }) else {
            throw SharkError.invalidModel(entity: entity, reason: "this store has recorded no such entity")
        }
        return schema
    }

    /// The schema rows of `entity` are read by: its recorded one, or, for a table or view of
    /// the file SharkORM holds no record of (another program's), the one its engine describes
    /// (see ``unrecordedSchema(of:)``); throws ``SharkError/invalidModel(entity:reason:)`` when
    /// there is neither.
    ///
    /// ```swift
    /// let schema = try store.readableSchema(of: "Person")
    /// print(schema.columns.map(\.name))
    /// ```
    public func readableSchema(of entity: String) throws -> EntitySchema {
        do {
            return try recordedSchema(of: entity)
        } catch SharkError.invalidModel {
            if let schema = try unrecordedSchema(of: entity) { return schema }
            throw SharkError.invalidModel(entity: entity, reason: "this store has no such entity or table")
        }
    }

    /// The schema of a table or view of the file that SharkORM holds no record of, as the
    /// engine describes it: its columns' storage classes from their declared types, no
    /// logical types (values read as stored), and as key the table's primary key (the first
    /// column of a composite one), else SQLite's `rowid`, else, for a view, its first column.
    /// Nil when there is no such table, and always on engines whose every table SharkORM
    /// made (memory).
    ///
    /// ```swift
    /// if let legacy = try store.unrecordedSchema(of: "legacy_orders") {
    ///     print(legacy.columns.map(\.name))
    /// }
    /// ```
    public func unrecordedSchema(of table: String) throws -> EntitySchema? {
        try withReader { try $0.unrecordedSchema(of: table) }
    }

    /// The rows of `entity` that `predicate` matches, in `ordering` (then key) order. A table
    /// SharkORM did not make is read too, by ``readableSchema(of:)``.
    ///
    /// ```swift
    /// let adults = try store.fetchRows(of: "Person", where: .comparison(.greaterOrEqual, .column("age"), .value(18)))
    /// print(adults.map { $0["name"]! })
    /// ```
    public func fetchRows(
        of entity: String, where predicate: QueryExpression? = nil, orderedBy ordering: [Ordering] = [],
        limit: Int? = nil, offset: Int? = nil
    ) throws -> [StoredRow] {
        var (schema, query) = try rowQuery(
            of: entity, where: predicate, orderedBy: ordering, limit: limit, offset: offset)
        // Key order is promised even without an ordering (an engine's cheapest order differs:
        // SQLite's is insertion order, the memory engine's key order), so that two replicas
        // holding the same rows list them alike.
        if query.ordering.isEmpty { query.ordering = [Ordering(.column(schema.key.name))] }
        let names = schema.columns.map(\.name)
        return try fetchRows(query, schema: schema).map { StoredRow(entity: schema.name, columns: names, values: $0) }
    }

    /// How many rows of `entity` `predicate` matches (all of them without one): a count the
    /// engine makes without reading the rows out. A table SharkORM did not make is counted
    /// too, by ``readableSchema(of:)``.
    ///
    /// ```swift
    /// let adults = try store.countRows(of: "Person", where: .comparison(.greaterOrEqual, .column("age"), .value(18)))
    /// ```
    public func countRows(of entity: String, where predicate: QueryExpression? = nil) throws -> Int {
        let (schema, query) = try rowQuery(of: entity, where: predicate)
        return try withReader { try $0.count(query, schema: schema) }
    }

    /// The schema of `entity` (by ``readableSchema(of:)``) and the query that the reads of
    /// rows by name run, once its predicate and orderings are checked; negative limits and
    /// offsets count as 0.
    func rowQuery(
        of entity: String, where predicate: QueryExpression?, orderedBy ordering: [Ordering] = [],
        limit: Int? = nil, offset: Int? = nil
    ) throws -> (schema: EntitySchema, query: EntityQuery) {
        let schema = try readableSchema(of: entity)
        var query = EntityQuery(entity: schema.name)
        if let predicate {
            if let problem = predicate.problem { throw problem }
            query.predicate = predicate
        }
        if let problem = ordering.lazy.compactMap(\.expression.problem).first { throw problem }
        query.ordering = ordering
        query.limit = limit.map { max(0, $0) }
        query.offset = offset.map { max(0, $0) }
        return (schema, query)
    }
}

extension WriteTransaction {
    /// Inserts a row into `entity` from values by column name, and returns its key. Columns
    /// left out get their default (or their storage class's zero); an `Int64` key left out
    /// (or 0) is assigned by the store.
    ///
    /// ```swift
    /// let key = try tx.insertRow(["name": "Ada", "age": 36], into: "Person")
    /// ```
    @discardableResult
    public func insertRow(_ values: [String: Value], into entity: String) throws -> Value {
        try checkUsable()
        let schema = try store.recordedSchemaForWriting(entity)
        var row = schema.columns.map { $0.isNullable ? Value.null : $0.backfillValue }
        try Self.place(values, into: &row, schema: schema)
        let key = row[0]
        let assignsKey = schema.keyKind == .autoIncrement && (key.isNull || key == .integer(0))
        if !assignsKey, key.isNull || key == .text("") {
            throw SharkError.invalidKey(entity: schema.name, reason: "a \(schema.keyKind.rawValue) key must be given")
        }
        guard assignsKey else {
            try insertRows([row], schema: schema)
            return key
        }
        return .integer(try stage.insert(ValueRow(row), key: key, assigningKey: true, schema: schema) ?? 0)
    }

    /// Writes the given columns of the row of `entity` whose key is `key`. Returns false
    /// when there is no such row.
    @discardableResult
    public func updateRow(withKey key: Value, in entity: String, setting values: [String: Value]) throws -> Bool {
        try checkUsable()
        let schema = try store.recordedSchemaForWriting(entity)
        var row = schema.columns.map { _ in Value.null }
        try Self.place(values, into: &row, schema: schema)
        var columns = ColumnSet()
        for name in values.keys {
            guard let index = schema.columnIndex(named: name) else { continue }
            if index == 0 {
                throw SharkError.invalidKey(entity: schema.name, reason: "the key of a stored row cannot change")
            }
            columns.insert(Int32(index))
        }
        return try updateRow(withKey: key, row: row, columns: columns, schema: schema)
    }

    /// Deletes the row of `entity` whose key is `key`. Returns false when there was none.
    @discardableResult
    public func deleteRow(withKey key: Value, from entity: String) throws -> Bool {
        try checkUsable()
        return try deleteRow(withKey: key, schema: try store.recordedSchemaForWriting(entity))
    }

    /// Puts `values` at their columns' positions, refusing unknown columns and values the
    /// column does not take (see ``ColumnSchema/storedValue(_:computed:)``).
    private static func place(_ values: [String: Value], into row: inout [Value], schema: EntitySchema) throws {
        for (name, value) in values {
            guard let index = schema.columnIndex(named: name) else {
                throw SharkError.invalidQuery(.unknownColumn, "\(schema.name) has no column \(name)")
            }
            do {
                row[index] = try schema.columns[index].storedValue(value)
            } catch SharkError.invalidValue(var detail) {
                detail.message = "\(schema.name).\(detail.message)"
                throw SharkError.invalidValue(detail)
            }
        }
    }
}

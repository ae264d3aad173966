/// Rows by key, for code that works from schemas rather than model types and must go fast:
/// sync's capture, import and export handle thousands of rows per transaction. The public
/// row calls (`Store+Rows.swift`) look the recorded schema up on every call; these take it.
extension Store {
    /// The rows of `schema` whose keys are among `keys` (in no particular order), values in
    /// schema order. Read where any read of the calling code reads (the writer inside a write
    /// transaction).
    @_spi(SharkReplication) public func storedRows(of schema: EntitySchema, withKeys keys: some Collection<Value>)
        throws -> [[Value]]
    {
        var rows: [[Value]] = []
        rows.reserveCapacity(keys.count)
        var pending = Array(keys)
        // In slices of the length the driver handles well: the same rows, fewer reads.
        let length = max(1, driver.keysPerRead)
        while !pending.isEmpty {
            let slice = Array(pending.suffix(length))
            pending.removeLast(slice.count)
            var query = EntityQuery(entity: schema.name)
            query.predicate = .isIn(.column(schema.key.name), slice)
            rows += try fetchRows(query, schema: schema)
        }
        return rows
    }

    /// How many rows of `schema` `predicate` matches (all without one), counted by the engine.
    @_spi(SharkReplication) public func countStoredRows(of schema: EntitySchema, where predicate: QueryExpression?)
        throws -> Int
    {
        var query = EntityQuery(entity: schema.name)
        query.predicate = predicate
        return try withReader { try $0.count(query, schema: schema) }
    }

    /// Whether `schema`'s entity holds any row: one read of at most one row.
    @_spi(SharkReplication) public func hasRows(of schema: EntitySchema) throws -> Bool {
        var query = EntityQuery(entity: schema.name)
        query.limit = 1
        return try !fetchRows(query, schema: schema).isEmpty
    }

    /// The rows of `schema` that `predicate` matches, in key order, values in schema order.
    @_spi(SharkReplication) public func storedRows(of schema: EntitySchema, where predicate: QueryExpression) throws
        -> [[Value]]
    {
        var query = EntityQuery(entity: schema.name)
        query.predicate = predicate
        query.ordering = [Ordering(.column(schema.key.name))]
        return try fetchRows(query, schema: schema)
    }

    /// At most `limit` rows of `schema` in key order, from the first key after `key` (from the
    /// first key with nil): what walks a large entity a page at a time, each page found
    /// through the key rather than by counting rows.
    @_spi(SharkReplication) public func storedRows(of schema: EntitySchema, after key: Value?, limit: Int) throws
        -> [[Value]]
    {
        var query = EntityQuery(entity: schema.name)
        query.ordering = [Ordering(.column(schema.key.name))]
        if let key { query.predicate = .comparison(.greater, .column(schema.key.name), .value(key)) }
        query.limit = limit
        return try fetchRows(query, schema: schema)
    }

    /// At most `limit` rows of `schema` that `predicate` matches (all rows without one), in
    /// `ordering` then key order: what walks an index a page at a time, each page found
    /// through the index rather than by counting rows.
    @_spi(SharkReplication) public func storedRows(
        of schema: EntitySchema, where predicate: QueryExpression?, orderedBy ordering: [Ordering], limit: Int
    ) throws -> [[Value]] {
        var query = EntityQuery(entity: schema.name)
        query.predicate = predicate
        let key = schema.key.name
        let ordersByKey = ordering.contains { $0.expression == .column(key) }
        query.ordering = ordersByKey ? ordering : ordering + [Ordering(.column(key))]
        query.limit = limit
        return try fetchRows(query, schema: schema)
    }

    /// Every row of `schema`, values in schema order: in key order, or (`inKeyOrder: false`)
    /// in the order the driver finds them fastest (a table scan, where key order can mean
    /// walking the key's index and fetching each row through it).
    @_spi(SharkReplication) public func storedRows(of schema: EntitySchema, inKeyOrder: Bool = true) throws -> [[Value]]
    {
        var query = EntityQuery(entity: schema.name)
        if inKeyOrder { query.ordering = [Ordering(.column(schema.key.name))] }
        return try fetchRows(query, schema: schema)
    }
}

extension WriteTransaction {
    /// Inserts whole rows (values in schema order, keys included) into `schema`'s entity.
    @_spi(SharkReplication) public func insertRows(_ rows: [[Value]], schema: EntitySchema) throws {
        try checkUsable()
        guard !rows.isEmpty else { return }
        _ = try stage.insert(rows.map(ValueRow.init), assigningKeys: false, schema: schema) { rows[$0][0] }
    }

    /// Writes `columns` of the row whose key is `key`, from `row` (values in schema order;
    /// the others are not read). False when there is no such row.
    @discardableResult
    @_spi(SharkReplication) public func updateRow(
        withKey key: Value, row: [Value], columns: ColumnSet, schema: EntitySchema
    ) throws -> Bool {
        try checkUsable()
        guard !columns.isEmpty else { return true }
        return try stage.update(ValueRow(row), key: key, columns: columns, schema: schema)
    }

    /// Deletes the row whose key is `key`. False when there was none.
    @discardableResult
    @_spi(SharkReplication) public func deleteRow(withKey key: Value, schema: EntitySchema) throws -> Bool {
        try checkUsable()
        return try stage.delete(key: key, schema: schema)
    }
}

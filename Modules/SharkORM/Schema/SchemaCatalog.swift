/// What a store keeps of the schemas recorded in its file: every entity's, by name, and the
/// relationship columns that refer to each entity (what delete rules walk). Loaded once, and
/// again only after a schema change: one this store made (it drops the catalog), or one
/// another process made on the same file, seen through the driver's `schemaGeneration()`
/// at most once per transaction that consults the catalog.
struct SchemaCatalog: Sendable {
    /// The driver's schema generation when the catalog was read.
    let generation: Int64?
    /// The recorded schemas by folded name (entity names are case-insensitive in storage).
    let schemas: [String: EntitySchema]
    /// The relationship columns that refer to each entity, by the entity's name.
    let referrers: [String: [Referrer]]
    /// The outermost transaction in which the generation was last compared: within one
    /// transaction only this store writes the file.
    var checkedInTransaction: UInt64

    init(_ recorded: [EntitySchema], generation: Int64?, checkedInTransaction: UInt64) {
        self.generation = generation
        self.checkedInTransaction = checkedInTransaction
        var schemas: [String: EntitySchema] = [:]
        var referrers: [String: [Referrer]] = [:]
        for schema in recorded {
            schemas[EntitySchema.folded(schema.name)] = schema
            for (position, column) in schema.columns.enumerated() {
                guard let relationship = column.relationship else { continue }
                referrers[relationship.target, default: []].append(Referrer(schema: schema, column: position))
            }
        }
        self.schemas = schemas
        self.referrers = referrers
    }
}

/// A relationship column that refers to an entity, as a delete rule sees it.
struct Referrer: Sendable {
    /// The referring entity, as recorded.
    let schema: EntitySchema
    /// The relationship column's position in it.
    let column: Int

    var rule: DeleteRule { schema.columns[column].relationship?.deleteRule ?? .nullify }
    /// `Employee.department`, for messages.
    var name: String { schema.name + "." + schema.columns[column].name }
}

extension Store {
    /// The catalog of the schemas recorded in this store's file, read on the writer (so a
    /// transaction's own schema changes count), loaded only when missing or out of date.
    func schemaCatalog() throws -> SchemaCatalog {
        try withWriterAccess { try schemaCatalog(writer: $0) }
    }

    /// ``schemaCatalog()`` on the writer, which the caller holds.
    private func schemaCatalog(writer: any DriverConnection) throws -> SchemaCatalog {
        let transaction = transactions.outermostStamp
        if var cached = catalog.withLock({ $0 }) {
            if transaction != 0, cached.checkedInTransaction == transaction { return cached }
            if try writer.schemaGeneration() == cached.generation {
                cached.checkedInTransaction = transaction
                catalog.withLock { $0 = cached }
                return cached
            }
        }
        let generation = try writer.schemaGeneration()
        let loaded = SchemaCatalog(
            try writer.recordedSchemas(), generation: generation, checkedInTransaction: transaction)
        catalog.withLock { $0 = loaded }
        return loaded
    }

    /// Forgets the catalog: this store changed a schema.
    func invalidateSchemaCatalog() {
        catalog.withLock { $0 = nil }
    }

    /// The relationship columns, of every entity this store has recorded, that refer to
    /// `entity` (not only the models this process has used, since rows of others may refer
    /// to the object too), inside `transaction`, whose writer the caller holds. Every removal
    /// asks, so once the catalog was checked in this transaction it is one lookup, with no
    /// copy of the catalog and no search for the open transaction.
    func referrers(of entity: String, in transaction: WriteTransaction) throws -> [Referrer] {
        let stamp = transactions.outermostStamp
        let checked = catalog.withLock { cached -> [Referrer]? in
            guard let cached, stamp != 0, cached.checkedInTransaction == stamp else { return nil }
            // A store without relationships (most removals) skips hashing the name.
            return cached.referrers.isEmpty ? [] : cached.referrers[entity] ?? []
        }
        if let checked { return checked }
        return try schemaCatalog(writer: transaction.writer).referrers[entity] ?? []
    }

    /// The recorded schema of `entity`, as the writer sees it (a transaction's own schema
    /// changes count).
    func recordedSchemaForWriting(_ entity: String) throws -> EntitySchema {
        guard let schema = try schemaCatalog().schemas[EntitySchema.folded(entity)] else {
            throw SharkError.invalidModel(entity: entity, reason: "this store has recorded no such entity")
        }
        return schema
    }
}

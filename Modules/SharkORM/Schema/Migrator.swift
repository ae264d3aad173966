import Foundation

/// Explicit, versioned migrations: the data changes the automatic schema migration cannot
/// guess (splitting a property, filling a new one from others, fixing values), run once per
/// store, in the order they were registered.
///
/// ```swift
/// var migrator = Migrator()
/// migrator.register("v2: split full names") { tx in
///     for person in try Person.query(in: tx.store).fetch() {
///         let parts = person.fullName.split(separator: " ", maxSplits: 1)
///         person.firstName = parts.first.map(String.init) ?? ""
///         person.lastName = parts.count > 1 ? String(parts[1]) : ""
///         try tx.commit(person)
///     }
/// }
/// migrator.register("v3: everyone starts at level 1") { tx in
///     try Person.query(in: tx.store).updateAll(.set(\.level, to: 1))
/// }
/// try migrator.migrate(store)   // runs what this store has not run yet
/// ```
///
/// Each migration runs in a transaction of its own, together with the record that it ran:
/// one that throws leaves nothing behind (neither its changes nor its record), and the call
/// throws its error; the migrations before it stay applied. The record lives in the store, as
/// the entity `_shark_migrations` (an identifier and a date), so every driver keeps it and a
/// file carries it wherever it goes. Migrations a store has applied that this migrator does
/// not know (recorded by a newer version of the app) are left alone.
public struct Migrator {
    /// The entity that records applied migrations.
    public static let recordEntity = "_shark_migrations"

    private var migrations: [(identifier: String, migrate: (WriteTransaction) throws -> Void)] = []

    public init() {}

    /// Adds a migration, to run after those registered before it. Identifiers must be
    /// unique and must never change once shipped: a store remembers migrations by them.
    public mutating func register(_ identifier: String, _ migrate: @escaping (WriteTransaction) throws -> Void) {
        migrations.append((identifier, migrate))
    }

    /// The identifiers of the registered migrations, in order.
    public var identifiers: [String] { migrations.map(\.identifier) }

    /// Runs, in order, every registered migration `store` has not applied yet; returns the
    /// identifiers of those it ran.
    @discardableResult
    public func migrate(_ store: Store) throws -> [String] {
        var seen = Set<String>()
        for identifier in identifiers where !seen.insert(identifier).inserted {
            throw SharkError.invalidQuery(.duplicateMigration, "the migration \"\(identifier)\" is registered twice")
        }
        try store.prepareInternal(Self.recordSchema)
        let applied = Set(try appliedMigrations(in: store))
        var ran: [String] = []
        for (identifier, migrate) in migrations where !applied.contains(identifier) {
            let didRun = try store.write { tx -> Bool in
                // Read again inside the transaction: another process may have run it since.
                var query = EntityQuery(entity: Self.recordEntity)
                query.predicate = .comparison(.equal, .column("id"), .value(.text(identifier)))
                if try !store.fetchRows(query, schema: Self.recordSchema).isEmpty { return false }
                try migrate(tx)
                try tx.insertRow(
                    ["id": .text(identifier), "appliedAt": .real(Date().timeIntervalSinceReferenceDate)],
                    into: Self.recordEntity)
                return true
            }
            if didRun { ran.append(identifier) }
        }
        return ran
    }

    /// The identifiers of the migrations `store` has applied, in the order they ran.
    public func appliedMigrations(in store: Store) throws -> [String] {
        guard try store.recordedSchemas().contains(where: { $0.name == Self.recordEntity }) else { return [] }
        var query = EntityQuery(entity: Self.recordEntity)
        query.ordering = [Ordering(.column("appliedAt"))]
        return try store.fetchRows(query, schema: Self.recordSchema).map { $0[0].coercedToText() }
    }

    /// The record of one applied migration: its identifier (the key) and when it ran.
    static let recordSchema = EntitySchema(
        name: recordEntity, keyKind: .string,
        columns: [
            ColumnSchema(name: "id", type: .text, isNullable: false),
            ColumnSchema(name: "appliedAt", type: .real, isNullable: false, defaultValue: .real(0)),
        ])
}

extension Store {
    /// Applies a schema that belongs to no model type (the core's own bookkeeping, sync's
    /// metadata), as models' schemas are applied: created, or migrated to it.
    @_spi(SharkReplication) public func prepareInternal(_ schema: EntitySchema) throws {
        try withWriterAccess { try $0.apply(schema) }
        invalidateSchemaCatalog()
    }

    /// The rows `query` matches, as values in schema order.
    func fetchRows(_ query: EntityQuery, schema: EntitySchema) throws -> [[Value]] {
        var rows: [[Value]] = []
        try withReader { connection in
            try connection.read(.query(query), schema: schema) { row in
                rows.append((0..<Int32(schema.columns.count)).map { row.value(at: $0) })
            }
        }
        return rows
    }
}

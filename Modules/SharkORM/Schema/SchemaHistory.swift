import Foundation

/// The schemas a store's entities have been migrated away from, kept so that a program with
/// an older model is refused instead of migrating the store back under a newer one.
///
/// Why: several programs open one database — app servers sharing a PostgreSQL database during
/// a rolling deploy, an app and its extension sharing a SQLite file while one of them is
/// updated, an app downgraded on a Mac. The automatic migration makes the storage match the
/// model of whoever opens it, so an older program would drop the columns a newer one added,
/// with their data, while the newer one is still writing them. Core Data and SwiftData refuse
/// a store whose model is not theirs; so does SharkORM, once it knows the model is older.
///
/// How it knows: every migration of an entity records the schema it replaced. A model equal
/// to one of those is an older version of the entity, and preparing it throws
/// ``SharkError/schemaMismatch(entity:reason:)``, unless
///
/// - this store made that migration itself (a store may go back on its own steps: two model
///   classes of one entity in one program alternate, as they always have), or
/// - the store was opened with ``StoreConfiguration/acceptingOlderModels()``: a deliberate
///   rollback, which drops what the newer model added.
///
/// The limits (docs/architecture.md, "An older program on a newer database"): only schemas
/// this database has been migrated away from since it kept the history are known; a newer
/// version whose schema returns exactly to an earlier one is taken for an older one; a
/// program that prepares its model while another migrates the same entity may not see that
/// migration yet.
///
/// The record is the entity `_shark_schema_history`, written as bookkeeping (observers and
/// events never see it) right after the migration, through whichever driver the store uses:
/// every driver keeps it the same way.
enum SchemaHistory {
    static let entity = "_shark_schema_history"

    static let schema = EntitySchema(
        name: entity, keyKind: .autoIncrement,
        columns: [
            ColumnSchema(name: "id", type: .integer, isNullable: false),
            ColumnSchema(name: "entity", type: .text, isNullable: false),
            ColumnSchema(name: "definition", type: .text, isNullable: false),
            ColumnSchema(name: "replacedAt", type: .real, isNullable: false, defaultValue: .real(0)),
        ])

    /// One migration a store made: from the schema the entity had to the one it got.
    struct Migration: Hashable {
        let from: EntitySchema
        let to: EntitySchema
    }

    /// What preparing `model` is about to do to its entity's recorded schema.
    enum Step {
        /// Nothing to record: the entity is new, or already has this schema.
        case noMigration
        /// A migration away from `replaced`, to record unless `recordsReplaced` is false (a
        /// rollback on purpose forgets the schema it leaves, so that a program with it is not
        /// refused when it comes back); `forgotten`: the keys of the history's records of the
        /// model, which is current again.
        case migration(Migration, recordsReplaced: Bool, forgotten: [Value])
    }

    /// Reads, through `writer` (the connection that is about to apply `model`), whether
    /// applying it migrates the entity, and refuses a model the history says is older — unless
    /// it undoes a migration this store made itself (`ownMigrations`), or the store accepts
    /// older models.
    static func step(
        applying model: EntitySchema, through writer: any DriverConnection, ownMigrations: Set<Migration>,
        acceptingOlderModels: Bool
    ) throws -> Step {
        let recorded = try writer.recordedSchemas()
        // The exact name: on PostgreSQL, names differing in case are different tables.
        guard let current = recorded.first(where: { $0.name == model.name }), current != model else {
            return .noMigration
        }
        let migration = Migration(from: current, to: model)
        guard recorded.contains(where: { $0.name == entity }) else {
            return .migration(migration, recordsReplaced: true, forgotten: [])
        }
        let replaced = try replacedSchemas(of: current.name, through: writer)
        let modelRecords = replaced.filter { $0.schema == model }.map(\.key)
        let isOlder = !modelRecords.isEmpty
        let undoesOwn = ownMigrations.contains(Migration(from: model, to: current))
        if isOlder, !undoesOwn, !acceptingOlderModels {
            throw SharkError.schemaMismatch(
                entity: model.name,
                reason: "this program's model of \(model.name) is older than the database's: the database was "
                    + "migrated away from this very schema, so migrating back would drop what the newer model added "
                    + "(with its data) while a program with it may still be running. Update this program, or open "
                    + "the store with .acceptingOlderModels() to go back on purpose")
        }
        let isRollback = isOlder && !undoesOwn
        return .migration(
            migration, recordsReplaced: !isRollback && !replaced.contains { $0.schema == current },
            forgotten: modelRecords)
    }

    /// The schemas `entity` has been migrated away from, oldest first, with their records'
    /// keys. A record that no longer decodes (written by another version of SharkORM) is
    /// passed over.
    static func replacedSchemas(of entityName: String, through connection: any DriverConnection) throws
        -> [(key: Value, schema: EntitySchema)]
    {
        var query = EntityQuery(entity: entity)
        query.predicate = .comparison(.equal, .column("entity"), .value(.text(entityName)))
        query.ordering = [Ordering(.column("id"))]
        var definitions: [(key: Value, schema: EntitySchema)] = []
        try connection.read(.query(query), schema: schema) { row in
            guard case .text(let json) = row.value(at: 2),
                let decoded = try? JSONDecoder().decode(EntitySchema.self, from: Data(json.utf8))
            else { return }
            definitions.append((row.value(at: 0), decoded))
        }
        return definitions
    }

    /// Records `step`'s migration in `tx`, as bookkeeping: the schema it replaced, unless
    /// the step says not to, and the model's own records gone when it is current again.
    static func record(_ step: Step, in tx: WriteTransaction) throws {
        guard case .migration(let migration, let recordsReplaced, let forgotten) = step,
            recordsReplaced || !forgotten.isEmpty
        else { return }
        try tx.store.prepareInternal(schema)
        _ = try tx.writingBookkeeping {
            for key in forgotten { try tx.deleteRow(withKey: key, from: entity) }
            if recordsReplaced {
                try tx.insertRow(
                    [
                        "entity": .text(migration.from.name), "definition": .text(try definition(of: migration.from)),
                        "replacedAt": .real(Date().timeIntervalSinceReferenceDate),
                    ], into: entity)
            }
        }
    }

    /// A schema as the history stores it: JSON with sorted keys, the same text every time.
    private static func definition(of schema: EntitySchema) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return String(decoding: try encoder.encode(schema), as: UTF8.self)
    }
}

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
/// The limit: only schemas this database has been migrated away from are known. A model
/// older than the first one the database recorded looks like a newer one, and a program that
/// prepares its model while another migrates the same entity may not see that migration yet.
///
/// The record is the entity `_shark_schema_history`, written as bookkeeping (observers and
/// events never see it) right after the migration commits, through whichever driver the
/// store uses: every driver keeps it the same way.
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

    /// What preparing `model` is about to do to its entity's recorded schema.
    enum Step {
        /// Nothing to record: the entity is new, or already has this schema.
        case noMigration
        /// A migration away from `replaced`; `isRecorded` when the history already holds it.
        case migration(replaced: EntitySchema, isRecorded: Bool)
    }

    /// Reads, through `writer` (the connection that is about to apply `model`), whether
    /// applying it migrates the entity, and refuses a model the history says is older — one
    /// `ownSteps` (the schemas this store migrated away from itself) does not excuse.
    static func step(
        applying model: EntitySchema, through writer: any DriverConnection, ownSteps: Set<EntitySchema>,
        acceptingOlderModels: Bool
    ) throws -> Step {
        let recorded = try writer.recordedSchemas()
        let folded = EntitySchema.folded(model.name)
        guard let current = recorded.first(where: { EntitySchema.folded($0.name) == folded }), current != model
        else { return .noMigration }
        guard recorded.contains(where: { $0.name == entity }) else {
            return .migration(replaced: current, isRecorded: false)
        }
        let replaced = try replacedSchemas(of: current.name, through: writer)
        if replaced.contains(model), !ownSteps.contains(model), !acceptingOlderModels {
            throw SharkError.schemaMismatch(
                entity: model.name,
                reason: "this program's model of \(model.name) is older than the database's: the database was "
                    + "migrated away from this very schema, so migrating back would drop what the newer model added "
                    + "(with its data) while a program with it may still be running. Update this program, or open "
                    + "the store with .acceptingOlderModels() to go back on purpose")
        }
        return .migration(replaced: current, isRecorded: replaced.contains(current))
    }

    /// The schemas `entity` has been migrated away from, oldest first. A record that no
    /// longer decodes (written by another version of SharkORM) is passed over.
    static func replacedSchemas(of entityName: String, through connection: any DriverConnection) throws
        -> [EntitySchema]
    {
        var query = EntityQuery(entity: entity)
        query.predicate = .comparison(.equal, .column("entity"), .value(.text(entityName)))
        query.ordering = [Ordering(.column("id"))]
        var definitions: [EntitySchema] = []
        try connection.read(.query(query), schema: schema) { row in
            guard case .text(let json) = row.value(at: 2),
                let decoded = try? JSONDecoder().decode(EntitySchema.self, from: Data(json.utf8))
            else { return }
            definitions.append(decoded)
        }
        return definitions
    }

    /// Records that the entity was migrated away from `replaced`, in `tx`, as bookkeeping.
    static func record(_ replaced: EntitySchema, in tx: WriteTransaction) throws {
        try tx.store.prepareInternal(schema)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let definition = String(decoding: try encoder.encode(replaced), as: UTF8.self)
        _ = try tx.writingBookkeeping {
            try tx.insertRow(
                [
                    "entity": .text(replaced.name), "definition": .text(definition),
                    "replacedAt": .real(Date().timeIntervalSinceReferenceDate),
                ], into: entity)
        }
    }
}

import Foundation
import PostgresNIO
@_spi(SharkDriver) import SharkORM

/// Brings an entity's table and indexes in line with its model schema, in one transaction
/// (PostgreSQL's DDL is transactional: a refused or failed change leaves nothing behind), with
/// the same rules as the other drivers' migrations:
///
/// - a missing table is created with its indexes;
/// - new columns are added, back-filled with the property's initial value (or the zero of
///   its storage class); removed ones are dropped; renamed ones (`@Renamed(from:)`) renamed;
/// - a column whose PostgreSQL type changes, or that becomes non-optional, and a changed key,
///   are rebuilt: the rows are copied into a table of the new shape, each value converted by
///   the rule every driver shares (`StorageType.keeps(_:whenRetypedTo:)`), refused with
///   `lossySchemaChange` when one would change;
/// - a narrowed integer type (`Int` to `Int8`) is refused while a stored value is outside it.
///
/// Migrations of several processes at once are serialized by an advisory lock held until
/// the transaction ends; the applied schema is recorded as JSON in `_shark_schema`.
struct PostgresSchemaMigrator {
    static let recordTable = "_shark_schema"

    let session: PostgresSession

    static func quoted(_ name: String) -> String { PostgresQueryCompiler.identifier(name) }

    /// The schemas recorded so far.
    func recordedSchemas() async throws -> [EntitySchema] {
        guard try await tableExists(Self.recordTable) else { return [] }
        let rows = try await session.rows("SELECT definition FROM \(Self.quoted(Self.recordTable)) ORDER BY entity")
        return try rows.map { row in try Self.decode(try PostgresValues.value(of: row.first!)) }
    }

    /// The recorded schema of `entity`, if any.
    func recordedSchema(of entity: String) async throws -> EntitySchema? {
        guard try await tableExists(Self.recordTable) else { return nil }
        let rows = try await session.rows(
            "SELECT definition FROM \(Self.quoted(Self.recordTable)) WHERE entity = $1",
            [WireValue(payload: .text(entity))])
        guard let cell = rows.first?.first else { return nil }
        return try Self.decode(try PostgresValues.value(of: cell))
    }

    private static func decode(_ value: Value) throws -> EntitySchema {
        guard case .text(let json) = value else {
            throw SharkError.corrupt(path: "PostgreSQL", reason: "a schema record is not text")
        }
        do {
            return try JSONDecoder().decode(EntitySchema.self, from: Data(json.utf8))
        } catch {
            throw SharkError.corrupt(path: "PostgreSQL", reason: "a schema record does not decode: \(error)")
        }
    }

    func tableExists(_ name: String) async throws -> Bool {
        let rows = try await session.rows(
            "SELECT 1 FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace "
                + "WHERE n.nspname = current_schema() AND c.relname = $1 AND c.relkind IN ('r', 'p', 'v')",
            [WireValue(payload: .text(name))])
        return !rows.isEmpty
    }

    /// Applies `schema`; the caller runs it inside a transaction or savepoint. Returns
    /// whether anything was written.
    func apply(_ schema: EntitySchema) async throws -> Bool {
        // Cheap when nothing changed: no lock unless the record differs.
        if try await recordedSchema(of: schema.name) == schema { return false }
        try await session.execute("SELECT pg_advisory_xact_lock(hashtext(current_schema() || '.shark_schema'))")
        try await session.execute(
            "CREATE TABLE IF NOT EXISTS \(Self.quoted(Self.recordTable)) (entity text COLLATE \"C\" PRIMARY KEY, "
                + "definition text NOT NULL, applied_at double precision NOT NULL)")
        // Read again under the lock: another process may have just migrated it.
        let recorded = try await recordedSchema(of: schema.name)
        if recorded == schema { return false }
        if let recorded {
            try await migrate(from: recorded, to: schema)
        } else if try await tableExists(schema.name) {
            throw SharkError.schemaMismatch(
                entity: schema.name,
                reason: "the table exists but SharkORM has no record of it: adopting tables other programs made "
                    + "is not supported on PostgreSQL yet")
        } else {
            try await session.execute(Self.createTable(schema, named: schema.name))
        }
        try await reconcileIndexes(of: schema, recorded: recorded)
        try await record(schema)
        return true
    }

    static func createTable(_ schema: EntitySchema, named name: String) -> String {
        let columns = schema.columns.enumerated().map { position, column in
            definition(of: column, isKey: position == 0, keyKind: schema.keyKind)
        }
        return "CREATE TABLE \(quoted(name)) (\(columns.joined(separator: ", ")))"
    }

    static func definition(of column: ColumnSchema, isKey: Bool, keyKind: KeyKind) -> String {
        let name = quoted(column.name)
        if isKey {
            switch keyKind {
            case .autoIncrement: return "\(name) bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY"
            case .uuid: return "\(name) uuid PRIMARY KEY"
            case .string: return "\(name) text COLLATE \"C\" PRIMARY KEY"
            }
        }
        var sql = "\(name) \(PostgresType(column).declaration)"
        // A NaN is stored as NULL (docs/values.md), so real columns stay nullable.
        if !column.isNullable && column.type != .real { sql += " NOT NULL" }
        return sql
    }

    // MARK: Migration

    private func migrate(from old: EntitySchema, to new: EntitySchema) async throws {
        let origins = new.sources(in: old)
        try await checkRanges(from: old, to: new, origins: origins)
        let keyChanged =
            old.key.name != new.key.name || old.keyKind != new.keyKind || origins.first.flatMap({ $0 }) != 0
        let needsRebuild =
            keyChanged
            || new.columns.indices.contains { position in
                guard let origin = origins[position] else { return false }
                let previous = old.columns[origin]
                let column = new.columns[position]
                return PostgresType(previous) != PostgresType(column) || previous.type != column.type
                    || (previous.isNullable && !column.isNullable && column.type != .real)
            }
        if needsRebuild { return try await rebuild(from: old, to: new, origins: origins) }
        let table = Self.quoted(new.name)
        let kept = Set(origins.compactMap { $0 })
        for (position, column) in old.columns.enumerated() where !kept.contains(position) {
            try await session.execute("ALTER TABLE \(table) DROP COLUMN \(Self.quoted(column.name))")
        }
        for (position, column) in new.columns.enumerated() {
            if let origin = origins[position] {
                let previous = old.columns[origin].name
                if previous != column.name {
                    try await session.execute(
                        "ALTER TABLE \(table) RENAME COLUMN \(Self.quoted(previous)) TO \(Self.quoted(column.name))")
                }
                continue
            }
            // Added nullable, filled, then made NOT NULL: the rows there already get the
            // back-fill value, with no default left behind on the column.
            let name = Self.quoted(column.name)
            try await session.execute("ALTER TABLE \(table) ADD COLUMN \(name) \(PostgresType(column).declaration)")
            let fill = column.isNullable ? (column.defaultValue ?? .null) : column.backfillValue
            if let wire = try PostgresValues.wire(fill, as: PostgresType(column), column: column.name) {
                try await session.execute("UPDATE \(table) SET \(name) = $1", [wire])
            }
            if !column.isNullable && column.type != .real {
                try await session.execute("ALTER TABLE \(table) ALTER COLUMN \(name) SET NOT NULL")
            }
        }
    }

    /// Refuses a narrower integer type while a stored value is outside it.
    private func checkRanges(from old: EntitySchema, to new: EntitySchema, origins: [Int?]) async throws {
        for (position, column) in new.columns.enumerated() {
            guard let range = column.integerRange, let origin = origins[position],
                old.columns[origin].integerRange != range, PostgresType(old.columns[origin]) == .bigint
            else { continue }
            let name = Self.quoted(old.columns[origin].name)
            let rows = try await session.rows(
                "SELECT count(*) FROM \(Self.quoted(new.name)) WHERE \(name) < $1 OR \(name) > $2",
                [WireValue(payload: .bigint(range.lowerBound)), WireValue(payload: .bigint(range.upperBound))])
            let outside = try rows.first.map { try PostgresValues.value(of: $0.first!) }?.coercedToInt64() ?? 0
            if outside > 0 {
                throw SharkError.lossySchemaChange(
                    entity: new.name, column: column.name,
                    reason: "\(outside) stored value(s) are outside \(range), the range of its type")
            }
        }
    }

    /// Copies every row into a table of the new shape, converting values as every driver
    /// does, then puts it in the old one's place.
    private func rebuild(from old: EntitySchema, to new: EntitySchema, origins: [Int?]) async throws {
        let temporary = "_shark_rebuild_" + new.name
        try await session.execute("DROP TABLE IF EXISTS \(Self.quoted(temporary))")
        try await session.execute(Self.createTable(new, named: temporary))
        let rows = try await session.rows(
            "SELECT \(PostgresQueryCompiler.columnList(old)) FROM \(Self.quoted(old.name)) "
                + "ORDER BY \(Self.quoted(old.key.name))")
        var changed: [String: Int] = [:]
        var batch: [[Value]] = []
        let columnNames = new.columns.map { Self.quoted($0.name) }.joined(separator: ", ")
        func flush() async throws {
            guard !batch.isEmpty else { return }
            var statement = PostgresStatement("")
            var tuples: [String] = []
            for row in batch {
                var parameters: [String] = []
                for (position, value) in row.enumerated() {
                    let column = new.columns[position]
                    if let wire = try PostgresValues.wire(value, as: PostgresType(column), column: column.name) {
                        statement.bindings.append(wire)
                        parameters.append("$\(statement.bindings.count)")
                    } else {
                        parameters.append("NULL::" + PostgresType(column).castName)
                    }
                }
                tuples.append("(" + parameters.joined(separator: ", ") + ")")
            }
            statement.sql =
                "INSERT INTO \(Self.quoted(temporary)) (\(columnNames)) OVERRIDING SYSTEM VALUE VALUES "
                + tuples.joined(separator: ", ")
            _ = try await session.rows(statement)
            batch.removeAll(keepingCapacity: true)
        }
        for row in rows {
            let stored = try old.columns.indices.map { position in
                try PostgresValues.value(
                    of: row[row.index(row.startIndex, offsetBy: position)],
                    logicalType: old.columns[position].logicalType)
            }
            var converted: [Value] = []
            for (position, column) in new.columns.enumerated() {
                guard let origin = origins[position] else {
                    converted.append(column.isNullable ? (column.defaultValue ?? .null) : column.backfillValue)
                    continue
                }
                let previous = old.columns[origin]
                var value = stored[origin]
                if previous.type != column.type {
                    if !previous.type.keeps(value, whenRetypedTo: column.type) { changed[column.name, default: 0] += 1 }
                    value = Self.cast(value, to: column.type)
                }
                if value.isNull && !column.isNullable && column.type != .real {
                    if position == 0 {
                        throw SharkError.schemaMismatch(entity: new.name, reason: "the key column held NULLs")
                    }
                    value = column.backfillValue
                }
                if column.logicalType == .sortableDecimal, case .text(let text) = value,
                    DecimalText.decode(text) == nil
                {
                    changed[column.name, default: 0] += 1
                }
                converted.append(value)
            }
            batch.append(converted)
            if batch.count * new.columns.count >= 10_000 { try await flush() }
        }
        if let (column, count) = changed.min(by: { $0.key < $1.key }) {
            throw SharkError.lossySchemaChange(
                entity: new.name, column: column,
                reason: "\(count) stored value(s) cannot be converted to the column's new type unchanged")
        }
        try await flush()
        try await session.execute("DROP TABLE \(Self.quoted(old.name))")
        try await session.execute("ALTER TABLE \(Self.quoted(temporary)) RENAME TO \(Self.quoted(new.name))")
        if new.keyKind == .autoIncrement {
            try await session.execute(
                "SELECT setval(pg_get_serial_sequence($1, $2), GREATEST(1, (SELECT COALESCE(max(\(Self.quoted(new.key.name))), 0) FROM \(Self.quoted(new.name)))))",
                [WireValue(payload: .text(Self.quoted(new.name))), WireValue(payload: .text(new.key.name))])
        }
    }

    /// SQLite's CAST, for the conversions `keeps(_:whenRetypedTo:)` allows.
    static func cast(_ value: Value, to type: StorageType) -> Value {
        if value.isNull { return .null }
        switch type {
        case .integer: return .integer(value.coercedToInt64())
        case .real: return .real(value.coercedToDouble())
        case .text: return .text(value.coercedToText())
        case .blob: return .blob(value.coercedToBlob())
        }
    }

    // MARK: Indexes and the record

    private func reconcileIndexes(of schema: EntitySchema, recorded: EntitySchema?) async throws {
        let table = Self.quoted(schema.name)
        let wanted = Set(schema.indexes.map(\.name))
        for index in recorded?.indexes ?? [] where !wanted.contains(index.name) {
            try await session.execute("DROP INDEX IF EXISTS \(Self.quoted(index.name))")
        }
        for index in schema.indexes {
            let columns = index.columns.map { Self.quoted($0) }.joined(separator: ", ")
            try await session.execute(
                "CREATE \(index.isUnique ? "UNIQUE " : "")INDEX IF NOT EXISTS \(Self.quoted(index.name)) "
                    + "ON \(table) (\(columns))")
        }
    }

    private func record(_ schema: EntitySchema) async throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let json = String(decoding: try encoder.encode(schema), as: UTF8.self)
        try await session.execute(
            "INSERT INTO \(Self.quoted(Self.recordTable)) (entity, definition, applied_at) VALUES ($1, $2, $3) "
                + "ON CONFLICT (entity) DO UPDATE SET definition = excluded.definition, applied_at = excluded.applied_at",
            [
                WireValue(payload: .text(schema.name)), WireValue(payload: .text(json)),
                WireValue(payload: .double(Date().timeIntervalSinceReferenceDate)),
            ])
    }
}

import Foundation
@_spi(SharkDriver) import SharkORM

/// Brings an entity's table and indexes in line with its model schema, keeping the data.
///
/// - A missing table is created with its indexes.
/// - New columns are added, back-filled with the property's initial value (or the zero of the
///   storage class when the property has none).
/// - Removed columns are dropped (`DROP COLUMN` where the SQLite version has it); retyped
///   columns, and columns that became non-optional, are handled by rebuilding the table with
///   its rows. Lossless conversions are kept (an integer to text, a whole real to integer…);
///   a conversion that would change a stored value is refused with
///   ``SharkError/lossySchemaChange(entity:column:reason:)``, and nothing is changed.
/// - Indexes are created and dropped to match the declaration.
///
/// The applied schema is recorded as JSON in the `_shark_schema` table; comparing with that
/// record (rather than with SQLite's declared types) is what makes retyping detectable.
struct SchemaMigrator {
    static let metadataTable = "_shark_schema"

    let connection: SQLiteConnection

    /// What applying a schema came to.
    enum Outcome {
        /// The file already held the schema as recorded: nothing was written.
        case unchanged
        /// Tables, indexes or the record were written.
        case changed
        /// A table SharkORM has no record of reads through the model as it is; nothing was
        /// written. A writable store adopts it (records it, adds its indexes) at its first
        /// write; a read-only store never does.
        case readableAsIs
    }

    /// Applies `schema`, or finds that the file reads through it as it is.
    ///
    /// - Parameters:
    ///   - adoptsLater: a table SharkORM did not create, whose data the model reads as it is,
    ///     is left untouched (`readableAsIs`) rather than adopted now: opening someone else's
    ///     database and reading it changes nothing in it. A read-only connection always
    ///     reads such tables as they are.
    func apply(_ schema: EntitySchema, adoptsLater: Bool = false) throws -> Outcome {
        let hasRecords = try tableExists(Self.metadataTable)
        let recorded = hasRecords ? try recordedSchema(of: schema.name) : nil
        if recorded == schema { return .unchanged }
        let isReadOnly = try connection.scalar("PRAGMA query_only")?.coercedToInt64() == 1
        // A record that differs only in what it says of the values (integer widths, recorded
        // since) needs nothing of the table: a read-only store reads it as it is.
        if let recorded, recorded.differsOnlyInDescription(from: schema), isReadOnly { return .unchanged }
        if recorded == nil, isReadOnly || adoptsLater, try tableExists(schema.name) {
            let existing = try introspectedSchema(of: schema.name)
            try checkRanges(from: existing, to: schema)
            let missing = try checkAdoptable(existing, as: schema, forWriting: !isReadOnly)
            // Decimals another program wrote are plain text, which compares and orders as
            // text: a writable store rewrites them in the sortable form on first use, the
            // one change it makes before the app writes; a read-only store reads them as
            // they are (docs/architecture.md, "Someone else's database").
            if try missing.isEmpty && (isReadOnly || !holdsDecimals(existing, as: schema)) { return .readableAsIs }
            if isReadOnly {
                throw SharkError.schemaMismatch(
                    entity: schema.name,
                    reason: "the table has no column \(missing[0].name), which the model reads; a read-only store "
                        + "reads tables as they are (open it writable to add the column)")
            }
        }
        // One savepoint around the whole change, the record's table included: a refusal or
        // failure leaves the file as it was, whether or not a transaction is already open.
        try connection.execute("SAVEPOINT shark_migration")
        do {
            if !hasRecords {
                try connection.execute(
                    """
                    CREATE TABLE \(Self.metadataTable) (\
                    entity TEXT PRIMARY KEY NOT NULL, definition TEXT NOT NULL, applied_at REAL NOT NULL)
                    """)
            }
            if try tableExists(schema.name) {
                if let recorded {
                    try checkRanges(from: recorded, to: schema)
                    try migrateTable(from: recorded, to: schema)
                    try convertDecimals(from: recorded, to: schema)
                } else {
                    // A table SharkORM did not create (another program's, or the sqlite3
                    // shell's): adopt it as it is when its data fits the model.
                    let existing = try introspectedSchema(of: schema.name)
                    try checkRanges(from: existing, to: schema)
                    try adopt(existing, as: schema)
                    try convertDecimals(from: existing, to: schema)
                }
            } else {
                try connection.execute(createTable(schema, named: schema.name))
            }
            try reconcileIndexes(of: schema)
            try record(schema)
            try connection.execute("RELEASE shark_migration")
        } catch {
            try? connection.execute("ROLLBACK TO shark_migration")
            try? connection.execute("RELEASE shark_migration")
            throw error
        }
        connection.clearStatementCache()
        return .changed
    }

    // MARK: Tables

    private func migrateTable(from old: EntitySchema, to new: EntitySchema) throws {
        let oldColumns = Dictionary(old.columns.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        let newNames = Set(new.columns.map(\.name))
        let removed = old.columns.filter { !newNames.contains($0.name) }
        let changed = new.columns.filter { column in
            guard let previous = oldColumns[column.name] else { return false }
            return previous.type != column.type || (previous.isNullable && !column.isNullable)
        }
        let keyChanged = old.key.name != new.key.name || old.keyKind != new.keyKind
        let added = new.columns.filter { oldColumns[$0.name] == nil }
        // A renamed column (`@Renamed(from:)`) keeps its values: the table is rebuilt with the
        // old column copied into the new one, on every SQLite version.
        let sources = new.sources(in: old)
        let renamed = new.columns.indices.contains { position in
            sources[position].map { old.columns[$0].name != new.columns[position].name } ?? false
        }
        if renamed { return try rebuild(from: old, to: new) }

        let canDrop =
            connection.library.features.hasDropColumn && !keyChanged && changed.isEmpty
            && removed.allSatisfy { column in !old.indexes.contains { $0.columns.contains(column.name) } }
        if changed.isEmpty && !keyChanged && (removed.isEmpty || canDrop) {
            let table = SQLText.identifier(new.name)
            for column in removed {
                try connection.execute("ALTER TABLE \(table) DROP COLUMN \(SQLText.identifier(column.name))")
            }
            for column in added {
                try connection.execute("ALTER TABLE \(table) ADD COLUMN \(definition(of: column, isKey: false))")
            }
            return
        }
        try rebuild(from: old, to: new)
    }

    /// Rewrites, in their sortable form (``DecimalText``), the decimal columns whose stored
    /// text is plain: those of stores written before it, and of adopted tables.
    private func convertDecimals(from old: EntitySchema, to new: EntitySchema) throws {
        let sources = new.sources(in: old)
        let table = SQLText.identifier(new.name)
        let key = SQLText.identifier(new.key.name)
        for (position, column) in new.columns.enumerated() where column.logicalType == .sortableDecimal {
            guard let source = sources[position], old.columns[source].logicalType != .sortableDecimal else { continue }
            let name = SQLText.identifier(column.name)
            var rows: [(Value, Value)] = []
            try connection.prepareSingleStatement("SELECT \(key), \(name) FROM \(table) WHERE \(name) IS NOT NULL")
                .run([]) { row in rows.append((row.value(at: 0), row.value(at: 1))) }
            let update = try connection.prepareSingleStatement("UPDATE \(table) SET \(name) = ? WHERE \(key) = ?")
            for (rowKey, value) in rows {
                // Text that is no number stays as it is: reading it fails as it did before.
                guard let decimal = try? Decimal(columnValue: value), !decimal.isNaN else { continue }
                _ = try update.run([.text(DecimalText.encode(decimal)), rowKey])
            }
        }
    }

    /// Whether a column the model reads as a Decimal holds any value in a table SharkORM did
    /// not write.
    private func holdsDecimals(_ existing: EntitySchema, as schema: EntitySchema) throws -> Bool {
        let table = SQLText.identifier(schema.name)
        for column in schema.columns where column.logicalType == .sortableDecimal {
            guard existing.columnIndex(named: column.name) != nil else { continue }
            let name = SQLText.identifier(column.name)
            if try connection.scalar("SELECT 1 FROM \(table) WHERE \(name) IS NOT NULL LIMIT 1") != nil { return true }
        }
        return false
    }

    /// Refuses a column whose stored integers its property's type cannot hold (an `Int`
    /// property now an `Int8`, an adopted column of large numbers): every row would fail to
    /// read.
    private func checkRanges(from old: EntitySchema, to new: EntitySchema) throws {
        let sources = new.sources(in: old)
        let table = SQLText.identifier(new.name)
        for (position, column) in new.columns.enumerated() {
            guard let range = column.integerRange, let source = sources[position],
                old.columns[source].integerRange != range
            else { continue }
            let name = SQLText.identifier(old.columns[source].name)
            let outside =
                try connection.scalar(
                    "SELECT count(*) FROM \(table) WHERE typeof(\(name)) = 'integer' AND (\(name) < ? OR \(name) > ?)",
                    [.integer(range.lowerBound), .integer(range.upperBound)])?.coercedToInt64() ?? 0
            if outside > 0 {
                throw SharkError.lossySchemaChange(
                    entity: new.name, column: column.name,
                    reason: "\(outside) stored value(s) are outside \(range), the range of its type")
            }
        }
    }

    /// Copies the rows into a table of the new shape, converting retyped columns, then swaps
    /// the tables.
    private func rebuild(from old: EntitySchema, to new: EntitySchema) throws {
        let table = SQLText.identifier(new.name)
        var targets: [String] = []
        var sources: [String] = []
        let origins = new.sources(in: old)
        for (position, column) in new.columns.enumerated() {
            guard let origin = origins[position] else { continue }
            let previous = old.columns[origin]
            let name = SQLText.identifier(column.name)
            var source = SQLText.identifier(previous.name)
            if previous.type != column.type {
                try checkConversion(of: previous, to: column, entity: new.name)
                source = "CAST(\(source) AS \(castType(column.type)))"
            }
            if previous.isNullable && !column.isNullable {
                if position == 0 {
                    throw SharkError.schemaMismatch(entity: new.name, reason: "the key column held NULLs")
                }
                source = "COALESCE(\(source), \(SQLText.literal(column.backfillValue)))"
            }
            targets.append(name)
            sources.append(source)
        }
        let temporary = "_shark_rebuild_" + new.name
        try connection.execute("DROP TABLE IF EXISTS \(SQLText.identifier(temporary))")
        try connection.execute(createTable(new, named: temporary))
        if !targets.isEmpty {
            try connection.execute(
                "INSERT INTO \(SQLText.identifier(temporary)) (\(targets.joined(separator: ", "))) "
                    + "SELECT \(sources.joined(separator: ", ")) FROM \(table)")
        }
        try connection.execute("DROP TABLE \(table)")
        try connection.execute("ALTER TABLE \(SQLText.identifier(temporary)) RENAME TO \(table)")
    }

    /// Refuses a retyping that would change any stored value, by the rule every driver shares
    /// (``StorageType/keeps(_:whenRetypedTo:)``), applied to the stored values themselves.
    private func checkConversion(of old: ColumnSchema, to new: ColumnSchema, entity: String) throws {
        let column = SQLText.identifier(old.name)
        let table = SQLText.identifier(entity)
        var changed = 0
        try connection.withStatement("SELECT \(column) FROM \(table) WHERE \(column) IS NOT NULL") { statement in
            try statement.run([]) { row in
                if !old.type.keeps(row.value(at: 0), whenRetypedTo: new.type) { changed += 1 }
            }
        }
        if changed > 0 {
            throw SharkError.lossySchemaChange(
                entity: entity, column: old.name,
                reason:
                    "\(changed) stored value(s) cannot be converted from \(old.type.rawValue) to \(new.type.rawValue) unchanged"
            )
        }
    }

    private func castType(_ type: StorageType) -> String {
        switch type {
        case .integer: return "INTEGER"
        case .real: return "REAL"
        case .text: return "TEXT"
        case .blob: return "BLOB"
        }
    }

    func createTable(_ schema: EntitySchema, named name: String) -> String {
        let columns = schema.columns.enumerated().map { definition(of: $1, isKey: $0 == 0, keyKind: schema.keyKind) }
        let clustered = schema.isClusteredByKey == true && schema.keyKind != .autoIncrement
        return "CREATE TABLE \(SQLText.identifier(name)) (\(columns.joined(separator: ", ")))"
            + (clustered ? " WITHOUT ROWID" : "")
    }

    private func definition(of column: ColumnSchema, isKey: Bool, keyKind: KeyKind = .autoIncrement) -> String {
        let name = SQLText.identifier(column.name)
        if isKey {
            switch keyKind {
            case .autoIncrement: return "\(name) INTEGER PRIMARY KEY"
            case .uuid: return "\(name) BLOB PRIMARY KEY NOT NULL"
            case .string: return "\(name) TEXT PRIMARY KEY NOT NULL"
            }
        }
        var sql = "\(name) \(declaredType(column.type))"
        if !column.isNullable {
            // A NaN is stored as NULL (SQLite binds it so), so real columns stay nullable.
            sql += column.type == .real ? "" : " NOT NULL"
            sql += " DEFAULT \(SQLText.literal(column.backfillValue))"
        } else if let value = column.defaultValue, !value.isNull {
            sql += " DEFAULT \(SQLText.literal(value))"
        }
        return sql
    }

    /// The declared type that gives each storage class the affinity it needs.
    ///
    /// Reals are declared with no type (BLOB affinity): a REAL-affinity column stores whole
    /// reals as integers and loses the sign of -0.0, which must round-trip.
    private func declaredType(_ type: StorageType) -> String {
        switch type {
        case .integer: return "INTEGER"
        case .real: return ""
        case .text: return "TEXT"
        case .blob: return "BLOB"
        }
    }

    // MARK: Adopting tables made elsewhere

    /// Takes over a table SharkORM has no record of, without rewriting it: its key must be the
    /// model's, every column the model shares with it must already hold values the model can
    /// read back unchanged, and columns only the table has must not stop the model's inserts.
    /// Missing columns are added. Anything else is refused with an error naming the column
    /// and what its rows actually hold.
    private func adopt(_ existing: EntitySchema, as schema: EntitySchema) throws {
        let table = SQLText.identifier(schema.name)
        for column in try checkAdoptable(existing, as: schema, forWriting: true) {
            try connection.execute("ALTER TABLE \(table) ADD COLUMN \(definition(of: column, isKey: false))")
        }
    }

    /// Checks, without writing, that the model can take over `existing`: the same key, and
    /// every column they share holding values the model reads back unchanged; for writing,
    /// also that the table's other columns do not stop the model's inserts. Returns the
    /// model's columns the table lacks.
    private func checkAdoptable(_ existing: EntitySchema, as schema: EntitySchema, forWriting: Bool) throws
        -> [ColumnSchema]
    {
        guard EntitySchema.folded(existing.key.name) == EntitySchema.folded(schema.key.name) else {
            throw SharkError.schemaMismatch(
                entity: schema.name,
                reason: "the table's primary key is \(existing.key.name), but the model's key is \(schema.key.name)")
        }
        guard existing.keyKind == schema.keyKind else {
            throw SharkError.schemaMismatch(
                entity: schema.name,
                reason: "the table's key \(existing.key.name) is \(Self.describe(existing.keyKind)), "
                    + "but the model's is \(Self.describe(schema.keyKind))")
        }
        let existingColumns = Dictionary(
            existing.columns.map { (EntitySchema.folded($0.name), $0) }, uniquingKeysWith: { first, _ in first })
        var missing: [ColumnSchema] = []
        for (position, column) in schema.columns.enumerated() {
            guard let stored = existingColumns[EntitySchema.folded(column.name)] else {
                missing.append(column)
                continue
            }
            try checkFits(stored, as: column, isKey: position == 0, entity: schema.name)
        }
        guard forWriting else { return missing }
        let modelColumns = Set(schema.columns.map { EntitySchema.folded($0.name) })
        for column in existing.columns where !modelColumns.contains(EntitySchema.folded(column.name)) {
            if !column.isNullable && column.defaultValue == nil {
                throw SharkError.schemaMismatch(
                    entity: schema.name,
                    reason: "the table's column \(column.name) is NOT NULL with no default and the model has no "
                        + "property for it, so no insert could succeed; add the property (or @Transient data elsewhere)"
                )
            }
        }
        return missing
    }

    /// Refuses a column whose stored values the model could not read back as they are.
    private func checkFits(_ stored: ColumnSchema, as column: ColumnSchema, isKey: Bool, entity: String) throws {
        let name = SQLText.identifier(stored.name)
        let table = SQLText.identifier(entity)
        if !column.isNullable {
            let nulls =
                try connection.scalar("SELECT count(*) FROM \(table) WHERE \(name) IS NULL")?.coercedToInt64() ?? 0
            if nulls > 0 {
                throw SharkError.schemaMismatch(
                    entity: entity,
                    reason: "the column \(stored.name) holds NULL in \(nulls) row(s), but the model's "
                        + "\(column.name) is not optional; make the property optional, or fill those rows first")
            }
        }
        var accepted: [String]
        switch column.type {
        case .integer: accepted = ["integer"]
        case .real: accepted = ["integer", "real"]
        case .text: accepted = ["text"]
        case .blob: accepted = ["blob"]
        }
        // Date text and UUID text are read as what they spell (see `DateText`): they fit when
        // every one of them does.
        if column.logicalType == .date || column.logicalType == .uuid {
            try checkTextReads(stored, as: column, entity: entity)
            accepted.append("text")
        }
        let list = accepted.map { "'\($0)'" }.joined(separator: ", ")
        let misfits = try connection.rows(
            "SELECT typeof(\(name)), count(*), min(quote(\(name))) FROM \(table) "
                + "WHERE \(name) IS NOT NULL AND typeof(\(name)) NOT IN (\(list)) GROUP BY 1 ORDER BY 2 DESC")
        if let worst = misfits.first {
            let kind = worst[0].coercedToText()
            let count = worst[1].coercedToInt64()
            let example = String(worst[2].coercedToText().prefix(40))
            throw SharkError.schemaMismatch(
                entity: entity,
                reason: "the column \(stored.name) holds \(count) \(kind) value(s) (such as \(example)) where the "
                    + "model's \(column.name) stores \(column.type.rawValue) values")
        }
        if isKey, column.type == .blob {
            let wrongSize =
                try connection.scalar("SELECT count(*) FROM \(table) WHERE length(\(name)) <> 16")?.coercedToInt64()
                ?? 0
            if wrongSize > 0 {
                throw SharkError.schemaMismatch(
                    entity: entity,
                    reason: "the key column \(stored.name) holds \(wrongSize) blob(s) that are not 16-byte UUIDs")
            }
        }
    }

    /// Refuses a date or UUID column whose text does not spell a date or a UUID.
    private func checkTextReads(_ stored: ColumnSchema, as column: ColumnSchema, entity: String) throws {
        let name = SQLText.identifier(stored.name)
        var unreadable: (count: Int, example: String?) = (0, nil)
        try connection.withStatement(
            "SELECT \(name) FROM \(SQLText.identifier(entity)) WHERE typeof(\(name)) = 'text'"
        ) { statement in
            try statement.run([]) { row in
                let text = row.text(at: 0)
                let reads =
                    column.logicalType == .date ? DateText.date(from: text) != nil : UUID(uuidString: text) != nil
                if !reads {
                    unreadable.count += 1
                    if unreadable.example == nil { unreadable.example = String(text.prefix(40)) }
                }
            }
        }
        if unreadable.count > 0 {
            throw SharkError.schemaMismatch(
                entity: entity,
                reason: "the column \(stored.name) holds \(unreadable.count) text value(s) (such as "
                    + "'\(unreadable.example ?? "")') that are not \(column.logicalType == .date ? "dates" : "UUIDs")")
        }
    }

    private static func describe(_ kind: KeyKind) -> String {
        switch kind {
        case .autoIncrement: return "an integer (Int64)"
        case .uuid: return "a blob (UUID)"
        case .string: return "text (String)"
        }
    }

    // MARK: Indexes

    private func reconcileIndexes(of schema: EntitySchema) throws {
        let existing = Set(
            try connection.rows(
                "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND name LIKE 'shark\\_%' ESCAPE '\\'",
                [.text(schema.name)]
            ).compactMap { row -> String? in
                if case .text(let name) = row[0] { return name }
                return nil
            })
        let wanted = Set(schema.indexes.map(\.name))
        for name in existing.subtracting(wanted).sorted() {
            try connection.execute("DROP INDEX \(SQLText.identifier(name))")
        }
        for index in schema.indexes where !existing.contains(index.name) {
            let columns = index.columns.map(SQLText.identifier).joined(separator: ", ")
            try connection.execute(
                "CREATE \(index.isUnique ? "UNIQUE " : "")INDEX \(SQLText.identifier(index.name)) "
                    + "ON \(SQLText.identifier(schema.name)) (\(columns))")
        }
    }

    // MARK: Metadata

    private func tableExists(_ name: String) throws -> Bool {
        try connection.scalar("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", [.text(name)]) != nil
    }

    /// Every schema recorded in the metadata table, by entity name.
    func recordedSchemas() throws -> [EntitySchema] {
        guard try tableExists(Self.metadataTable) else { return [] }
        return try connection.rows("SELECT definition FROM \(Self.metadataTable) ORDER BY entity").compactMap { row in
            guard case .text(let json) = row[0] else { return nil }
            return try? JSONDecoder().decode(EntitySchema.self, from: Data(json.utf8))
        }
    }

    private func recordedSchema(of entity: String) throws -> EntitySchema? {
        guard
            case .text(let json) = try connection.scalar(
                "SELECT definition FROM \(Self.metadataTable) WHERE entity = ?", [.text(entity)])
        else { return nil }
        return try? JSONDecoder().decode(EntitySchema.self, from: Data(json.utf8))
    }

    private func record(_ schema: EntitySchema) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let json = String(decoding: try encoder.encode(schema), as: UTF8.self)
        let statement = try connection.cachedStatement(
            "INSERT OR REPLACE INTO \(Self.metadataTable) (entity, definition, applied_at) VALUES (?, ?, ?)")
        try statement.run([.text(schema.name), .text(json), .real(Date().timeIntervalSince1970)])
    }

    /// The schema of any table or view of the file, for reading it: `introspectedSchema`'s
    /// where it has one key column; else the first column of a composite key, `rowid` for a
    /// table without a declared key, the first column for a view. Nil when there is none of
    /// that name (or it is SQLite's own).
    func readableSchema(of name: String) throws -> EntitySchema? {
        let found = try connection.rows(
            "SELECT name, type, sql FROM sqlite_master WHERE type IN ('table', 'view') AND name = ? COLLATE NOCASE "
                + "AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'", [.text(name)])
        guard let object = found.first(where: { $0[0].coercedToText() == name }) ?? found.first else { return nil }
        let actual = object[0].coercedToText()
        let isView = object[1].coercedToText() == "view"
        let info = try connection.rows("PRAGMA table_info(\(SQLText.identifier(actual)))").map { Array($0[1...]) }
        guard !info.isEmpty else { return nil }
        let primaryKey = info.filter { $0[4].coercedToInt64() > 0 }.sorted {
            $0[4].coercedToInt64() < $1[4].coercedToInt64()
        }
        if !isView, primaryKey.count == 1 { return try introspectedSchema(of: actual) }
        var columns = info.map { row in
            ColumnSchema(
                name: row[0].coercedToText(), type: Self.affinity(of: row[1].coercedToText()),
                isNullable: row[2].coercedToInt64() == 0, defaultValue: row[3].isNull ? Value?.none : row[3])
        }
        var key: ColumnSchema
        if let first = primaryKey.first,
            let position = columns.firstIndex(where: { $0.name == first[0].coercedToText() })
        {
            key = columns.remove(at: position)
        } else if isView {
            key = columns.removeFirst()
        } else {
            key = ColumnSchema(name: "rowid", type: .integer, isNullable: false)
        }
        let keyKind: KeyKind = key.type == .text ? .string : key.type == .blob ? .uuid : .autoIncrement
        return EntitySchema(name: actual, keyKind: keyKind, columns: [key] + columns)
    }

    /// The storage class SQLite's affinity rules give a declared type (REAL for NUMERIC and
    /// none, the closest storage class a model has).
    static func affinity(of declared: String) -> StorageType {
        let declared = declared.uppercased()
        if declared.contains("INT") { return .integer }
        if declared.contains("CHAR") || declared.contains("CLOB") || declared.contains("TEXT") { return .text }
        if declared.contains("BLOB") { return .blob }
        return .real
    }

    /// The schema of a table the metadata does not describe, read from SQLite itself.
    func introspectedSchema(of name: String) throws -> EntitySchema {
        // PRAGMA rather than pragma_table_info(): the table-valued form needs SQLite 3.16.
        let info = try connection.rows("PRAGMA table_info(\(SQLText.identifier(name)))").map { Array($0[1...]) }
        if info.filter({ $0[4].coercedToInt64() > 0 }).count > 1 {
            throw SharkError.schemaMismatch(
                entity: name, reason: "the existing table has a primary key of several columns; a model has one key")
        }
        var key: ColumnSchema?
        var keyKind = KeyKind.autoIncrement
        var columns: [ColumnSchema] = []
        for row in info {
            let column = row[0].coercedToText()
            let declared = row[1].coercedToText().uppercased()
            let type = Self.affinity(of: declared)
            let isPrimaryKey = row[4].coercedToInt64() == 1
            // `INTEGER PRIMARY KEY` is the rowid itself and never NULL, whatever table_info's
            // notnull column says; any other primary key may hold NULLs, as SQLite allows.
            let isRowID = isPrimaryKey && declared == "INTEGER"
            let schema = ColumnSchema(
                name: column, type: type, isNullable: row[2].coercedToInt64() == 0 && !isRowID,
                defaultValue: row[3].isNull ? Value?.none : row[3])
            if isPrimaryKey && key == nil {
                key = schema
                keyKind = type == .text ? .string : type == .blob ? .uuid : .autoIncrement
            } else {
                columns.append(schema)
            }
        }
        guard let key else {
            throw SharkError.schemaMismatch(entity: name, reason: "the existing table has no primary key")
        }
        return EntitySchema(name: name, keyKind: keyKind, columns: [key] + columns)
    }
}

@_spi(SharkDriver) import SharkORM

/// The SQL text of an entity's statements, built once per schema and reused, and the
/// prepared insert statements, kept here so a bulk insert does not look its statement up by
/// text for every row.
///
/// Kept per schema, not per entity name: two model classes may share an entity (successive
/// versions of a model), and their columns differ.
final class EntityStatements {
    let schema: EntitySchema
    var preparedInsertWithKey: SQLStatement?
    var preparedInsertWithoutKey: SQLStatement?
    var preparedFindByKey: SQLStatement?
    /// Prepared `UPDATE` statements by the set of columns they write.
    private var updates: [ColumnSet: SQLStatement] = [:]
    /// The last update statement handed out: a bulk update writes the same columns object
    /// after object, and one comparison of a word beats hashing.
    private var lastUpdate: (columns: ColumnSet, statement: SQLStatement)?
    /// The plan cache: prepared query statements by the shape of the query (see
    /// ``QueryShape``), with how many of the values are bound as `?` parameters (the rest are
    /// read through `shark_arg`).
    var plans: [QueryShape: (statement: SQLStatement, parameters: Int)] = [:]
    /// How many shapes the plan cache keeps before it starts over: apps that build many
    /// shapes (`IN` lists of every length) must not grow it without bound.
    static let planLimit = 256

    let insertWithKey: String
    let insertWithoutKey: String
    let deleteByKey: String
    /// `SELECT <columns> FROM t WHERE key = ?`.
    let selectByKey: String
    let selectColumns: String
    /// The quoted column names, in schema order.
    private let columnNames: [String]
    let table: String
    let key: String

    /// Where `schema`'s columns and indexes are stored (see `isStatements(of:)`).
    private let columnStorage: UnsafeRawPointer?
    private let indexStorage: UnsafeRawPointer?

    init(_ schema: EntitySchema) {
        self.schema = schema
        columnStorage = schema.columns.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) }
        indexStorage = schema.indexes.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) }
        table = SQLText.identifier(schema.name)
        key = SQLText.identifier(schema.key.name)
        let names = schema.columns.map { SQLText.identifier($0.name) }
        insertWithKey =
            "INSERT INTO \(table) (\(names.joined(separator: ", "))) VALUES (\(SQLText.placeholders(names.count)))"
        let withoutKey = names.dropFirst()
        insertWithoutKey =
            withoutKey.isEmpty
            ? "INSERT INTO \(table) DEFAULT VALUES"
            : "INSERT INTO \(table) (\(withoutKey.joined(separator: ", "))) VALUES (\(SQLText.placeholders(withoutKey.count)))"
        deleteByKey = "DELETE FROM \(table) WHERE \(key) = ?"
        selectColumns = names.joined(separator: ", ")
        columnNames = names
        selectByKey = "SELECT \(selectColumns) FROM \(table) WHERE \(key) = ?"
    }

    /// `UPDATE OR FAIL`, or `UPDATE` where a trigger or a foreign key could make one update
    /// write several rows. Decided once per schema.
    ///
    /// Why: inside a transaction, SQLite gives an `UPDATE` that could fail a constraint
    /// (any NOT NULL column) a statement journal, copying the original of every page it
    /// touches so that a failure can undo the statement alone. A bulk update of one row per
    /// statement copies one page per row: cheap for SQLite, but SQLCipher encrypts and
    /// authenticates every copy, which made a bulk update about 3× slower than the rows'
    /// own encryption. `OR FAIL` needs no statement journal, and for one row by key it
    /// undoes the same nothing: SQLite checks every constraint before writing the row. Only
    /// triggers and foreign keys write beyond the row before a check can fail; tables with
    /// either (adopted from another app) keep the plain verb.
    private var verb: String?

    private func updateVerb(on connection: SQLiteConnection) throws -> String {
        if let verb { return verb }
        let writesBeyondRow =
            try connection.scalar(
                """
                SELECT count(*) FROM sqlite_master
                WHERE (type = 'trigger' AND tbl_name = ? COLLATE NOCASE)
                   OR (type = 'table' AND sql LIKE '%REFERENCES%')
                """, [.text(schema.name)])?.coercedToInt64() ?? 1
        let chosen = writesBeyondRow == 0 ? "UPDATE OR FAIL" : "UPDATE"
        verb = chosen
        return chosen
    }

    /// `UPDATE t SET a = ?, b = ? WHERE key = ?` for the given column positions, prepared on
    /// `connection` once per column set.
    func update(columns: ColumnSet, on connection: SQLiteConnection) throws -> SQLStatement {
        if let last = lastUpdate, last.columns == columns { return last.statement }
        let statement: SQLStatement
        if let prepared = updates[columns] {
            statement = prepared
        } else {
            let assignments = columns.map { SQLText.identifier(schema.columns[Int($0)].name) + " = ?" }
            let verb = try updateVerb(on: connection)
            statement = try connection.cachedStatement(
                "\(verb) \(table) SET \(assignments.joined(separator: ", ")) WHERE \(key) = ?")
            updates[columns] = statement
        }
        lastUpdate = (columns, statement)
        return statement
    }

    /// The select list for `columns`: every column, or the key and those columns with NULL
    /// standing for the others (a lightweight fetch), so positions stay the schema's.
    func columns(_ columns: ColumnSet?) -> String {
        guard let columns else { return selectColumns }
        var list = ""
        for (position, name) in columnNames.enumerated() {
            if position > 0 { list += ", " }
            list += position == 0 || columns.contains(Int32(position)) ? name : "NULL"
        }
        return list
    }

    /// Whether these are the statements of `other`: the schema they were made for, which the
    /// store passes again and again as the same value (the same column and index storage, so
    /// no field-by-field comparison, and no copy of the stored schema to compare with).
    func isStatements(of other: EntitySchema) -> Bool {
        let columns = other.columns.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) }
        let indexes = other.indexes.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) }
        if columns == columnStorage && indexes == indexStorage && other.name == schema.name
            && other.keyKind == schema.keyKind
        {
            return true
        }
        return other == schema
    }
}

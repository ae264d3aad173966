import SharkORM

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
    /// `UPDATE` texts by the set of columns they write.
    private var updates: [[Int32]: String] = [:]

    let insertWithKey: String
    let insertWithoutKey: String
    let deleteByKey: String
    let selectColumns: String
    let table: String
    let key: String

    init(_ schema: EntitySchema) {
        self.schema = schema
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
    }

    /// `UPDATE t SET a = ?, b = ? WHERE key = ?` for the given column positions.
    func update(columns: [Int32]) -> String {
        if let text = updates[columns] { return text }
        let assignments = columns.map { SQLText.identifier(schema.columns[Int($0)].name) + " = ?" }
        let text = "UPDATE \(table) SET \(assignments.joined(separator: ", ")) WHERE \(key) = ?"
        updates[columns] = text
        return text
    }
}

/// Small helpers for writing SQL text safely.
enum SQLText {
    /// A quoted identifier: `"name"`, with embedded quotes doubled.
    static func identifier(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// `?, ?, ?`
    static func placeholders(_ count: Int) -> String {
        Array(repeating: "?", count: count).joined(separator: ", ")
    }

    /// A literal for DDL, where SQLite cannot bind parameters (column defaults only).
    static func literal(_ value: Value) -> String {
        switch value {
        case .null: return "NULL"
        case .integer(let v): return String(v)
        case .real(let v):
            if v.isNaN { return "NULL" }
            if v.isInfinite { return v < 0 ? "-9e999" : "9e999" }
            return "\(v)"
        case .text(let v): return "'" + v.replacingOccurrences(of: "'", with: "''") + "'"
        case .blob(let v): return "X'" + v.map { hexDigits[Int($0)] }.joined() + "'"
        }
    }

    private static let hexDigits: [String] = (0..<256).map {
        let digits = Array("0123456789ABCDEF")
        return String([digits[$0 >> 4], digits[$0 & 15]])
    }
}

/// Compiles a query AST to SQL text and the values to bind, in order.
///
/// Values are always bound as parameters, never spliced into the text, so the text depends
/// only on the query's shape and its prepared statement is reused across values.
struct QueryCompiler {
    private(set) var arguments: [Value] = []

    mutating func compile(_ expression: QueryExpression) -> String {
        expression.sql(arguments: &arguments)
    }

    /// `SELECT <columns> FROM t WHERE … ORDER BY …, key LIMIT ? OFFSET ?`.
    ///
    /// The key is always the last ordering term, so rows that tie come back in key order on
    /// every driver.
    mutating func select(_ query: QueryDescription, statements: EntityStatements, columns: String) -> String {
        var sql = "SELECT "
        sql.reserveCapacity(columns.utf8.count + 128)
        sql += columns
        sql += " FROM "
        sql += statements.table
        if let predicate = query.predicate {
            sql += " WHERE "
            predicate.appendSQL(to: &sql, arguments: &arguments)
        }
        sql += " ORDER BY "
        for term in query.ordering {
            term.expression.appendSQL(to: &sql, arguments: &arguments)
            sql += term.ascending ? ", " : " DESC, "
        }
        sql += statements.key
        sql += limitClause(query)
        return sql
    }

    /// `SELECT count(*) …` honouring limit and offset.
    mutating func count(_ query: QueryDescription, statements: EntityStatements) -> String {
        var inner = "FROM \(statements.table)"
        if let predicate = query.predicate { inner += " WHERE " + compile(predicate) }
        if query.limit == nil && query.offset == nil { return "SELECT count(*) " + inner }
        return "SELECT count(*) FROM (SELECT 1 " + inner + limitClause(query) + ")"
    }

    private mutating func limitClause(_ query: QueryDescription) -> String {
        var sql = ""
        if query.limit != nil || query.offset != nil {
            sql += " LIMIT ?"
            arguments.append(.integer(Int64(query.limit ?? -1)))
        }
        if let offset = query.offset {
            sql += " OFFSET ?"
            arguments.append(.integer(Int64(offset)))
        }
        return sql
    }
}

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
    /// `UPDATE` texts by the set of columns they write.
    private var updates: [[Int32]: String] = [:]

    let insertWithKey: String
    let insertWithoutKey: String
    let deleteByKey: String
    /// `SELECT <columns> FROM t WHERE key = ?`.
    let selectByKey: String
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
        selectByKey = "SELECT \(selectColumns) FROM \(table) WHERE \(key) = ?"
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

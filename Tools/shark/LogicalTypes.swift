import SharkORM
import SharkSync

/// The logical types a database records, by entity and column, a relationship's being its
/// target key's: how `query` shows rows and `inspect --database` a change log's values.
struct LogicalTypes {
    private var columns: [String: [String: LogicalType]] = [:]

    init() {}

    init(_ schemas: [EntitySchema]) {
        for schema in schemas {
            var types: [String: LogicalType] = [:]
            for column in schema.columns {
                // A relationship shows as its target's key does.
                let target = column.relationship.flatMap { relationship in
                    schemas.first { $0.name == relationship.target }?.key.logicalType
                }
                if let type = column.logicalType ?? target { types[column.name] = type }
            }
            columns[schema.name] = types
        }
    }

    /// The logical types a change log carries (flags bit 1); none for files written before.
    init(_ contents: ChangeLogContents) {
        for entity in contents.entities {
            var types: [String: LogicalType] = [:]
            for column in entity.columns { if let type = column.logicalType { types[column.name] = type } }
            columns[entity.name] = types
        }
    }

    func of(_ column: String, in entity: String) -> LogicalType? { columns[entity]?[column] }

    /// The key's type, from the key kind the file records: a UUID key is its 16 bytes.
    func key(of entity: ChangeLogContents.Entity) -> LogicalType? {
        entity.keyKind == .uuid ? .uuid : nil
    }
}

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
    /// The relationship columns, of every entity this store has recorded, that refer to
    /// `entity`: not only the models this process has used, since rows of others may refer
    /// to the object too. Read on the writer, cached until the next schema change.
    func referrers(of entity: String) throws -> [Referrer] {
        if let cached = referrers.withLock({ $0 }) { return cached[entity] ?? [] }
        let schemas = try withWriterAccess { try $0.recordedSchemas() }
        var all: [String: [Referrer]] = [:]
        for schema in schemas {
            for (position, column) in schema.columns.enumerated() {
                guard let relationship = column.relationship else { continue }
                all[relationship.target, default: []].append(Referrer(schema: schema, column: position))
            }
        }
        referrers.withLock { $0 = all }
        return all[entity] ?? []
    }
}

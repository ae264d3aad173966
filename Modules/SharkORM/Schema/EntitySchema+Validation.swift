extension EntitySchema {
    /// Checks what every driver must refuse alike, before any of them sees the schema.
    ///
    /// - Entity names starting with `sqlite_` or `_shark_` (in any case) belong to the engines:
    ///   SQLite reserves the first, SharkORM keeps its metadata and rebuild tables under the
    ///   second.
    /// - Two columns whose names differ only in case are one column to SQLite, so they are
    ///   refused everywhere.
    ///
    /// ```swift
    /// try Person.schema.validate()
    /// ```
    public func validate() throws(SharkError) {
        let folded = Self.folded(name)
        if name.isEmpty {
            throw SharkError.invalidModel(entity: name, reason: "the entity name is empty")
        }
        for reserved in ["sqlite_", "_shark_"] where folded.hasPrefix(reserved) {
            throw SharkError.invalidModel(
                entity: name,
                reason: "entity names starting with '\(reserved)' are reserved for the storage engines; "
                    + "rename it with @Model(entity:)")
        }
        var seen: [String: String] = [:]
        for column in columns {
            if column.name.isEmpty {
                throw SharkError.invalidModel(entity: name, reason: "a column has an empty name")
            }
            if let earlier = seen.updateValue(column.name, forKey: Self.folded(column.name)) {
                throw SharkError.invalidModel(
                    entity: name,
                    reason: "the columns '\(earlier)' and '\(column.name)' differ only in case, and names are "
                        + "case-insensitive in storage")
            }
        }
    }

    /// `name` with ASCII letters lowercased: how SQLite compares identifiers, so every driver
    /// compares them so.
    public static func folded(_ name: String) -> String {
        String(
            decoding: name.utf8.map { (65...90).contains($0) ? $0 + 32 : $0 }, as: UTF8.self)
    }
}

extension Store {
    /// Runs a raw SQL statement that changes data, with bound arguments: the escape hatch for
    /// what the model layer does not cover. Returns the number of rows changed.
    ///
    /// ```swift
    /// let archived = try store.execute("UPDATE Person SET age = age + 1 WHERE age < ?", 18)
    /// ```
    ///
    /// Arguments are always bound, never spliced into the text. Runs on the writer, inside the
    /// current transaction if the calling thread has one. SQL drivers only: the memory driver
    /// throws ``SharkError/unsupported(_:)``. Objects already in memory do not see the change
    /// until they are refreshed.
    @discardableResult
    public func execute(_ sql: String, _ arguments: Value...) throws -> Int {
        try execute(sql, arguments: arguments)
    }

    /// ``execute(_:_:)`` with an array of arguments.
    @discardableResult
    public func execute(_ sql: String, arguments: [Value]) throws -> Int {
        try withWriterAccess { writer in try writer.executeRaw(sql, arguments: arguments).changes }
    }

    /// Runs a raw SQL query with bound arguments and returns its rows as values.
    ///
    /// ```swift
    /// let result = try store.rows("SELECT name, count(*) FROM Person GROUP BY name HAVING count(*) > ?", 1)
    /// for row in result.rows { print(row[0], row[1]) }
    /// ```
    ///
    /// Reads see the committed state (or, inside a transaction, its own writes). SQL drivers
    /// only: the memory driver throws ``SharkError/unsupported(_:)``.
    public func rows(_ sql: String, _ arguments: Value...) throws -> RawResult {
        try rows(sql, arguments: arguments)
    }

    /// ``rows(_:_:)`` with an array of arguments.
    public func rows(_ sql: String, arguments: [Value]) throws -> RawResult {
        try withReader { try $0.executeRaw(sql, arguments: arguments) }
    }
}

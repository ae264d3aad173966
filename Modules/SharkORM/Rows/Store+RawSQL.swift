extension Store {
    /// Runs a raw SQL statement that changes data, with bound arguments: the escape hatch for
    /// what the model layer does not cover. Returns the number of rows changed.
    ///
    /// ```swift
    /// let archived = try store.execute("UPDATE Person SET age = age + 1 WHERE age < ?", 18)
    /// ```
    ///
    /// Arguments are always bound, never spliced into the text; their number must match the
    /// statement's parameters, and the text must hold one statement. Inside a transaction the
    /// statement joins it. It goes through the write pipeline: observers and events hear which
    /// entities it wrote (not which rows: SQL does not say), and an entity an observer protects
    /// (a synced one, say) refuses it before it runs. SQL drivers only: the memory driver
    /// throws ``SharkError/unsupported(_:)``. Objects already in memory do not see the change
    /// until they are refreshed.
    @discardableResult
    public func execute(_ sql: String, _ arguments: Value...) throws -> Int {
        try execute(sql, arguments: arguments)
    }

    /// ``execute(_:_:)`` with an array of arguments.
    @discardableResult
    public func execute(_ sql: String, arguments: [Value]) throws -> Int {
        if let open = try activeTransaction() { return try open.execute(sql, arguments: arguments) }
        if recordsChanges { return try runOutermostTransaction { try $0.execute(sql, arguments: arguments) } }
        // Nobody to tell before COMMIT: run it on its own, so statements that cannot run
        // inside a transaction (VACUUM) still can.
        return try withWriterAccess { _ in try writeStage.executeRawAlone(sql, arguments: arguments).changes }
    }

    /// Runs a raw SQL query with bound arguments and returns its rows as values.
    ///
    /// ```swift
    /// let result = try store.rows("SELECT name, count(*) FROM Person GROUP BY name HAVING count(*) > ?", 1)
    /// for row in result.rows { print(row[0], row[1]) }
    /// ```
    ///
    /// Reads see the committed state (or, inside a transaction, its own writes). Outside a
    /// write transaction the statement must only read: one that may change the database (a
    /// write, DDL, `VACUUM`, a `PRAGMA` that sets a value) throws
    /// ``SharkError/invalidQuery(_:)`` before it runs; use ``execute(_:arguments:)``. Inside
    /// one, it goes through the write pipeline like ``execute(_:arguments:)``. SQL drivers
    /// only: the memory driver throws ``SharkError/unsupported(_:)``.
    public func rows(_ sql: String, _ arguments: Value...) throws -> RawResult {
        try rows(sql, arguments: arguments)
    }

    /// ``rows(_:_:)`` with an array of arguments.
    public func rows(_ sql: String, arguments: [Value]) throws -> RawResult {
        // Inside a transaction a statement could write (`INSERT … RETURNING`): it goes through
        // the write stage like ``execute(_:arguments:)``. A reader only reads.
        if let open = try activeTransaction() { return try open.executeRaw(sql, arguments: arguments) }
        return try withReader { try rawConnection($0).readRaw(sql, arguments: arguments) }
    }

    /// The connection's raw SQL capability, or the error saying the driver has none.
    func rawConnection(_ connection: any DriverConnection) throws -> any RawSQLConnection {
        if let recording = connection as? RegionRecordingConnection {
            // SQL text does not say what it reads: an observation must assume everything.
            recording.region.recordEverything()
            return try rawConnection(recording.base)
        }
        return try Self.rawCapability(of: connection, driver: driver)
    }

    /// `connection` as a raw SQL connection, or the error saying `driver` has no SQL engine.
    static func rawCapability(of connection: any DriverConnection, driver: any Driver) throws -> any RawSQLConnection {
        guard let raw = connection as? any RawSQLConnection else {
            throw SharkError.unsupported(
                .rawSQL,
                "raw SQL: the \(driver.name) driver has no SQL engine; use queries, or a SQL driver")
        }
        return raw
    }
}

extension WriteTransaction {
    /// Runs a raw SQL statement in this transaction (see ``Store/execute(_:arguments:)``).
    @discardableResult
    public func execute(_ sql: String, _ arguments: Value...) throws -> Int {
        try execute(sql, arguments: arguments)
    }

    /// ``execute(_:_:)`` with an array of arguments.
    @discardableResult
    public func execute(_ sql: String, arguments: [Value]) throws -> Int {
        try executeRaw(sql, arguments: arguments).changes
    }

    /// Stage 2 of the pipeline for raw SQL: refuse protected entities, run, report the
    /// entities written as changes of unknown rows.
    func executeRaw(_ sql: String, arguments: [Value]) throws -> RawResult {
        try checkUsable()
        return try stage.executeRaw(sql, arguments: arguments, protecting: store.protectedEntities)
    }
}

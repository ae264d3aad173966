/// What change capture (sync) needs of a transaction beyond an app's writes: attributing the
/// changes it applies to their source, and writing its metadata as a transaction observer's
/// own bookkeeping. `@_spi(SharkReplication)`: for replication engines (SharkSync, or one
/// outside this repository); apps never call these.
extension WriteTransaction {
    /// Attributes the changes this transaction records from now on to `origin` (a sync
    /// import marks its writes `.imported`, so events say where they came from and change
    /// capture does not stamp them as local).
    @_spi(SharkReplication) public func attributeChanges(to origin: ChangeOrigin) throws {
        try checkUsable()
        stage.attribute(to: origin)
    }

    /// Runs `body` with its writes made as bookkeeping (see `WriteRole`): written like any
    /// other, recorded for nobody: observers never see them and events never report them.
    @_spi(SharkReplication) public func writingBookkeeping<T>(_ body: () throws -> T) throws -> T {
        try checkUsable()
        return try stage.writing(as: .bookkeeping, body)
    }

    /// Runs `body` with its writes made as consequences of the transaction's own: events
    /// report them (with the transaction's origin), observers are never shown them. For an
    /// observer that must change app rows because of what the transaction did (sync giving a
    /// unique value back to the row that waited for it when the app let it go), even in
    /// entities it protects from raw SQL.
    @_spi(SharkReplication) public func writingConsequences<T>(_ body: () throws -> T) throws -> T {
        try checkUsable()
        return try stage.writing(as: .observer(protecting: []), body)
    }
}

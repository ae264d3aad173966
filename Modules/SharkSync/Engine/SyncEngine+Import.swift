import Foundation
@_spi(SharkReplication) import SharkORM

/// What an import did.
///
/// ```swift
/// let summary = try sync.importChanges(from: file)
/// print(summary.rowsApplied, summary.rowsUnchanged, summary.skippedColumns)
/// ```
public struct SyncImportSummary: Sendable, Hashable {
    /// Rows whose state changed here: inserted, updated, removed, or only their versions.
    public var rowsApplied = 0
    /// Rows the store had already (a replayed file applies none).
    public var rowsUnchanged = 0
    /// Entities of the file this store does not sync (yet): their rows wait until a
    /// migration adds them, and this store's version vector does not claim them meanwhile.
    public var skippedEntities: [String] = []
    /// Columns of the file this store's entities do not have (yet), as `Entity.column`.
    public var skippedColumns: [String] = []

    public init() {}
}

extension SyncEngine {
    /// Applies a change-log file from another replica, all of it or (on any error) nothing.
    /// Replaying a file changes nothing; files apply in any order. The changes are written
    /// with origin `ChangeOrigin.imported` (events report them), no hook can veto them,
    /// and delete rules do not run (the other side applied them already).
    ///
    /// The file is read and checked completely first: a damaged, truncated, foreign or
    /// future-version file, or a wrong key, throws a ``SyncError`` and leaves the store as it was.
    ///
    /// ```swift
    /// let summary = try sync.importChanges(from: file)
    /// print(summary.rowsApplied)
    /// ```
    @discardableResult
    public func importChanges(
        from data: Data, key: ChangeLogKey? = nil, limits: ChangeLogLimits = ChangeLogLimits()
    ) throws -> SyncImportSummary {
        guard !store.isInTransaction else {
            throw SyncError.misuse(
                .insideTransaction, "import a change log outside of any transaction of the store: it is one itself")
        }
        let log = try checkedLog(data, key: key, limits: limits)
        return try store.write { tx in try apply(log, in: tx) }
    }

    /// `importChanges(from:key:limits:)` with the writes on the store's writer thread, so
    /// that async code never blocks a thread of the cooperative pool. The file is checked
    /// before the writer is taken.
    ///
    /// ```swift
    /// let summary = try await sync.importChanges(from: file)
    /// ```
    @discardableResult
    public func importChanges(
        from data: Data, key: ChangeLogKey? = nil, limits: ChangeLogLimits = ChangeLogLimits()
    ) async throws -> SyncImportSummary {
        let log = try checkedLog(data, key: key, limits: limits)
        return try await store.write { tx in try self.apply(log, in: tx) }
    }

    /// The file read and checked whole, and of this store's lineage.
    private func checkedLog(_ data: Data, key: ChangeLogKey?, limits: ChangeLogLimits) throws -> ChangeLog {
        let log = try ChangeLogReader.read(data, key: key, limits: limits)
        guard log.lineage == lineage else { throw SyncError.foreignLineage(expected: lineage, found: log.lineage) }
        return log
    }

    /// Applies `log` inside `tx`, in the steps of ``ChangeLogImport``.
    func apply(_ log: ChangeLog, in tx: WriteTransaction, takingEqual: Bool = false) throws -> SyncImportSummary {
        var run = try ChangeLogImport(log, into: self, in: tx, takingEqual: takingEqual)
        return try run.run()
    }

    /// Fewer new rows than this sharing a state get a state row each rather than a batch.
    static let smallestBatch = 16

    /// The name a column of a file has here: the same name, or the local column renamed from
    /// it (this store migrated further), or the name it had before (the file's store did).
    static func localName(of column: ChangeLogColumn, in schema: EntitySchema) -> String? {
        let columns = schema.columns.dropFirst()
        if columns.contains(where: { $0.name == column.name }) { return column.name }
        if let renamed = columns.first(where: { $0.previousNames?.contains(column.name) == true }) {
            return renamed.name
        }
        return columns.first { column.previousNames.contains($0.name) }?.name
    }
}

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
    /// The sender's digest of its whole synced content when it wrote the file (only full
    /// exports carry one): `SyncEngine.compareDigest(after:)` compares it with this
    /// replica's.
    public var senderDigest: SyncDigest?

    public init() {}
}

extension SyncEngine {
    /// Applies a change-log file from another replica, all of it or (on any error) nothing.
    /// Replaying a file changes nothing; files apply in any order. The changes are written
    /// with origin `ChangeOrigin.imported` (events report them), no hook can veto them,
    /// and delete rules do not run (the other side applied them already).
    ///
    /// The file is checked first (its digest, header, key and every frame's checksum): a
    /// damaged, truncated, foreign or future-version file, or a wrong key, throws a
    /// ``SyncError`` and leaves the store as it was. For a large log, import from a file
    /// (`importChanges(from:key:limits:)` with a URL): it is read a few frames at a time.
    ///
    /// ```swift
    /// let summary = try sync.importChanges(from: file)
    /// print(summary.rowsApplied)
    /// ```
    @discardableResult
    public func importChanges(
        from data: Data, key: ChangeLogKey? = nil, limits: ChangeLogLimits = ChangeLogLimits()
    ) throws -> SyncImportSummary {
        try importChanges(from: InMemoryChangeLogInput(data: data), key: key, limits: limits)
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
        let opened = try checkedLog(InMemoryChangeLogInput(data: data), key: key, limits: limits)
        return try await store.write { tx in try self.apply(opened, in: tx) }
    }

    /// Applies the change-log file at `url`, as the form that takes `Data` does with bytes,
    /// reading it a few frames at a time: memory stays a few megabytes
    /// whatever the file's size, and the import is still all of it or nothing. A file that
    /// cannot be read twice (a pipe, `/dev/stdin`) is first copied to a temporary file.
    ///
    /// ```swift
    /// let summary = try sync.importChanges(from: URL(fileURLWithPath: "notes.sharklog"))
    /// ```
    @discardableResult
    public func importChanges(
        from url: URL, key: ChangeLogKey? = nil, limits: ChangeLogLimits = ChangeLogLimits()
    ) throws -> SyncImportSummary {
        try importChanges(from: try FileChangeLogInput(url), key: key, limits: limits)
    }

    /// `importChanges(from:key:limits:)` of a file, with the reads and writes off the
    /// cooperative pool (the file is checked on a reader thread of the store).
    ///
    /// ```swift
    /// let summary = try await sync.importChanges(from: URL(fileURLWithPath: "notes.sharklog"))
    /// ```
    @discardableResult
    public func importChanges(
        from url: URL, key: ChangeLogKey? = nil, limits: ChangeLogLimits = ChangeLogLimits()
    ) async throws -> SyncImportSummary {
        let opened = try await store.read { _ in
            try self.checkedLog(try FileChangeLogInput(url), key: key, limits: limits)
        }
        return try await store.write { tx in try self.apply(opened, in: tx) }
    }

    private func importChanges(
        from input: some ChangeLogInput, key: ChangeLogKey?, limits: ChangeLogLimits
    ) throws -> SyncImportSummary {
        guard !store.isInTransaction else {
            throw SyncError.misuse(
                .insideTransaction, "import a change log outside of any transaction of the store: it is one itself")
        }
        let opened = try checkedLog(input, key: key, limits: limits)
        return try store.write { tx in try apply(opened, in: tx) }
    }

    /// The file checked (all but its frames' contents), and of this store's lineage.
    private func checkedLog(_ input: some ChangeLogInput, key: ChangeLogKey?, limits: ChangeLogLimits) throws
        -> OpenedChangeLog
    {
        let opened = try ChangeLogReader.open(input, key: key, limits: limits)
        guard opened.header.lineage == lineage else {
            throw SyncError.foreignLineage(expected: lineage, found: opened.header.lineage)
        }
        return opened
    }

    /// Applies an opened file inside `tx`, frame by frame (see ``ChangeLogImport``).
    func apply(_ opened: OpenedChangeLog, in tx: WriteTransaction) throws -> SyncImportSummary {
        // A sender that had not seen every removal forgotten here could bring one back.
        let horizon = try TombstoneHorizon.read(in: tx, of: self)
        guard opened.header.vector.covers(horizon) else {
            throw SyncError.belowHorizon(vector: opened.header.vector, horizon: horizon)
        }
        var run = try ChangeLogImport(
            opened.header, expectedRows: opened.expectedRows, into: self, in: tx, takingEqual: false)
        let digest = try opened.forEachFrame { entityIndex, rows in try run.apply(rows, ofEntity: entityIndex) }
        var summary = try run.finish()
        summary.senderDigest = digest
        try TombstoneHorizon.raise(to: opened.header.horizon, in: tx, of: self)
        return summary
    }

    /// Applies a log in memory inside `tx` (what was kept for later, replayed).
    func apply(_ log: ChangeLog, in tx: WriteTransaction, takingEqual: Bool = false) throws -> SyncImportSummary {
        var run = try ChangeLogImport(
            log, expectedRows: log.entities.map(\.rows.count), into: self, in: tx, takingEqual: takingEqual)
        for (index, entity) in log.entities.enumerated() where !entity.rows.isEmpty {
            for start in stride(from: 0, to: entity.rows.count, by: ChangeLogFormat.rowsPerFrame) {
                let end = min(start + ChangeLogFormat.rowsPerFrame, entity.rows.count)
                try run.apply(Array(entity.rows[start..<end]), ofEntity: index)
            }
        }
        return try run.finish()
    }

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

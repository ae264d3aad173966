import Foundation
@_spi(SharkReplication) import SharkORM

extension SyncEngine {
    /// A change-log file of what this replica has that a peer whose version vector is `since`
    /// has not seen: the latest value of each changed column (not every value it had), and
    /// removed rows as tombstones. With no vector, everything. Sealed with `key` when given.
    /// For a large store, export to a file (`exportChanges(since:key:to:)` with a URL): the bytes are
    /// then never held whole.
    ///
    /// ```swift
    /// let everything = try sync.exportChanges()
    /// let missing = try sync.exportChanges(since: peerVector, key: key)
    /// ```
    public func exportChanges(since peer: VersionVector = VersionVector(), key: ChangeLogKey? = nil) throws -> Data {
        var output = InMemoryChangeLogOutput()
        try store.read { snapshot in try writeChanges(since: peer, key: key, in: snapshot, to: &output) }
        return Data(output.bytes)
    }

    /// `exportChanges(since:key:)` with the reads on one of the store's reader threads, so
    /// that async code never blocks a thread of the cooperative pool.
    ///
    /// ```swift
    /// let file = try await sync.exportChanges(since: peerVector)
    /// ```
    public func exportChanges(since peer: VersionVector = VersionVector(), key: ChangeLogKey? = nil) async throws
        -> Data
    {
        try await store.read { snapshot in
            var output = InMemoryChangeLogOutput()
            try self.writeChanges(since: peer, key: key, in: snapshot, to: &output)
            return Data(output.bytes)
        }
    }

    /// Writes the change log of `exportChanges(since:key:)` to the file at `url`, reading
    /// the store a page at a time and keeping the compressed frames in a temporary file until
    /// the header that precedes them is known: memory stays a few megabytes whatever the
    /// store's size. The file appears whole or not at all (it is written under a temporary
    /// name beside `url`, then renamed over it; an existing file is replaced). Returns its
    /// size in bytes.
    ///
    /// ```swift
    /// let url = URL(fileURLWithPath: "notes.sharklog")
    /// try sync.exportChanges(since: peerVector, to: url)
    /// ```
    @discardableResult
    public func exportChanges(since peer: VersionVector = VersionVector(), key: ChangeLogKey? = nil, to url: URL)
        throws -> Int
    {
        try store.read { snapshot in try writeChanges(since: peer, key: key, in: snapshot, to: url) }
    }

    /// `exportChanges(since:key:to:)` with the reads and writes on one of the store's reader
    /// threads, off the cooperative pool.
    ///
    /// ```swift
    /// try await sync.exportChanges(to: URL(fileURLWithPath: "notes.sharklog"))
    /// ```
    @discardableResult
    public func exportChanges(since peer: VersionVector = VersionVector(), key: ChangeLogKey? = nil, to url: URL)
        async throws -> Int
    {
        try await store.read { snapshot in try self.writeChanges(since: peer, key: key, in: snapshot, to: url) }
    }

    /// Writes the change log of `exportChanges(since:key:)` to an open file handle (standard
    /// output, a pipe, a socket) as it is produced. The handle is not closed. Returns the
    /// number of bytes written.
    ///
    /// ```swift
    /// try sync.exportChanges(since: peerVector, to: FileHandle.standardOutput)
    /// ```
    @discardableResult
    public func exportChanges(
        since peer: VersionVector = VersionVector(), key: ChangeLogKey? = nil, to handle: FileHandle
    ) throws -> Int {
        try store.read { snapshot in
            var output = CountingOutput(DescriptorChangeLogOutput(descriptor: handle.fileDescriptor))
            try writeChanges(since: peer, key: key, in: snapshot, to: &output)
            return output.count
        }
    }

    private func writeChanges(since peer: VersionVector, key: ChangeLogKey?, in snapshot: ReadTransaction, to url: URL)
        throws -> Int
    {
        let file = try AtomicFileChangeLogOutput(url)
        var output = CountingOutput(file)
        try writeChanges(since: peer, key: key, in: snapshot, to: &output)
        try file.finish()
        return output.count
    }

    /// The unique indexes of `entity` whose stand-ins an export must replace by the claimed
    /// values: nil when no row of it holds a stand-in.
    func claimsToShow(of entity: String, in snapshot: ReadTransaction) throws -> UniqueClaims? {
        guard recordsStandIns, let claims = uniqueClaims[entity] else { return nil }
        let records = try snapshot.fetch(SyncStandInRecord.query(in: store).where(\.entity == entity).limit(1))
        return records.isEmpty ? nil : claims
    }

    /// The change log of an export, read from one snapshot and written to `output`, each
    /// entity a page of rows at a time (see ``EntityExport``).
    func writeChanges(
        since peer: VersionVector, key: ChangeLogKey?, in snapshot: ReadTransaction,
        to output: inout some ChangeLogOutput
    ) throws {
        let sites = SiteTable(try snapshot.fetch(SyncSiteRecord.query(in: store)))
        let horizon = try TombstoneHorizon.read(in: snapshot, of: self)
        // A peer behind the horizon may hold rows whose removal was forgotten here: only a
        // full export, which carries forgotten removals, brings it up to date.
        let isFull = peer.entries.isEmpty
        guard isFull || peer.covers(horizon) else { throw SyncError.belowHorizon(vector: peer, horizon: horizon) }
        let includesForgotten = isFull && !horizon.entries.isEmpty
        let writer = ChangeLogWriter(
            fileID: UUID(), source: site, lineage: lineage, since: peer, vector: sites.vector,
            sites: sites.records.map(\.id), key: key, horizon: horizon,
            // A full export describes the whole synced content: it carries its digest.
            digesting: isFull ? schemaDigest() : nil)
        // A peer that has every state up to some arrival gets the states written since,
        // read through the arrival index (a new peer, or one behind every checkpoint, all).
        var coveredArrival: Int64?
        if !peer.entries.isEmpty, try ArrivalLog.hasCheckpoint(in: store) {
            coveredArrival = try ArrivalLog.lastCovered(by: peer, in: store, sites: sites)
        }
        for name in tables.keys.sorted() {
            var export = EntityExport(
                table: tables[name]!, schemas: schemas, peer: peer, coveredArrival: coveredArrival, sites: sites,
                writer: writer, includesForgotten: includesForgotten,
                claims: try claimsToShow(of: name, in: snapshot), rules: mergeRules[name] ?? [:])
            try export.run(in: store)
        }
        try writer.finish(to: &output)
    }
}

/// An output that counts the bytes it passes on.
private struct CountingOutput<Output: ChangeLogOutput>: ChangeLogOutput {
    var output: Output
    var count = 0

    init(_ output: Output) { self.output = output }

    mutating func write(_ bytes: some Collection<UInt8>) throws(SyncError) {
        try output.write(bytes)
        count += bytes.count
    }
}

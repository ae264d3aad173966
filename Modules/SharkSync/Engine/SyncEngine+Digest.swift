import Crypto
import Foundation
@_spi(SharkReplication) import SharkORM

extension SyncEngine {
    /// The digest of this replica's synced content (see ``SyncDigest``), read from one
    /// snapshot a page of rows at a time: memory stays a page, and the time grows with the
    /// rows (a full scan: about what a full export spends reading them). Two replicas whose
    /// digests are equal hold the same synced rows, values and versions.
    ///
    /// ```swift
    /// if try laptop.digest() == phone.digest() { print("in sync") }
    /// ```
    public func digest() throws -> SyncDigest {
        try store.read { snapshot in try digest(in: snapshot) }
    }

    /// `digest()` with the reads on one of the store's reader threads, off the cooperative
    /// pool.
    ///
    /// ```swift
    /// let digest = try await sync.digest()
    /// ```
    public func digest() async throws -> SyncDigest {
        try await store.read { snapshot in try self.digest(in: snapshot) }
    }

    /// Whether this replica now holds exactly what the sender of an imported full export held
    /// when it wrote it: `.equal` or `.different`, or `.notComparable` when the file carried
    /// no digest (only full exports do), when the schemas differ, when this replica's vector
    /// is not the file's (it had, or has since made, changes the sender had not seen), or
    /// when it keeps values pending. Only then does it compute this replica's digest (a full
    /// scan): an import itself never does.
    ///
    /// ```swift
    /// let summary = try phone.importChanges(from: try laptop.exportChanges())
    /// switch try phone.compareDigest(after: summary) {
    /// case .equal: print("completely in sync")
    /// case .different: print("the replicas differ: report a bug")
    /// case .notComparable(let reason): print("cannot tell yet: \(reason)")
    /// }
    /// ```
    public func compareDigest(after summary: SyncImportSummary) throws -> SyncDigestComparison {
        try store.read { snapshot in try compareDigest(after: summary, in: snapshot) }
    }

    /// `compareDigest(after:)` with the reads on one of the store's reader threads.
    ///
    /// ```swift
    /// let summary = try await phone.importChanges(from: try await laptop.exportChanges())
    /// let comparison = try await phone.compareDigest(after: summary)
    /// ```
    public func compareDigest(after summary: SyncImportSummary) async throws -> SyncDigestComparison {
        try await store.read { snapshot in try self.compareDigest(after: summary, in: snapshot) }
    }

    private func compareDigest(after summary: SyncImportSummary, in snapshot: ReadTransaction) throws
        -> SyncDigestComparison
    {
        guard let sent = summary.senderDigest else { return .notComparable(.fileHasNoDigest) }
        guard Data(schemaDigest()) == sent.schema else { return .notComparable(.schemasDiffer) }
        let vector = SiteTable(try snapshot.fetch(SyncSiteRecord.query(in: store))).vector
        guard vector.covers(sent.vector), sent.vector.covers(vector) else { return .notComparable(.vectorsDiffer) }
        guard try snapshot.fetch(SyncPendingRecord.query(in: store).limit(1)).isEmpty else {
            return .notComparable(.pendingValues)
        }
        return try digest(in: snapshot).compared(to: sent)
    }

    /// The digest of the content `snapshot` shows: every synced entity read as a full export
    /// reads it (stand-ins show the values they claim), hashed instead of written.
    func digest(in snapshot: ReadTransaction) throws -> SyncDigest {
        let sites = SiteTable(try snapshot.fetch(SyncSiteRecord.query(in: store)))
        let scan = DigestScan()
        for name in tables.keys.sorted() {
            var export = EntityExport(
                table: tables[name]!, schemas: schemas, peer: VersionVector(), coveredArrival: nil, sites: sites,
                writer: scan, claims: try claimsToShow(of: name, in: snapshot), rules: mergeRules[name] ?? [:])
            try export.run(in: store)
        }
        return SyncDigest(
            schema: Data(schemaDigest()), content: Data(scan.sum.bytes), rowCount: scan.rowCount,
            vector: sites.vector)
    }

    /// SHA-256 of the synced schema, which digests compare under (docs/sync-format.md):
    ///
    /// ```
    /// varint   entity count, then per entity in the byte order of their names:
    ///          string name · string key kind · varint column count ·
    ///          per column in the byte order of their names: string name · byte storage class ·
    ///          string merge rule ("" for last-writer-wins)
    /// ```
    func schemaDigest() -> [UInt8] {
        var writer = ByteWriter()
        let names = tables.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        writer.append(varint: names.count)
        for name in names {
            let entity = EntityExport.describe(tables[name]!, schemas: schemas, rules: mergeRules[name] ?? [:])
            writer.append(string: entity.name)
            writer.append(string: ChangeLogFormat.name(of: entity.keyKind))
            writer.append(varint: entity.columns.count)
            for column in entity.columns.sorted(by: { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }) {
                writer.append(string: column.name)
                writer.append(byte: column.type.changeLogCode)
                writer.append(string: column.rule.rawValue)
            }
        }
        return Array(SHA256.hash(data: writer.bytes))
    }
}

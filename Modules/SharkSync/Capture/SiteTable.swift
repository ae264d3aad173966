import Foundation
@_spi(SharkReplication) import SharkORM

/// The sites a store knows, read from its `SharkSyncSite` rows: their numbers (what row
/// states refer to a site by, to keep them small), the version vector, and the local site.
struct SiteTable {
    private(set) var records: [SyncSiteRecord]
    private var byNumber: [Int: SyncSiteRecord] = [:]
    private var bySite: [UUID: SyncSiteRecord] = [:]

    init(_ records: [SyncSiteRecord]) {
        self.records = records
        for record in records {
            byNumber[record.number] = record
            bySite[record.id] = record
        }
    }

    var local: SyncSiteRecord? { records.first { $0.isLocal } }

    var vector: VersionVector {
        VersionVector(Dictionary(uniqueKeysWithValues: records.filter { $0.seen > 0 }.map { ($0.id, UInt64($0.seen)) }))
    }

    func site(number: Int) throws(SyncError) -> UUID {
        if number == 0 { return RowMerge.unknown.site }
        guard let record = byNumber[number] else {
            throw .corrupt(
                .damagedMetadata, "the sync metadata names site number \(number), which this store does not know")
        }
        return record.id
    }

    func record(of site: UUID) -> SyncSiteRecord? { bySite[site] }

    /// The number of `site`, adding a record for a site not seen before (committed by the
    /// caller with the other records it changed).
    mutating func number(of site: UUID) -> Int {
        // Number 0 is the nil site of versions nothing was received for (`RowMerge.unknown`):
        // no record, and it never appears in a vector.
        if site == RowMerge.unknown.site { return 0 }
        if let record = bySite[site] { return record.number }
        let record = SyncSiteRecord(id: site, number: (records.map(\.number).max() ?? 0) + 1)
        records.append(record)
        byNumber[record.number] = record
        bySite[site] = record
        return record.number
    }

    // MARK: Row states in the metadata

    /// `state` in the form `SharkSyncState_<Entity>.state` stores: the causal length, the base version,
    /// then each override with its column name, sites by number.
    mutating func encode(_ state: RowState) -> Data {
        var writer = ByteWriter(capacity: 16)
        writer.append(varint: state.causalLength)
        append(state.base, to: &writer)
        writer.append(varint: state.overrides.count)
        for (column, version) in state.overrides.sorted(by: { $0.key < $1.key }) {
            writer.append(string: column)
            append(version, to: &writer)
        }
        // Merge policies' state, only when there is some: states of other columns stay as
        // they were written before policies existed.
        guard state.hasPolicyState else { return Data(writer.bytes) }
        writer.append(varint: state.counters.count)
        for (column, entries) in state.counters.sorted(by: { $0.key < $1.key }) {
            writer.append(string: column)
            writer.append(varint: entries.count)
            for entry in entries {
                writer.append(varint: number(of: entry.site))
                writer.append(zigzag: entry.total)
                writer.append(varint: entry.sequence)
            }
        }
        writer.append(varint: state.registers.count)
        for (column, value) in state.registers.sorted(by: { $0.key < $1.key }) {
            writer.append(string: column)
            writer.append(value: value)
        }
        // Resolvers' contributions, only when there are some (states written before
        // resolvers existed end with the registers).
        guard !state.contributions.isEmpty else { return Data(writer.bytes) }
        writer.append(varint: state.contributions.count)
        for (column, entries) in state.contributions.sorted(by: { $0.key < $1.key }) {
            writer.append(string: column)
            writer.append(varint: entries.count)
            for entry in entries {
                writer.append(varint: number(of: entry.site))
                writer.append(varint: entry.sequence)
            }
        }
        return Data(writer.bytes)
    }

    private mutating func append(_ version: ColumnVersion, to writer: inout ByteWriter) {
        writer.append(varint: version.causalLength)
        writer.append(varint: version.timestamp)
        writer.append(varint: number(of: version.site))
        writer.append(varint: version.sequence)
    }

    func decode(_ data: Data) throws(SyncError) -> RowState {
        var reader = ByteReader(Array(data), context: "sync metadata", isMetadata: true)
        let causalLength = try reader.varint()
        let base = try version(from: &reader)
        var state = RowState(causalLength: causalLength, base: base)
        let count = try reader.count(limit: reader.remaining)
        for _ in 0..<count {
            let column = try reader.string()
            state.overrides[column] = try version(from: &reader)
        }
        guard !reader.isAtEnd else { return state }
        for _ in 0..<(try reader.count(limit: reader.remaining)) {
            let column = try reader.string()
            var entries: [CounterEntry] = []
            for _ in 0..<(try reader.count(limit: reader.remaining)) {
                let site = try site(number: try reader.count(limit: Int.max))
                entries.append(CounterEntry(site: site, total: try reader.zigzag(), sequence: try reader.varint()))
            }
            state.counters[column] = entries
        }
        for _ in 0..<(try reader.count(limit: reader.remaining)) {
            let column = try reader.string()
            state.registers[column] = try reader.value()
        }
        guard !reader.isAtEnd else { return state }
        for _ in 0..<(try reader.count(limit: reader.remaining)) {
            let column = try reader.string()
            var entries: [Contribution] = []
            for _ in 0..<(try reader.count(limit: reader.remaining)) {
                let site = try site(number: try reader.count(limit: Int.max))
                entries.append(Contribution(site: site, sequence: try reader.varint()))
            }
            state.contributions[column] = entries
        }
        return state
    }

    private func version(from reader: inout ByteReader) throws(SyncError) -> ColumnVersion {
        let causalLength = try reader.varint()
        let timestamp = try reader.varint()
        let site = try site(number: try reader.count(limit: Int.max))
        return ColumnVersion(
            causalLength: causalLength, timestamp: timestamp, site: site, sequence: try reader.varint())
    }
}

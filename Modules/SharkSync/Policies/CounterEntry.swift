import Foundation
@_spi(SharkReplication) import SharkORM

/// One site's running total of what it added to a ``MergePolicy/counter(_:)`` column of one
/// row, in one incarnation of the row. Only that site writes it, each time with the sequence
/// number of its transaction, so of two entries of a site the one with the greater sequence
/// is the later: merging keeps it, and the column's value is the sum of the entries.
struct CounterEntry: Hashable, Sendable {
    var site: UUID
    var total: Int64
    var sequence: UInt64
}

/// The entries of a counter as a change log carries them: the column's value is a blob of
/// `varint` count, then per entry `uuid` site · `zigzag` total · `varint` sequence, sites in
/// byte order (docs/sync-format.md, "Merge policies").
enum CounterEntries {
    static func encode(_ entries: [CounterEntry]) -> Value {
        var writer = ByteWriter(capacity: 4 + entries.count * 26)
        writer.append(varint: entries.count)
        for entry in entries.sorted(by: { SiteOrder.precedes($0.site, $1.site) }) {
            writer.append(uuid: entry.site)
            writer.append(zigzag: entry.total)
            writer.append(varint: entry.sequence)
        }
        return .blob(Data(writer.bytes))
    }

    /// The entries a file's value holds; a value of another form is damage.
    static func decode(_ value: Value) throws(SyncError) -> [CounterEntry] {
        guard case .blob(let data) = value else {
            throw .corrupt(.malformedContent, "a counter's value is not a blob of totals")
        }
        var reader = ByteReader(Array(data), context: "a counter's totals")
        var entries: [CounterEntry] = []
        var seen = Set<UUID>()
        for _ in 0..<(try reader.count(limit: reader.remaining / 18)) {
            let site = try reader.uuid()
            let total = try reader.zigzag()
            let sequence = try reader.varint()
            guard sequence <= ChangeLogFormat.maximumCounter else {
                throw reader.corrupt("a counter's sequence number is beyond the range a replica counts to")
            }
            guard seen.insert(site).inserted else { throw reader.corrupt("a counter names a site twice") }
            entries.append(CounterEntry(site: site, total: total, sequence: sequence))
        }
        guard reader.isAtEnd else { throw reader.corrupt("bytes follow a counter's totals", kind: .trailingBytes) }
        return entries
    }

    /// Each site's later entry of `local` and `incoming`: for one site, the greater sequence
    /// (equal sequences with different totals come only from a damaged file: the greater
    /// total, so that every replica keeps the same).
    static func merge(_ local: [CounterEntry], _ incoming: [CounterEntry]) -> [CounterEntry] {
        var bySite = Dictionary(uniqueKeysWithValues: local.map { ($0.site, $0) })
        for entry in incoming {
            guard let mine = bySite[entry.site] else {
                bySite[entry.site] = entry
                continue
            }
            if entry.sequence > mine.sequence || (entry.sequence == mine.sequence && entry.total > mine.total) {
                bySite[entry.site] = entry
            }
        }
        return bySite.values.sorted { SiteOrder.precedes($0.site, $1.site) }
    }

    /// The counter's value: the sum of the totals, or an error when it does not fit 64 bits.
    static func sum(_ entries: [CounterEntry], column: String) throws(SyncError) -> Int64 {
        var sum: Int64 = 0
        for entry in entries {
            let (next, overflow) = sum.addingReportingOverflow(entry.total)
            guard !overflow else {
                throw .mergePolicy(.counterOverflow, "the counter \(column) would no longer fit 64 bits")
            }
            sum = next
        }
        return sum
    }
}

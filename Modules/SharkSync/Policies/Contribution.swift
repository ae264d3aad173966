import Foundation
@_spi(SharkReplication) import SharkORM

/// One site's latest write that a resolver column's value includes (see
/// `MergePolicy.resolved(_:as:by:)`): the value of such a column may be a join of
/// concurrent writes, stamped with the greatest version among them, so its version alone
/// would let a peer that has that one write believe it has the value. The contributions name
/// every write joined in (one per site, its latest), so an export sends the value to any peer
/// that lacks one of them, and a merge knows whether one value already includes the other.
struct Contribution: Hashable, Sendable {
    var site: UUID
    var sequence: UInt64
}

/// A resolver column's state as a change log carries it (its file value): a blob of `varint`
/// count, then per contribution `uuid` site · `varint` sequence, sites in byte order, then the
/// value in the file's value encoding (docs/sync-format.md, "Merge policies").
enum ResolvedValue {
    static func encode(_ contributions: [Contribution], value: Value) -> Value {
        var writer = ByteWriter(capacity: 8 + contributions.count * 20)
        writer.append(varint: contributions.count)
        for contribution in contributions.sorted(by: { SiteOrder.precedes($0.site, $1.site) }) {
            writer.append(uuid: contribution.site)
            writer.append(varint: contribution.sequence)
        }
        writer.append(value: value)
        return .blob(Data(writer.bytes))
    }

    /// The contributions and value a file's value holds; a value of another form is damage.
    static func decode(_ value: Value) throws(SyncError) -> (contributions: [Contribution], value: Value) {
        guard case .blob(let data) = value else {
            throw .corrupt(.malformedContent, "a resolver column's value is not a blob of its contributions and value")
        }
        var reader = ByteReader(Array(data), context: "a resolver column's value")
        var contributions: [Contribution] = []
        var seen = Set<UUID>()
        for _ in 0..<(try reader.count(limit: reader.remaining / 17)) {
            let site = try reader.uuid()
            let sequence = try reader.varint()
            guard sequence <= ChangeLogFormat.maximumCounter else {
                throw reader.corrupt("a contribution's sequence number is beyond the range a replica counts to")
            }
            guard seen.insert(site).inserted else { throw reader.corrupt("a resolver column names a site twice") }
            contributions.append(Contribution(site: site, sequence: sequence))
        }
        let value = try reader.value()
        guard reader.isAtEnd else {
            throw reader.corrupt("bytes follow a resolver column's value", kind: .trailingBytes)
        }
        return (contributions, value)
    }

    /// Whether `a` includes every write `b` does: for each site of `b`, `a` has that site at
    /// a sequence at least as great.
    static func covers(_ a: [Contribution], _ b: [Contribution]) -> Bool {
        b.allSatisfy { entry in a.contains { $0.site == entry.site && $0.sequence >= entry.sequence } }
    }

    /// Each site's later contribution of `a` and `b`, sites in byte order.
    static func union(_ a: [Contribution], _ b: [Contribution]) -> [Contribution] {
        var bySite = Dictionary(a.map { ($0.site, $0.sequence) }, uniquingKeysWith: max)
        for entry in b { bySite[entry.site] = max(bySite[entry.site] ?? 0, entry.sequence) }
        return bySite.map { Contribution(site: $0.key, sequence: $0.value) }.sorted {
            SiteOrder.precedes($0.site, $1.site)
        }
    }
}

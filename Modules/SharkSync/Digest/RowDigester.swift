import Crypto
import Foundation
@_spi(SharkReplication) import SharkORM

/// Hashes the live rows of one entity in the canonical encoding a ``SyncDigest`` is defined
/// over (docs/sync-format.md, "The digest frame"):
///
/// ```
/// string   entity name
/// value    key
/// varint   causal length
/// varint   version count V, then V × (varint causal length · varint timestamp · uuid site ·
///          varint sequence), in the order the columns below first use them
/// varint   column count, then per column, in the byte order of their names:
///          string name · value · varint position of its version among the V
/// ```
///
/// Most rows' columns share one version: it is written once, so a row of a few columns
/// hashes as two SHA-256 blocks rather than one more per column. Values are the change
/// log's: a real NaN (which no store keeps: NaN is stored as NULL) would hash as the one
/// quiet NaN `0x7FF8000000000000`, −0.0 keeps its sign, and a Decimal is its stored text, one
/// per number. A row hashes the same whatever the order its columns come in, so two replicas
/// whose tables order columns differently agree.
struct RowDigester {
    /// The entity's name, encoded.
    private let prefix: [UInt8]
    /// Each column's name, encoded, by position.
    private let names: [[UInt8]]
    /// Column positions in the byte order of their names.
    private let order: [Int]

    init(entity: ChangeLogEntity) {
        var prefix = ByteWriter()
        prefix.append(string: entity.name)
        self.prefix = prefix.bytes
        names = entity.columns.map { column in
            var name = ByteWriter()
            name.append(string: column.name)
            return name.bytes
        }
        order = entity.columns.indices.sorted {
            entity.columns[$0].name.utf8.lexicographicallyPrecedes(entity.columns[$1].name.utf8)
        }
    }

    /// Adds the live rows among `rows` to `sum`; returns how many there were.
    func add(_ rows: some Collection<RowChange>, to sum: inout DigestSum) -> Int {
        var buffer = ByteWriter(capacity: 256)
        var slots = [Int](repeating: -1, count: names.count)
        var count = 0
        for row in rows where !row.isRemoval {
            buffer.reset()
            encode(row, into: &buffer, slots: &slots)
            sum.add(SHA256.hash(data: buffer.bytes))
            count += 1
        }
        return count
    }

    /// The canonical bytes of one live row.
    func encode(_ row: RowChange, into buffer: inout ByteWriter, slots: inout [Int]) {
        buffer.append(prefix)
        buffer.append(value: row.key)
        buffer.append(varint: row.causalLength)
        for (offset, change) in zip(row.values.indices, row.values) where change.column < slots.count {
            slots[change.column] = offset
        }
        // The versions in the order the columns (by name) first use them: the row's own
        // numbering of them, which two replicas holding the same row share.
        var used: [Int] = []
        var columns = 0
        for column in order where slots[column] >= 0 {
            columns += 1
            let version = row.values[slots[column]].version
            if !used.contains(version) { used.append(version) }
        }
        buffer.append(varint: used.count)
        for index in used {
            let version = row.versions[index]
            buffer.append(varint: version.causalLength)
            buffer.append(varint: version.timestamp)
            buffer.append(uuid: version.site)
            buffer.append(varint: version.sequence)
        }
        buffer.append(varint: columns)
        for column in order where slots[column] >= 0 {
            let change = row.values[slots[column]]
            slots[column] = -1
            buffer.append(names[column])
            if case .real(let real) = change.value, real.isNaN {
                buffer.append(value: .real(Double(bitPattern: 0x7FF8_0000_0000_0000)))
            } else {
                buffer.append(value: change.value)
            }
            buffer.append(varint: used.count == 1 ? 0 : used.firstIndex(of: change.version)!)
        }
    }
}

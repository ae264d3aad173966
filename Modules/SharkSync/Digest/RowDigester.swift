import Crypto
import Foundation
@_spi(SharkReplication) import SharkORM

/// Hashes the live rows of one entity in the canonical encoding a ``SyncDigest`` is defined
/// over (docs/sync-format.md, "Replica digest"):
///
/// ```
/// string   entity name
/// value    key
/// varint   causal length
/// varint   column count, then per column, in the byte order of their names:
///          string name · value · varint causal length · varint timestamp · uuid site · varint sequence
/// ```
///
/// Values are the change log's: a real NaN (which no store keeps: NaN is stored as NULL) would
/// hash as the one quiet NaN `0x7FF8000000000000`, −0.0 keeps its sign, and a Decimal is its
/// stored text, one per number. A row hashes the same whatever the order its columns come in,
/// so two replicas whose tables order columns differently agree.
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
        buffer.append(varint: row.values.count)
        for (offset, change) in zip(row.values.indices, row.values) where change.column < slots.count {
            slots[change.column] = offset
        }
        for column in order where slots[column] >= 0 {
            let change = row.values[slots[column]]
            slots[column] = -1
            buffer.append(names[column])
            if case .real(let real) = change.value, real.isNaN {
                buffer.append(value: .real(Double(bitPattern: 0x7FF8_0000_0000_0000)))
            } else {
                buffer.append(value: change.value)
            }
            let version = row.versions[change.version]
            buffer.append(varint: version.causalLength)
            buffer.append(varint: version.timestamp)
            buffer.append(uuid: version.site)
            buffer.append(varint: version.sequence)
        }
    }
}

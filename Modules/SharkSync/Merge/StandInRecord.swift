import Foundation
@_spi(SharkReplication) import SharkORM

/// One row's part in a contested unique value (see ``UniqueClaims``): either a row that claims
/// the value but holds a stand-in (`holds` false: its claim is kept here, and exported in
/// place of the stand-in), or the row that holds the value while others wait for it (`holds`
/// true: so that a local change of that row finds the waiting ones). A value nobody contests
/// has no record; a row has at most one per unique index.
@Model(entity: "SharkSyncStandIn")
final class SyncStandInRecord {
    /// The entity, the index and the row's key (see ``identifier(entity:index:key:)``).
    var id: String
    var entity: String = ""
    /// The unique index's name.
    var index: String = ""
    /// The row's key, in its tagged encoding.
    var key: Data = Data()
    /// The entity, the index and the claimed values (see ``claimIdentifier(entity:index:values:)``):
    /// what finds every row of one contested value.
    var claim: String = ""
    /// The claimed values, in the index's column order, each in its tagged encoding.
    var values: Data = Data()
    /// Whether the row holds the value (the others claiming it wait).
    var holds: Bool = false

    static let indexes: [Index<SyncStandInRecord>] = [.on(\.claim), .on(\.entity)]

    init(entity: String, index: String, key: Value, values: [Value], holds: Bool) {
        id = Self.identifier(entity: entity, index: index, key: key)
        self.entity = entity
        self.index = index
        self.key = Data(key.encodedKey)
        self.values = Self.encode(values)
        claim = Self.claimIdentifier(entity: entity, index: index, values: values)
        self.holds = holds
    }

    static func identifier(entity: String, index: String, key: Value) -> String {
        entity + "\u{1F}" + index + "\u{1F}" + hexadecimal(key.encodedKey)
    }

    static func claimIdentifier(entity: String, index: String, values: [Value]) -> String {
        entity + "\u{1F}" + index + "\u{1F}" + hexadecimal(encode(values))
    }

    private static func encode(_ values: [Value]) -> Data {
        var writer = ByteWriter()
        for value in values { writer.append(value: value) }
        return Data(writer.bytes)
    }

    /// The row's key, decoded.
    func decodedKey() throws -> Value {
        var reader = ByteReader(Array(key), context: "a stand-in record", isMetadata: true)
        return try reader.value()
    }

    /// The claimed values, decoded.
    func decodedValues() throws -> [Value] {
        var reader = ByteReader(Array(values), context: "a stand-in record", isMetadata: true)
        var decoded: [Value] = []
        while !reader.isAtEnd { decoded.append(try reader.value()) }
        return decoded
    }
}

import Foundation
@_spi(SharkReplication) import SharkORM

/// Appends the primitive encodings of the change-log format (docs/sync-format.md): unsigned
/// LEB128 varints, zigzag varints for signed numbers, little-endian fixed-width integers,
/// length-prefixed bytes and strings, and tagged `Value`s.
struct ByteWriter {
    private(set) var bytes: [UInt8] = []

    init(capacity: Int = 0) { bytes.reserveCapacity(capacity) }

    mutating func append(byte: UInt8) { bytes.append(byte) }

    /// Empties the buffer, keeping its capacity for the next use.
    mutating func reset() { bytes.removeAll(keepingCapacity: true) }

    mutating func append(_ other: some Collection<UInt8>) { bytes.append(contentsOf: other) }

    mutating func append(varint value: UInt64) {
        var rest = value
        while rest >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
    }

    mutating func append(varint value: Int) { append(varint: UInt64(value)) }

    /// Signed numbers near zero (either side) take one byte.
    mutating func append(zigzag value: Int64) {
        append(varint: UInt64(bitPattern: (value << 1) ^ (value >> 63)))
    }

    mutating func append(uint16 value: UInt16) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func append(uint32 value: UInt32) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func append(uuid: UUID) {
        withUnsafeBytes(of: uuid.uuid) { bytes.append(contentsOf: $0) }
    }

    mutating func append(lengthPrefixed data: some Collection<UInt8>) {
        append(varint: data.count)
        bytes.append(contentsOf: data)
    }

    mutating func append(string: String) {
        var text = string
        text.withUTF8 { append(lengthPrefixed: $0) }  // no copy of the bytes: a native string is UTF-8
    }

    /// A tag byte (0 NULL, 1 integer, 2 real, 3 text, 4 blob), then the payload.
    mutating func append(value: Value) {
        switch value {
        case .null:
            bytes.append(0)
        case .integer(let number):
            bytes.append(1)
            append(zigzag: number)
        case .real(let number):
            bytes.append(2)
            withUnsafeBytes(of: number.bitPattern.littleEndian) { bytes.append(contentsOf: $0) }
        case .text(let text):
            bytes.append(3)
            append(string: text)
        case .blob(let data):
            bytes.append(4)
            append(varint: data.count)
            data.withUnsafeBytes { bytes.append(contentsOf: $0) }
        }
    }
}

/// Reads what ``ByteWriter`` wrote, from untrusted bytes: every read checks the bounds and
/// throws ``SyncError/corrupt(_:)`` rather than reading past the end, and every length is
/// checked against what is left before anything is allocated for it.
struct ByteReader {
    private let bytes: [UInt8]
    private(set) var offset: Int
    private let end: Int
    /// Where the reader is, for error messages.
    private let context: String
    /// Whether the bytes are the store's own sync metadata rather than a change log: damage
    /// there is ``SyncError/CorruptReason/damagedMetadata`` whatever its kind.
    private let isMetadata: Bool

    init(_ bytes: [UInt8], context: String, isMetadata: Bool = false) {
        self.bytes = bytes
        self.offset = 0
        self.end = bytes.count
        self.context = context
        self.isMetadata = isMetadata
    }

    var isAtEnd: Bool { offset == end }
    var remaining: Int { end - offset }

    /// The error for what is wrong at the current offset: `kind` for a change log (a field
    /// the format does not allow, by default), damaged metadata for the store's own bytes.
    func corrupt(_ reason: String, kind: SyncError.CorruptReason = .malformedContent) -> SyncError {
        .corrupt(isMetadata ? .damagedMetadata : kind, "\(context): \(reason) (at byte \(offset))")
    }

    mutating func byte() throws(SyncError) -> UInt8 {
        guard offset < end else { throw corrupt("ends early", kind: .truncated) }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func bytes(_ count: Int) throws(SyncError) -> ArraySlice<UInt8> {
        guard count >= 0, count <= remaining else { throw corrupt("ends early", kind: .truncated) }
        defer { offset += count }
        return bytes[offset..<offset + count]
    }

    mutating func varint() throws(SyncError) -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let next = try byte()
            guard shift < 64, shift < 63 || next <= 1 else { throw corrupt("a number overflows 64 bits") }
            result |= UInt64(next & 0x7F) << shift
            if next & 0x80 == 0 { return result }
            shift += 7
        }
    }

    /// A varint that must fit an `Int` and not exceed `limit` (a count or a length).
    mutating func count(limit: Int) throws(SyncError) -> Int {
        let value = try varint()
        guard limit >= 0, value <= UInt64(limit) else { throw corrupt("a count of \(value) is more than \(limit)") }
        return Int(value)
    }

    mutating func zigzag() throws(SyncError) -> Int64 {
        let raw = try varint()
        return Int64(bitPattern: raw >> 1) ^ -Int64(bitPattern: raw & 1)
    }

    mutating func uint16() throws(SyncError) -> UInt16 {
        let slice = try bytes(2)
        return slice.reversed().reduce(0) { $0 << 8 | UInt16($1) }
    }

    mutating func uint32() throws(SyncError) -> UInt32 {
        let slice = try bytes(4)
        return slice.reversed().reduce(0) { $0 << 8 | UInt32($1) }
    }

    mutating func uuid() throws(SyncError) -> UUID {
        let slice = Array(try bytes(16))
        return UUID(
            uuid: (
                slice[0], slice[1], slice[2], slice[3], slice[4], slice[5], slice[6], slice[7], slice[8], slice[9],
                slice[10], slice[11], slice[12], slice[13], slice[14], slice[15]
            ))
    }

    /// A length prefix: at most the bytes that follow it (a limit taken before reading the
    /// prefix would let a length run past the end by the prefix's own size).
    private mutating func length() throws(SyncError) -> Int {
        let value = try varint()
        guard value <= UInt64(remaining) else {
            throw corrupt("a length of \(value) runs past the end, \(remaining) bytes on", kind: .truncated)
        }
        return Int(value)
    }

    mutating func lengthPrefixed() throws(SyncError) -> ArraySlice<UInt8> {
        try bytes(length())
    }

    mutating func string() throws(SyncError) -> String {
        let count = try length()
        let range = offset..<offset + count
        let text = bytes.withUnsafeBufferPointer { whole -> String? in
            let slice = UnsafeBufferPointer(rebasing: whole[range])
            // ASCII is valid UTF-8 as it is: most names and short texts take the fast way.
            if !slice.contains(where: { $0 >= 0x80 }) { return String(decoding: slice, as: UTF8.self) }
            return String(validating: slice, as: UTF8.self)
        }
        guard let text else { throw corrupt("a string is not UTF-8") }
        offset += count
        return text
    }

    /// Length-prefixed bytes as `Data`, copied once.
    mutating func data() throws(SyncError) -> Data {
        let count = try length()
        let range = offset..<offset + count
        offset += count
        return bytes.withUnsafeBufferPointer { whole in
            guard let base = whole.baseAddress, !range.isEmpty else { return Data() }
            return Data(bytes: base + range.lowerBound, count: range.count)
        }
    }

    mutating func value() throws(SyncError) -> Value {
        switch try byte() {
        case 0: return .null
        case 1: return .integer(try zigzag())
        case 2:
            let slice = try bytes(8)
            let real = Double(bitPattern: slice.reversed().reduce(0) { $0 << 8 | UInt64($1) })
            // No store holds a NaN real (a model's NaN is NULL): a file that carries one was
            // not written by SharkORM.
            guard !real.isNaN else { throw corrupt("a real NaN, which no store holds") }
            return .real(real)
        case 3: return .text(try string())
        case 4: return .blob(try data())
        case let tag: throw corrupt("unknown value tag \(tag)")
        }
    }
}

extension Value {
    /// The key's tagged encoding, as a change log writes it.
    var encodedKey: [UInt8] {
        var writer = ByteWriter()
        writer.append(value: self)
        return writer.bytes
    }
}

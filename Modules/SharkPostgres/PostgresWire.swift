import Foundation
import NIOCore
import PostgresNIO
@_spi(SharkDriver) import SharkORM

/// One value as a statement parameter, typed by the compiler or the column it is written to
/// (postgres-nio sends the type with it, so the SQL text needs no cast).
struct WireValue: PostgresDynamicTypeEncodable {
    enum Payload {
        case bigint(Int64)
        case double(Double)
        case boolean(Bool)
        case text(String)
        case bytes(Data)
        case uuid(UUID)
        /// A decimal, sent in PostgreSQL's text form ("-12.5").
        case numeric(String)
        /// Text whose type the server infers from where the parameter stands (raw SQL's
        /// text arguments: `WHERE id = $1` with a UUID's text, `age = $1` with "36").
        case untypedText(String)
    }

    let payload: Payload

    var psqlType: PostgresDataType {
        switch payload {
        case .bigint: return .int8
        case .double: return .float8
        case .boolean: return .bool
        case .text: return .text
        case .bytes: return .bytea
        case .uuid: return .uuid
        case .numeric: return .numeric
        case .untypedText: return .null  // OID 0: unspecified, inferred by the server
        }
    }

    var psqlFormat: PostgresFormat {
        switch payload {
        case .numeric, .untypedText: return .text
        default: return .binary
        }
    }

    func encode<JSONEncoder: PostgresJSONEncoder>(
        into buffer: inout ByteBuffer, context: PostgresEncodingContext<JSONEncoder>
    ) {
        switch payload {
        case .bigint(let integer): buffer.writeInteger(integer)
        case .double(let real): buffer.writeInteger(real.bitPattern)
        case .boolean(let flag): buffer.writeInteger(flag ? 1 as UInt8 : 0)
        case .text(let text): buffer.writeString(text)
        case .bytes(let bytes): buffer.writeBytes(bytes)
        case .uuid(let uuid): buffer.writeBytes(withUnsafeBytes(of: uuid.uuid) { Array($0) })
        case .numeric(let text), .untypedText(let text): buffer.writeString(text)
        }
    }
}

/// Values in and out of PostgreSQL's types, the same `Value` the other drivers store.
enum PostgresValues {
    /// The parameter for `value` written to (or compared with) a column of `type`; nil for
    /// NULL. A value that the type cannot hold is ``SharkError/invalidValue(_:)``.
    static func wire(_ value: Value, as type: PostgresType, column: String) throws -> WireValue? {
        switch (value, type) {
        case (.null, _): return nil
        case (.integer(let integer), .bigint), (.integer(let integer), .unknown):
            return WireValue(payload: .bigint(integer))
        case (.integer(let integer), .boolean): return WireValue(payload: .boolean(integer != 0))
        case (.integer(let integer), .double): return WireValue(payload: .double(Double(integer)))
        case (.integer(let integer), .numeric): return WireValue(payload: .numeric(String(integer)))
        case (.real(let real), .double), (.real(let real), .unknown): return WireValue(payload: .double(real))
        case (.real(let real), .numeric) where real.isFinite:
            return WireValue(payload: .numeric(exactText(of: real)))
        case (.real(let real), .bigint) where real == real.rounded() && abs(real) < 0x1p63:
            return WireValue(payload: .bigint(Int64(real)))
        case (.text(let text), .numeric):
            guard let decimal = DecimalText.decode(text) else {
                throw SharkError.invalidValue(
                    .init(.doesNotFitColumn, "\(column) holds decimals; \(Value.text(text)) is not one"))
            }
            return WireValue(payload: .numeric(plainText(of: decimal)))
        case (.text(let text), .text), (.text(let text), .unknown):
            return WireValue(payload: .text(text))
        case (.blob(let bytes), .uuid):
            guard bytes.count == 16 else {
                throw SharkError.invalidValue(
                    .init(.doesNotFitColumn, "\(column) holds UUIDs (16 bytes), not \(bytes.count) bytes"))
            }
            return WireValue(payload: .uuid(UUID(uuid: bytes.withUnsafeBytes { $0.loadUnaligned(as: uuid_t.self) })))
        case (.blob(let bytes), .bytea), (.blob(let bytes), .unknown): return WireValue(payload: .bytes(bytes))
        default:
            throw SharkError.invalidValue(
                .init(.doesNotFitColumn, "\(column) is \(type.castName) on PostgreSQL; it cannot hold \(value)"))
        }
    }

    /// A finite `Double`'s decimal text: a whole one within 64 bits exactly, any other its
    /// shortest form (docs/values.md: a real meets a decimal as its shortest decimal form; and
    /// no integer lies between that form and the double, so comparisons with integers come
    /// out exact too).
    static func exactText(of real: Double) -> String {
        if real == real.rounded(), real >= -0x1p63, real < 0x1p63 { return String(Int64(real)) }
        return "\(real)"
    }

    /// A `Decimal` as PostgreSQL's numeric input reads it.
    static func plainText(of decimal: Decimal) -> String {
        var decimal = decimal
        return NSDecimalString(&decimal, Locale(identifier: "en_US_POSIX"))
    }

    /// The value of one cell, as the other drivers would give it.
    static func value(of cell: PostgresCell, logicalType: LogicalType? = nil) throws -> Value {
        guard var bytes = cell.bytes else { return .null }
        switch cell.dataType {
        case .int8: return .integer(bytes.readInteger(as: Int64.self) ?? 0)
        case .int4: return .integer(Int64(bytes.readInteger(as: Int32.self) ?? 0))
        case .int2: return .integer(Int64(bytes.readInteger(as: Int16.self) ?? 0))
        case .float8: return .real(Double(bitPattern: bytes.readInteger(as: UInt64.self) ?? 0))
        case .float4: return .real(Double(Float(bitPattern: bytes.readInteger(as: UInt32.self) ?? 0)))
        case .bool: return .integer(Int64(bytes.readInteger(as: UInt8.self) ?? 0) == 0 ? 0 : 1)
        case .text, .varchar, .name, .bpchar, .json:
            return .text(bytes.readString(length: bytes.readableBytes) ?? "")
        case .jsonb:
            // Binary jsonb: a version byte (1), then the text.
            _ = bytes.readInteger(as: UInt8.self)
            return .text(bytes.readString(length: bytes.readableBytes) ?? "")
        case .oid: return .integer(Int64(bytes.readInteger(as: UInt32.self) ?? 0))
        case .char: return .text(bytes.readString(length: bytes.readableBytes) ?? "")
        case .bytea: return .blob(Data(bytes.readableBytesView))
        case .uuid: return .blob(Data(bytes.readableBytesView))
        // What a function that returns nothing returns (`SELECT pg_sleep(1)`).
        case .void: return .null
        case .numeric:
            guard let text = numericText(&bytes) else { return .null }
            guard let decimal = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) else {
                throw SharkError.decoding(
                    reason: .init(.invalidDecimal, "\(cell.columnName) holds \(text), not a decimal"))
            }
            return .text(logicalType == .decimal ? plainText(of: decimal) : DecimalText.encode(decimal))
        default:
            throw SharkError.decoding(
                reason:
                    .init(
                        .wrongStorageClass,
                        "\(cell.columnName) is of PostgreSQL type \(cell.dataType), which SharkORM does not read "
                            + "(in raw SQL, cast it: \(cell.columnName)::text)"))
        }
    }

    /// A binary `numeric` as decimal text; nil for NaN and the infinities (no `Decimal`).
    static func numericText(_ bytes: inout ByteBuffer) -> String? {
        guard let count = bytes.readInteger(as: Int16.self), let weight = bytes.readInteger(as: Int16.self),
            let sign = bytes.readInteger(as: UInt16.self), bytes.readInteger(as: Int16.self) != nil
        else { return nil }
        if sign != 0 && sign != 0x4000 { return nil }
        var digits = ""
        for _ in 0..<Int(count) {
            let group = String(bytes.readInteger(as: Int16.self) ?? 0)
            digits += String(repeating: "0", count: 4 - group.count) + group
        }
        if digits.isEmpty { return "0" }
        // The point falls (weight + 1) groups of four digits from the start.
        let point = (Int(weight) + 1) * 4
        var whole: String
        var fraction: String
        if point <= 0 {
            whole = "0"
            fraction = String(repeating: "0", count: -point) + digits
        } else if point >= digits.count {
            whole = digits + String(repeating: "0", count: point - digits.count)
            fraction = ""
        } else {
            whole = String(digits.prefix(point))
            fraction = String(digits.dropFirst(point))
        }
        while whole.count > 1 && whole.hasPrefix("0") { whole.removeFirst() }
        while fraction.hasSuffix("0") { fraction.removeLast() }
        return (sign == 0x4000 ? "-" : "") + whole + (fraction.isEmpty ? "" : "." + fraction)
    }
}

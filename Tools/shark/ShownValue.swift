import Foundation
@_spi(SharkReplication) import SharkORM

/// A stored value shown for what its column's logical type says it is: a UUID's 16 bytes as
/// the UUID, a date's seconds as an ISO 8601 date, a decimal's sortable text as the number.
enum ShownValue {
    case null
    case bool(Bool)
    case integer(Int64)
    case unsigned(UInt64)
    case real(Double)
    case text(String)
    /// JSON text stored by a `Codable` property: embedded as JSON in `--format json`.
    case json(String)
    case bytes(Data)

    /// `value` as `column` holds it; a value that does not decode as its logical type is
    /// shown as stored.
    init(_ value: Value, column: ColumnSchema?) {
        self.init(value, logicalType: column?.logicalType)
    }

    init(_ value: Value, logicalType: LogicalType?) {
        switch (logicalType, value) {
        case (_, .null): self = .null
        case (.bool?, .integer(let integer)): self = .bool(integer != 0)
        case (.unsignedInteger?, .integer(let integer)): self = .unsigned(UInt64(bitPattern: integer))
        case (.date?, .real(let seconds)) where Self.datesShown.contains(seconds):
            self = .text(Self.dateText(Date(timeIntervalSinceReferenceDate: seconds)))
        case (.date?, .integer(let seconds)) where Self.datesShown.contains(Double(seconds)):
            self = .text(Self.dateText(Date(timeIntervalSinceReferenceDate: Double(seconds))))
        case (.uuid?, .blob(let bytes)) where bytes.count == 16:
            self = (try? UUID(bytes: bytes)).map { .text($0.uuidString) } ?? .bytes(bytes)
        case (.sortableDecimal?, .text(let text)):
            self = DecimalText.decode(text).map { .text("\($0)") } ?? .text(text)
        case (.json?, .text(let text)): self = .json(text)
        case (_, .integer(let integer)): self = .integer(integer)
        case (_, .real(let real)): self = .real(real)
        case (_, .text(let text)): self = .text(text)
        case (_, .blob(let bytes)): self = .bytes(bytes)
        }
    }

    /// Seconds since 2001 of the dates shown as dates: years 1 to 9999, which ISO 8601 writes
    /// with four digits. Others show as the stored number rather than a clamped date.
    static let datesShown = -63_113_904_000.0...252_423_993_599.0

    static func dateText(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }

    /// The value in a table cell or a CSV field (NULL is empty in CSV: see ``csvField``).
    var text: String {
        switch self {
        case .null: return "NULL"
        case .bool(let value): return value ? "true" : "false"
        case .integer(let value): return "\(value)"
        case .unsigned(let value): return "\(value)"
        case .real(let value): return "\(value)"
        case .text(let value), .json(let value): return value
        case .bytes(let bytes): return "x'" + hexadecimal(bytes) + "'"
        }
    }

    /// Whether a table right-aligns it.
    var isNumber: Bool {
        switch self {
        case .integer, .unsigned, .real: return true
        default: return false
        }
    }

    /// The value as a CSV field (RFC 4180): quoted when it holds a comma, a quote or a line
    /// break; NULL as an empty field.
    var csvField: String {
        if case .null = self { return "" }
        let text = self.text
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0.isNewline }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// The value in JSON output: numbers as numbers, JSON columns embedded, bytes as hex.
    var json: JSONText {
        switch self {
        case .null: return .null
        case .bool(let value): return .bool(value)
        case .integer(let value): return .integer(value)
        case .unsigned(let value): return .integer(value)
        case .real(let value): return .real(value)
        case .text(let value): return .string(value)
        case .json(let text):
            guard let data = text.data(using: .utf8),
                (try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])) != nil
            else { return .string(text) }
            return .number(text)  // valid JSON, embedded as it is
        case .bytes(let bytes): return .string(hexadecimal(bytes))
        }
    }
}

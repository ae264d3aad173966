import Foundation

/// JSON for scripts, with keys in the order the command gives them (a table's column order),
/// which `JSONSerialization` does not keep.
indirect enum JSONText {
    case null
    case bool(Bool)
    /// A number, already as JSON text.
    case number(String)
    case string(String)
    case array([JSONText])
    case object([(String, JSONText)])

    static func integer(_ value: some BinaryInteger) -> JSONText { .number("\(value)") }

    /// A finite real as the shortest text that reads back exactly; non-finite as null.
    static func real(_ value: Double) -> JSONText { value.isFinite ? .number("\(value)") : .null }

    /// The whole value, pretty-printed (two-space indents), with a final newline.
    var rendered: String {
        var text = ""
        write(to: &text, indent: 0)
        return text + "\n"
    }

    /// The value on one line (JSON Lines).
    var compact: String {
        var text = ""
        write(to: &text, indent: nil)
        return text
    }

    private func write(to text: inout String, indent: Int?) {
        switch self {
        case .null: text += "null"
        case .bool(let value): text += value ? "true" : "false"
        case .number(let number): text += number
        case .string(let string): Self.quote(string, into: &text)
        case .array(let items):
            guard !items.isEmpty else {
                text += "[]"
                return
            }
            text += "["
            for (index, item) in items.enumerated() {
                if index > 0 { text += "," }
                Self.newline(indent.map { $0 + 1 }, into: &text)
                item.write(to: &text, indent: indent.map { $0 + 1 })
            }
            Self.newline(indent, into: &text)
            text += "]"
        case .object(let members):
            guard !members.isEmpty else {
                text += "{}"
                return
            }
            text += "{"
            for (index, (key, value)) in members.enumerated() {
                if index > 0 { text += "," }
                Self.newline(indent.map { $0 + 1 }, into: &text)
                Self.quote(key, into: &text)
                text += indent == nil ? ":" : ": "
                value.write(to: &text, indent: indent.map { $0 + 1 })
            }
            Self.newline(indent, into: &text)
            text += "}"
        }
    }

    private static func newline(_ indent: Int?, into text: inout String) {
        guard let indent else { return }
        text += "\n" + String(repeating: "  ", count: indent)
    }

    private static func quote(_ string: String, into text: inout String) {
        text += "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            case _ where scalar.value < 0x20:
                text +=
                    "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count)
                    + String(scalar.value, radix: 16)
            default: text.unicodeScalars.append(scalar)
            }
        }
        text += "\""
    }
}

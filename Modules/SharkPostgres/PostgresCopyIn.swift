import Foundation
import NIOCore
import PostgresNIO
@_spi(SharkDriver) import SharkORM

/// Bulk inserts streamed with `COPY … FROM STDIN` instead of multi-row `INSERT`s.
///
/// Why: a multi-row `INSERT … VALUES` of 1,000 rows carries about 10,000 parameters, which
/// the server parses, plans and answers with a key per row; COPY streams the rows as text the
/// server only splits and converts. Raw postgres-nio inserted 100,000 rows 4.7× faster that
/// way (docs/benchmarks.md, "PostgreSQL").
///
/// COPY returns nothing, so the keys an insert must report come first: one statement takes
/// as many numbers from the table's sequence as there are rows, and the rows go out with them
/// (what the engine would have given them, in one round trip). Keys the app gave move the
/// sequence past the largest afterwards, as a multi-row insert does.
///
/// Each value is the parameter `PostgresValues.wire` makes for the column (so a value the
/// column cannot hold is refused the same way), written in COPY's text format: the text
/// every PostgreSQL type reads back to the same value (a double in its shortest exact form).
enum PostgresCopyIn {
    /// From this many rows a bulk insert is copied; below, the sequence's extra round trip
    /// costs more than COPY saves.
    static let minimumRows = 64

    /// Whether COPY can name `schema`'s table and columns: postgres-nio quotes them without
    /// escaping a double quote inside.
    static func canCopy(_ schema: EntitySchema) -> Bool {
        !schema.name.contains("\"") && !schema.columns.contains { $0.name.contains("\"") }
    }

    /// What decides whether a bulk insert into `schema`'s table may be copied, in one row:
    /// the key's sequence (NULL for a key that has none); whether row-level security or a
    /// rule is on the table (COPY FROM is refused under row-level security, and skips
    /// `ON INSERT` rules); and whether this role may take numbers from the sequence itself
    /// (`nextval` needs USAGE on it, where an insert that lets the column draw its key needs
    /// nothing but the table's privilege).
    static func permissionStatement(schema: EntitySchema) -> PostgresStatement {
        var statement = PostgresStatement(
            "SELECT shark_key.sequence, c.relrowsecurity OR c.relhasrules, "
                + "shark_key.sequence IS NOT NULL AND has_sequence_privilege(shark_key.sequence, 'USAGE') "
                + "FROM pg_catalog.pg_class AS c, (SELECT pg_get_serial_sequence($1, $2) AS sequence) AS shark_key "
                + "WHERE c.oid = $1::regclass")
        statement.bindings.append(WireValue(payload: .text(PostgresQueryCompiler.identifier(schema.name))))
        statement.bindings.append(WireValue(payload: .text(schema.key.name)))
        return statement
    }

    /// The answer of ``permissionStatement(schema:)``.
    struct Permission: Sendable {
        /// The key's sequence, if it has one.
        var sequence: String?
        /// Whether COPY may write the table at all.
        var mayCopy: Bool
        /// Whether this role may take keys from the sequence.
        var mayTakeKeys: Bool

        init(_ row: PostgresRow) throws {
            let cells = Array(row)
            guard cells.count == 3 else {
                throw SharkError.driver(code: -1, message: "the table's COPY permissions did not read", sql: nil)
            }
            if case .text(let name) = try PostgresValues.value(of: cells[0]) { sequence = name }
            mayCopy = try PostgresValues.value(of: cells[1]) == .integer(0)
            mayTakeKeys = try PostgresValues.value(of: cells[2]) == .integer(1)
        }
    }

    /// The statement that takes `count` keys from the sequence named `sequence`. Named as a
    /// parameter, not looked up inside the statement: `nextval` of an expression the planner
    /// cannot fold opens the sequence for every row (100,000 keys took 270 ms that way, 30 ms
    /// this way).
    static func keyStatement(count: Int, sequence: String) -> PostgresStatement {
        var statement = PostgresStatement("SELECT nextval($1::regclass) FROM generate_series(1, $2)")
        statement.bindings.append(WireValue(payload: .text(sequence)))
        statement.bindings.append(WireValue(payload: .bigint(Int64(count))))
        return statement
    }

    /// The statement that moves the sequence of `schema`'s table past `largest`, a key the
    /// app gave, unless it is past it already: keys given must not come back from the engine
    /// later (SQLite's rowid goes on after the largest key too).
    static func sequenceStatement(movingPast largest: Int64, schema: EntitySchema) -> PostgresStatement {
        var statement = PostgresStatement(
            "SELECT setval(shark_sequence.id, $3) FROM (SELECT pg_get_serial_sequence($1, $2)::regclass AS id) "
                + "AS shark_sequence WHERE $3 > COALESCE(pg_sequence_last_value(shark_sequence.id), 0)")
        statement.bindings.append(WireValue(payload: .text(PostgresQueryCompiler.identifier(schema.name))))
        statement.bindings.append(WireValue(payload: .text(schema.key.name)))
        statement.bindings.append(WireValue(payload: .bigint(largest)))
        return statement
    }

    /// The rows in COPY's text format, every column of `schema` in order, in chunks of
    /// about 64 KiB.
    static func data(_ rows: [[Value]], schema: EntitySchema) throws -> [ByteBuffer] {
        var chunks: [ByteBuffer] = []
        var buffer = ByteBuffer()
        buffer.reserveCapacity(1 << 16)
        let types = schema.columns.map(PostgresType.init)
        let names = schema.columns.map { schema.name + "." + $0.name }
        for row in rows {
            for position in schema.columns.indices {
                if position > 0 { buffer.writeInteger(UInt8(ascii: "\t")) }
                let wire = try PostgresValues.wire(row[position], as: types[position], column: names[position])
                try append(wire, to: &buffer, column: names[position])
            }
            buffer.writeInteger(UInt8(ascii: "\n"))
            if buffer.readableBytes >= 1 << 16 {
                chunks.append(buffer)
                buffer = ByteBuffer()
                buffer.reserveCapacity(1 << 16)
            }
        }
        if buffer.readableBytes > 0 { chunks.append(buffer) }
        return chunks
    }

    /// One field: `\N` for NULL, else the value's text, escaped.
    private static func append(_ wire: WireValue?, to buffer: inout ByteBuffer, column: String) throws {
        guard let wire else {
            buffer.writeStaticString("\\N")
            return
        }
        switch wire.payload {
        case .bigint(let integer): buffer.writeString(String(integer))
        case .double(let real):
            if real.isNaN {
                // PostgreSQL's one NaN: a payload or sign a raw row's NaN carried is not kept
                // (a model's NaN is NULL by then, docs/values.md).
                buffer.writeStaticString("NaN")
            } else if real.isInfinite {
                buffer.writeString(real > 0 ? "Infinity" : "-Infinity")
            } else {
                // Swift's description is the shortest text that reads back as the same
                // double, −0.0 included.
                buffer.writeString("\(real)")
            }
        case .boolean(let flag): buffer.writeInteger(UInt8(ascii: flag ? "t" : "f"))
        case .text(let text), .numeric(let text), .untypedText(let text):
            try appendEscaped(text, to: &buffer, column: column)
        case .bytes(let bytes):
            // bytea's hex input, its backslash escaped for COPY.
            buffer.writeStaticString("\\\\x")
            let digits = Array("0123456789abcdef".utf8)
            for byte in bytes {
                buffer.writeInteger(digits[Int(byte >> 4)])
                buffer.writeInteger(digits[Int(byte & 0xF)])
            }
        case .uuid(let uuid): buffer.writeString(uuid.uuidString)
        }
    }

    /// Text with COPY's special bytes escaped: the backslash, and the tab, newline and
    /// carriage return that would end a field or a row.
    private static func appendEscaped(_ text: String, to buffer: inout ByteBuffer, column: String) throws {
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\\"): buffer.writeStaticString("\\\\")
            case UInt8(ascii: "\t"): buffer.writeStaticString("\\t")
            case UInt8(ascii: "\n"): buffer.writeStaticString("\\n")
            case UInt8(ascii: "\r"): buffer.writeStaticString("\\r")
            case 0:
                // What the server answers a parameter holding it with (PostgresFailures).
                throw SharkError.invalidValue(
                    .init(
                        .doesNotFitColumn,
                        "PostgreSQL text cannot hold the character U+0000 (docs/values.md, \"PostgreSQL\"): \(column)"))
            default: buffer.writeInteger(byte)
            }
        }
    }
}

import CSQLite
import Foundation
@_spi(SharkDriver) import SharkORM

/// A prepared statement of a ``SQLiteConnection``.
package final class SQLStatement {
    let handle: OpaquePointer
    /// The statement text.
    package let sql: String
    // unowned(unsafe): the connection finalizes its statements before it goes away, and a
    // checked unowned reference costs an atomic retain on every row of a bulk insert.
    unowned(unsafe) let connection: SQLiteConnection
    let api: UnsafeMutablePointer<shark_sqlite3_api>
    /// Whether the statement returns rows (a query) rather than changing them.
    let returnsRows: Bool
    /// The tables the statement writes, learnt when raw SQL is prepared (see
    /// `SQLiteConnection.prepareSingleStatement`).
    var writtenTables: Set<String> = []
    /// Whether the statement is DDL (learnt with `writtenTables`).
    var changesSchema = false
    /// Whether the statement is a PRAGMA, and one that sets its value (learnt alike).
    var isPragma = false
    var setsPragma = false
    /// Whether `prepareSingleStatement` prepared it, learning the above.
    var isAuthorized = false
    private var isFinalized = false

    init(handle: OpaquePointer, sql: String, connection: SQLiteConnection) {
        self.handle = handle
        self.sql = sql
        self.connection = connection
        self.api = connection.api
        self.returnsRows = connection.api.pointee.column_count(handle) > 0
    }

    func finalize() {
        guard !isFinalized else { return }
        isFinalized = true
        _ = api.pointee.finalize(handle)
    }

    private var reusableBinder: SQLBinder?
    /// The reader of the current row, shared by every execution.
    private lazy var row = SQLRow(api: api, statement: handle)

    /// Whether the statement only reads: a query, or a PRAGMA that reads its value. Not an
    /// INSERT … RETURNING, DDL, VACUUM or a PRAGMA that sets something. (SQLite's
    /// `sqlite3_stmt_readonly` calls every PRAGMA that can set a value a write, even when it
    /// only reads it: `PRAGMA journal_mode`.)
    package var isReadOnly: Bool {
        guard isAuthorized, writtenTables.isEmpty, !changesSchema else { return false }
        return api.pointee.stmt_readonly(handle) != 0 || (isPragma && !setsPragma)
    }

    /// The names of the result columns.
    package var columnNames: [String] {
        (0..<api.pointee.column_count(handle)).map { index in
            api.pointee.column_name(handle, index).map { String(cString: $0) } ?? ""
        }
    }

    /// The binder that writes arguments into this statement (parameter indexes are 1-based),
    /// reset for a new execution. One per statement, reused: binding allocates nothing.
    func binder() -> SQLBinder {
        if let binder = reusableBinder {
            binder.reset()
            return binder
        }
        let binder = SQLBinder(api: api, statement: handle, records: connection.isTracing)
        reusableBinder = binder
        return binder
    }

    /// How many `?` parameters the statement has.
    var parameterCount: Int { Int(api.pointee.bind_parameter_count(handle)) }

    /// Binds `arguments` (in order), steps through every row calling `body`, and resets.
    /// Returns the number of rows produced (reads) or changed (writes).
    ///
    /// `overflow` holds the values the statement reads through `shark_arg(i)` (see
    /// ``QueryCompiler``).
    @discardableResult
    package func run(
        _ arguments: [Value], overflow: [Value] = [], entity: String? = nil, _ body: (SQLRow) throws -> Void = { _ in }
    ) throws -> Int {
        let binder = binder()
        for (offset, argument) in arguments.enumerated() { binder.write(argument, at: Int32(offset + 1)) }
        return try withOverflowArguments(overflow, api: api) { try run(binder, entity: entity, body) }
    }

    /// Steps through the statement bound by `binder`, calling `body` per row, and resets it.
    @discardableResult
    func run(_ binder: SQLBinder, entity: String? = nil, _ body: (SQLRow) throws -> Void = { _ in }) throws -> Int {
        let api = self.api
        defer { _ = shark_reset(api, handle) }
        if binder.failure != SHARK_SQLITE_OK {
            throw connection.error(code: binder.failure, sql: sql, entity: entity)
        }
        let start = connection.isTracing ? ContinuousClock.now : nil
        if returnsRows { row.entity = entity }
        var rows = 0
        do {
            while true {
                let code = shark_step(api, handle)
                if code == SHARK_SQLITE_ROW {
                    rows += 1
                    try body(row)  // looked up here: writes, which return no rows, never need it
                } else if code == SHARK_SQLITE_DONE {
                    break
                } else {
                    throw connection.error(code: code, sql: sql, entity: entity)
                }
            }
        } catch {
            // A failed statement is reported too, with what went wrong.
            if let start {
                connection.tracer.record(
                    statement: sql, arguments: binder.recorded ?? [], duration: ContinuousClock.now - start,
                    rows: rows, error: error)
            }
            throw error
        }
        if !returnsRows { rows = Int(connection.changes) }
        if let start {
            connection.tracer.record(
                statement: sql, arguments: binder.recorded ?? [], duration: ContinuousClock.now - start, rows: rows)
        }
        return rows
    }
}

/// The current row of a stepping statement, read column by column with no copying beyond
/// the values themselves. One per statement, valid while it steps.
package final class SQLRow: RowReader {
    let api: UnsafeMutablePointer<shark_sqlite3_api>
    let statement: OpaquePointer

    init(api: UnsafeMutablePointer<shark_sqlite3_api>, statement: OpaquePointer) {
        self.api = api
        self.statement = statement
    }

    package var columnCount: Int32 { api.pointee.column_count(statement) }

    package func isNull(at index: Int32) -> Bool {
        shark_column_type(api, statement, index) == SHARK_SQLITE_NULL
    }

    package func int64(at index: Int32) -> Int64 {
        shark_column_int64(api, statement, index)
    }

    package func double(at index: Int32) -> Double {
        shark_column_double(api, statement, index)
    }

    package func text(at index: Int32) -> String {
        // column_text before column_bytes: the byte count is that of the text conversion.
        guard let bytes = shark_column_text(api, statement, index) else { return "" }
        let count = Int(shark_column_bytes(api, statement, index))
        return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }

    package func blob(at index: Int32) -> Data {
        guard let bytes = shark_column_blob(api, statement, index) else { return Data() }
        return Data(bytes: bytes, count: Int(shark_column_bytes(api, statement, index)))
    }

    /// The entity the statement reads, for messages (set by the run that steps it).
    var entity: String?

    // Strict reads look the column up once (`column_value`, in one inlined C helper), then
    // read its storage class and its value from it: checking the class with `column_type`
    // first would look it up twice, which costs as much again as the value itself. The error
    // is built out of line, so the common path stays small.

    package func integer(at index: Int32) throws(SharkError) -> Int64 {
        var result: Int64 = 0
        guard shark_column_integer(api, statement, index, &result) == SHARK_SQLITE_INTEGER else {
            throw failure(at: index, expected: "an integer")
        }
        return result
    }

    package func real(at index: Int32) throws(SharkError) -> Double {
        var result = 0.0
        switch shark_column_real(api, statement, index, &result) {
        case SHARK_SQLITE_FLOAT, SHARK_SQLITE_INTEGER: return result
        case SHARK_SQLITE_NULL: return .nan
        default: throw failure(at: index, expected: "a number")
        }
    }

    package func string(at index: Int32) throws(SharkError) -> String {
        var bytes: UnsafeRawPointer?
        var count: Int32 = 0
        guard shark_column_bytes_of(api, statement, index, SHARK_SQLITE_TEXT, &bytes, &count) == SHARK_SQLITE_TEXT
        else { throw failure(at: index, expected: "text") }
        guard let bytes else { return "" }
        return String(
            decoding: UnsafeRawBufferPointer(start: bytes, count: Int(count)).bindMemory(to: UInt8.self), as: UTF8.self)
    }

    package func bytes(at index: Int32) throws(SharkError) -> Data {
        var bytes: UnsafeRawPointer?
        var count: Int32 = 0
        guard shark_column_bytes_of(api, statement, index, SHARK_SQLITE_BLOB, &bytes, &count) == SHARK_SQLITE_BLOB
        else { throw failure(at: index, expected: "a blob") }
        guard let bytes else { return Data() }
        return Data(bytes: bytes, count: Int(count))
    }

    @inline(never)
    private func failure(at index: Int32, expected: String) -> SharkError {
        mismatch(value(at: index), at: index, expected: expected)
    }

    package func columnDescription(at index: Int32) -> String {
        let column = api.pointee.column_name(statement, index).map { String(cString: $0) } ?? "column \(index)"
        return entity.map { $0 + "." + column } ?? column
    }

    package func value(at index: Int32) -> Value {
        switch shark_column_type(api, statement, index) {
        case SHARK_SQLITE_INTEGER: return .integer(int64(at: index))
        case SHARK_SQLITE_FLOAT: return .real(double(at: index))
        case SHARK_SQLITE_TEXT: return .text(text(at: index))
        case SHARK_SQLITE_BLOB: return .blob(blob(at: index))
        default: return .null
        }
    }
}

/// Binds values into a statement's parameters (1-based), straight from generated model code.
///
/// Records the values only when tracing, so traces can show them (redacted by default).
final class SQLBinder: RowWriter {
    let api: UnsafeMutablePointer<shark_sqlite3_api>
    let statement: OpaquePointer
    private let records: Bool
    private(set) var recorded: [Value]?
    private(set) var failure: Int32 = SHARK_SQLITE_OK

    init(api: UnsafeMutablePointer<shark_sqlite3_api>, statement: OpaquePointer, records: Bool) {
        self.api = api
        self.statement = statement
        self.records = records
        self.recorded = records ? [] : nil
    }

    func reset() {
        failure = SHARK_SQLITE_OK
        if records { recorded = [] }
    }

    /// A valid pointer for zero-length text and blobs: SQLite binds a NULL pointer as NULL.
    nonisolated(unsafe) private static let empty: UnsafeMutablePointer<CChar> = {
        let pointer = UnsafeMutablePointer<CChar>.allocate(capacity: 1)
        pointer.pointee = 0
        return pointer
    }()

    /// `SQLITE_TOOBIG`.
    private static let tooBig: Int32 = 18

    private func check(_ code: Int32, _ value: @autoclosure () -> Value) {
        if code != SHARK_SQLITE_OK && failure == SHARK_SQLITE_OK { failure = code }
        if records { recorded!.append(value()) }
    }

    func writeNull(at index: Int32) {
        check(shark_bind_null(api, statement, index), .null)
    }

    func write(_ value: Int64, at index: Int32) {
        check(shark_bind_int64(api, statement, index, value), .integer(value))
    }

    func write(_ value: Double, at index: Int32) {
        check(shark_bind_double(api, statement, index, value), .real(value))
    }

    func write(_ value: String, at index: Int32) {
        // withCString, not withUTF8: a small (inline) string is copied to the stack instead of
        // being moved to the heap first. The explicit length keeps interior NULs.
        // SQLite takes lengths as 32-bit ints: a longer value is SQLITE_TOOBIG, not a trap.
        guard let length = Int32(exactly: value.utf8.count) else { return check(Self.tooBig, .text(value)) }
        let code = value.withCString { shark_bind_text(api, statement, index, $0, length) }
        check(code, .text(value))
    }

    func write(_ value: Data, at index: Int32) {
        guard Int32(exactly: value.count) != nil else { return check(Self.tooBig, .blob(value)) }
        let code = value.withUnsafeBytes { buffer in
            shark_bind_blob(
                api, statement, index, buffer.baseAddress ?? UnsafeRawPointer(Self.empty), Int32(buffer.count))
        }
        check(code, .blob(value))
    }
}

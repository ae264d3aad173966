import CSQLite
import Foundation
@_spi(SharkDriver) import SharkORM

/// SharkORM's own SQL functions, registered on every connection, through which the SQL
/// drivers compute exactly what the memory engine computes: both call the core's code
/// (`ValueArithmetic`, `LikePattern`, `ExactSum`, `ColumnSchema.storedValue`), so no answer
/// depends on SQLite's own rules where they differ from the library's (docs/values.md).
///
/// | SQL | what it computes |
/// | --- | --- |
/// | `shark_add(a, b)`, `shark_subtract`, `shark_multiply`, `shark_divide`, `shark_remainder` | arithmetic: exact integers or an error, decimals, reals, division by zero an error |
/// | `shark_abs(x)` | the magnitude, by the same rules |
/// | `like(pattern, text)` | SQLite's `LIKE` operator, replaced: no length limit, NUL characters compared |
/// | `shark_sum(x)`, `shark_avg(x)` | exact sums and averages, rounded once |
/// | `shark_fit(x, column…)` | the value an `updateAll` computed, checked against the column |
///
/// A function that fails leaves its typed `SharkError` with the connection, which the
/// statement then throws in place of SQLite's generic error.
final class SQLFunctions {
    let api: UnsafeMutablePointer<shark_sqlite3_api>
    /// The error a function raised while the current statement ran.
    private var pendingError: SharkError?

    init(api: UnsafeMutablePointer<shark_sqlite3_api>) { self.api = api }

    /// The typed error a function raised, if the statement failed because of one.
    func takeError() -> SharkError? {
        defer { pendingError = nil }
        return pendingError
    }

    /// The functions, each a Swift body behind one C handler.
    private enum Function {
        case arithmetic(ArithmeticOperator)
        case magnitude
        case like
        case fit
        case sum
        case average

        var isAggregate: Bool {
            switch self {
            case .sum, .average: return true
            default: return false
            }
        }
    }

    /// One registered function: what SQLite keeps as its user data (released by SQLite).
    private final class Registration {
        let functions: SQLFunctions
        let function: Function

        init(_ functions: SQLFunctions, _ function: Function) {
            self.functions = functions
            self.function = function
        }
    }

    /// Registers every function on `db`.
    func register(on db: OpaquePointer) {
        let table: [(String, Int32, Function)] = [
            ("shark_add", 2, .arithmetic(.add)), ("shark_subtract", 2, .arithmetic(.subtract)),
            ("shark_multiply", 2, .arithmetic(.multiply)), ("shark_divide", 2, .arithmetic(.divide)),
            ("shark_remainder", 2, .arithmetic(.remainder)), ("shark_abs", 1, .magnitude), ("like", 2, .like),
            ("shark_fit", 6, .fit), ("shark_sum", 1, .sum), ("shark_avg", 1, .average),
        ]
        for (name, count, function) in table {
            let registration = Unmanaged.passRetained(Registration(self, function)).toOpaque()
            _ = shark_create_function(
                api, db, name, count, function.isAggregate ? 1 : 0, registration, SQLFunctions.handle,
                { Unmanaged<Registration>.fromOpaque($0!).release() })
        }
    }

    // MARK: Calls

    /// Every call of every function, from the C trampolines.
    private static let handle: shark_function_handler = { _, userData, phase, context, _, arguments in
        let registration = Unmanaged<Registration>.fromOpaque(userData!).takeUnretainedValue()
        let functions = registration.functions
        switch (registration.function, phase) {
        case (.arithmetic(let op), _): functions.arithmetic(op, context, arguments!)
        case (.magnitude, _):
            functions.call(context) { () throws(SharkError) in
                try ValueArithmetic.magnitude(functions.value(arguments![0]))
            }
        case (.like, _): functions.like(context, arguments!)
        case (.fit, _):
            functions.call(context) { () throws(SharkError) in
                try functions.column(arguments!).storedValue(functions.value(arguments![0]), computed: true)
            }
        case (.sum, 1), (.average, 1): functions.step(context, arguments!)
        case (.sum, _): functions.finish(context, average: false)
        case (.average, _): functions.finish(context, average: true)
        }
    }

    /// Sets the result of `body`, or fails the statement with its error.
    private func call(_ context: OpaquePointer?, _ body: () throws(SharkError) -> Value) {
        do {
            setResult(try body(), context)
        } catch {
            fail(context, error)
        }
    }

    private func arithmetic(
        _ op: ArithmeticOperator, _ context: OpaquePointer?, _ arguments: UnsafeMutablePointer<OpaquePointer?>
    ) {
        let lhs = arguments[0]
        let rhs = arguments[1]
        // Two integers, the common case, without making Values.
        if api.pointee.value_type(lhs) == SHARK_SQLITE_INTEGER && api.pointee.value_type(rhs) == SHARK_SQLITE_INTEGER {
            do {
                let result = try ValueArithmetic.integer(op, api.pointee.value_int64(lhs), api.pointee.value_int64(rhs))
                api.pointee.result_int64(context, result)
            } catch {
                fail(context, error)
            }
            return
        }
        call(context) { () throws(SharkError) in try ValueArithmetic.apply(op, value(lhs), value(rhs)) }
    }

    /// `like(pattern, text)`: NULL when either is NULL.
    private func like(_ context: OpaquePointer?, _ arguments: UnsafeMutablePointer<OpaquePointer?>) {
        let pattern = arguments[0]
        let subject = arguments[1]
        if api.pointee.value_type(pattern) == SHARK_SQLITE_NULL || api.pointee.value_type(subject) == SHARK_SQLITE_NULL
        {
            return api.pointee.result_null(context)
        }
        // value_text before value_bytes: the count is that of the text form.
        let patternText = api.pointee.value_text(pattern)
        let patternBytes = Int(api.pointee.value_bytes(pattern))
        let subjectText = api.pointee.value_text(subject)
        let subjectBytes = Int(api.pointee.value_bytes(subject))
        let matches = LikePattern.matches(
            UnsafeBufferPointer(start: subjectText, count: subjectText == nil ? 0 : subjectBytes),
            pattern: UnsafeBufferPointer(start: patternText, count: patternText == nil ? 0 : patternBytes))
        api.pointee.result_int64(context, matches ? 1 : 0)
    }

    // MARK: Aggregates

    /// An aggregate's running sum, kept in SQLite's per-group memory as a retained pointer.
    private final class Accumulator {
        var sum = ExactSum()
        var failure: SharkError?
    }

    private static let slotSize = Int32(MemoryLayout<UnsafeMutableRawPointer?>.size)

    private func step(_ context: OpaquePointer?, _ arguments: UnsafeMutablePointer<OpaquePointer?>) {
        guard let slot = api.pointee.aggregate_context(context, Self.slotSize) else { return }
        let pointer = slot.assumingMemoryBound(to: UnsafeMutableRawPointer?.self)
        let accumulator: Accumulator
        if let existing = pointer.pointee {
            accumulator = Unmanaged<Accumulator>.fromOpaque(existing).takeUnretainedValue()
        } else {
            accumulator = Accumulator()
            pointer.pointee = Unmanaged.passRetained(accumulator).toOpaque()
        }
        guard accumulator.failure == nil else { return }
        let argument = arguments[0]
        do {
            if api.pointee.value_type(argument) == SHARK_SQLITE_INTEGER {
                accumulator.sum.add(api.pointee.value_int64(argument))
            } else {
                try accumulator.sum.add(value(argument))
            }
        } catch {
            accumulator.failure = error
        }
    }

    /// The final call, once per group (SQLite makes it even for a statement reset early):
    /// the result, and the accumulator released.
    private func finish(_ context: OpaquePointer?, average: Bool) {
        guard let slot = api.pointee.aggregate_context(context, 0),
            let stored = slot.load(as: UnsafeMutableRawPointer?.self)
        else {
            return api.pointee.result_null(context)
        }
        let accumulator = Unmanaged<Accumulator>.fromOpaque(stored).takeRetainedValue()
        if let failure = accumulator.failure { return fail(context, failure) }
        call(context) { () throws(SharkError) in
            try average ? accumulator.sum.average() : accumulator.sum.sum()
        }
    }

    // MARK: Values

    /// An argument as a ``Value``.
    func value(_ argument: OpaquePointer?) -> Value {
        switch api.pointee.value_type(argument) {
        case SHARK_SQLITE_INTEGER: return .integer(api.pointee.value_int64(argument))
        case SHARK_SQLITE_FLOAT: return .real(api.pointee.value_double(argument))
        case SHARK_SQLITE_TEXT:
            guard let text = api.pointee.value_text(argument) else { return .text("") }
            let count = Int(api.pointee.value_bytes(argument))
            return .text(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self))
        case SHARK_SQLITE_BLOB:
            guard let bytes = api.pointee.value_blob(argument) else { return .blob(Data()) }
            return .blob(Data(bytes: bytes, count: Int(api.pointee.value_bytes(argument))))
        default: return .null
        }
    }

    /// The column `shark_fit(x, name, type, nullable, logical type, bit width)` describes.
    func column(_ arguments: UnsafeMutablePointer<OpaquePointer?>) -> ColumnSchema {
        let name = value(arguments[1]).coercedToText()
        let type = StorageType(rawValue: value(arguments[2]).coercedToText()) ?? .blob
        let logical = value(arguments[4])
        let width = value(arguments[5])
        return ColumnSchema(
            name: name, type: type, isNullable: value(arguments[3]).coercedToInt64() != 0,
            logicalType: logical.isNull ? nil : LogicalType(rawValue: logical.coercedToText()),
            bitWidth: width.isNull ? nil : Int(width.coercedToInt64()))
    }

    private func setResult(_ value: Value, _ context: OpaquePointer?) {
        switch value {
        case .null: api.pointee.result_null(context)
        case .integer(let integer): api.pointee.result_int64(context, integer)
        case .real(let real): api.pointee.result_double(context, real)
        case .text(let text):
            var text = text
            text.withUTF8 { bytes in
                bytes.withMemoryRebound(to: CChar.self) {
                    shark_result_text(api, context, $0.baseAddress, Int32($0.count))
                }
            }
        case .blob(let bytes):
            bytes.withUnsafeBytes { shark_result_blob(api, context, $0.baseAddress, Int32($0.count)) }
        }
    }

    private func fail(_ context: OpaquePointer?, _ error: SharkError) {
        pendingError = error
        api.pointee.result_error(context, error.description, -1)
    }
}

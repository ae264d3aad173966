import Foundation
import PostgresNIO
@_spi(SharkDriver) import SharkORM

/// Turns what postgres-nio throws into the error that says what went wrong: the typed
/// `SharkError` cases an app acts on whatever the engine (a unique violation, a value out of
/// range), else `SharkError.driver` with the SQLSTATE and the server's message.
enum PostgresFailures {
    /// The SQLSTATE of a server error, if `error` is one.
    static func sqlState(of error: any Error) -> String? {
        (error as? PSQLError)?.serverInfo?[.sqlState]
    }

    static func sharkError(_ error: any Error, sql: String?) -> any Error {
        if error is SharkError || error is PostgresError || error is CancellationError { return error }
        guard let failure = error as? PSQLError else {
            return SharkError.driver(code: -1, message: "\(error)", sql: sql)
        }
        guard let info = failure.serverInfo, let state = info[.sqlState] else {
            return SharkError.driver(code: -1, message: connectionProblem(failure), sql: sql)
        }
        let message = info[.message] ?? "the server refused the statement"
        let table = info[.tableName] ?? ""
        switch state {
        case "23505":
            let columns = constrainedColumns(in: info[.detail] ?? "")
            return SharkError.uniqueConstraint(
                entity: table, columns: columns,
                message: "UNIQUE constraint failed: " + columns.map { "\(table).\($0)" }.joined(separator: ", "))
        case "23502":
            let column = info[.columnName] ?? "?"
            return SharkError.constraintViolation(
                entity: table, message: "NOT NULL constraint failed: \(table).\(column)")
        case "23503", "23514", "23P01":
            return SharkError.constraintViolation(entity: table, message: message)
        case "22003" where message.hasPrefix("decimal overflow"):
            return SharkError.invalidValue(.init(.decimalOverflow, message))
        case "22003" where message.hasPrefix("not a decimal"):
            return SharkError.invalidValue(.init(.notANumber, message))
        case "22003":
            return SharkError.invalidValue(.init(.integerOverflow, "integer overflow: \(message)"))
        case "22012":
            return SharkError.invalidValue(.init(.divisionByZero, "division by zero"))
        case "22021", "22P05":
            return SharkError.invalidValue(
                .init(
                    .doesNotFitColumn,
                    "PostgreSQL text cannot hold the character U+0000 (docs/values.md, \"PostgreSQL\"): \(message)"))
        case "40001", "40P01":
            return PostgresError.transactionConflict(sqlState: state, message: message)
        case "25006":
            return SharkError.readOnly(path: "PostgreSQL", reason: message)
        default:
            return SharkError.driver(
                code: PostgresError.code(ofSQLState: state), message: "[\(state)] \(message)", sql: sql)
        }
    }

    /// What went wrong with a connection, from postgres-nio's error (whose own description
    /// hides its details, lest it leak a query's values).
    static func connectionProblem(_ failure: PSQLError) -> String {
        if let message = failure.serverInfo?[.message] {
            return "[\(failure.serverInfo?[.sqlState] ?? "")] \(message)"
        }
        var text = "\(failure.code)"
        if let underlying = failure.underlying { text += ": \(underlying)" }
        return text
    }

    /// "Key (a, b)=(1, 2) already exists." → ["a", "b"].
    static func constrainedColumns(in detail: String) -> [String] {
        guard detail.hasPrefix("Key ("), let end = detail.range(of: ")=(") else { return [] }
        let list = detail[detail.index(detail.startIndex, offsetBy: 5)..<end.lowerBound]
        return list.split(separator: ",").map { part in
            var name = part.trimmingCharacters(in: .whitespaces)
            if name.hasPrefix("\""), name.hasSuffix("\""), name.count >= 2 {
                name = String(name.dropFirst().dropLast()).replacingOccurrences(of: "\"\"", with: "\"")
            }
            return name
        }
    }
}

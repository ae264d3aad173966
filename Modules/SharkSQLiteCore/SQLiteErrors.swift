import CSQLite
import Foundation
@_spi(SharkDriver) import SharkORM

/// Turns an SQLite result code into the ``SharkError`` that says what went wrong.
enum SQLiteErrors {
    static func error(
        code: Int32, message: String, sql: String?, path: String, entity: String? = nil
    ) -> SharkError {
        let primary = code & 0xFF
        switch primary {
        case SHARK_SQLITE_NOTADB:
            return .notADatabase(path: path)
        case SHARK_SQLITE_CORRUPT:
            return .corrupt(path: path, reason: message)
        case SHARK_SQLITE_CANTOPEN:
            return .cannotOpen(path: path, reason: openFailureReason(path: path, message: message))
        case SHARK_SQLITE_READONLY:
            return .readOnly(path: path, reason: message)
        case SHARK_SQLITE_CONSTRAINT:
            if code == SHARK_SQLITE_CONSTRAINT_UNIQUE || code == SHARK_SQLITE_CONSTRAINT_PRIMARYKEY {
                let (table, columns) = constrainedColumns(in: message)
                return .uniqueConstraint(entity: entity ?? table, columns: columns, message: message)
            }
            return .constraintViolation(entity: entity ?? "", message: message)
        default:
            return .driver(code: code, message: message, sql: sql)
        }
    }

    /// "UNIQUE constraint failed: Person.a, Person.b" → ("Person", ["a", "b"]).
    static func constrainedColumns(in message: String) -> (String, [String]) {
        guard let colon = message.range(of: ": ") else { return ("", []) }
        var table = ""
        let columns = message[colon.upperBound...].split(separator: ",").map { part -> String in
            let qualified = part.trimmingCharacters(in: .whitespaces)
            guard let dot = qualified.lastIndex(of: ".") else { return qualified }
            table = String(qualified[..<dot])
            return String(qualified[qualified.index(after: dot)...])
        }
        return (table, columns)
    }

    /// A reason a person can act on, rather than SQLite's "unable to open database file".
    static func openFailureReason(path: String, message: String) -> String {
        var isDirectory: ObjCBool = false
        let manager = FileManager.default
        if manager.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            return "it is a directory"
        }
        let parent = (path as NSString).deletingLastPathComponent
        let folder = parent.isEmpty ? "." : parent
        if !manager.fileExists(atPath: folder) {
            return "the folder \(folder) does not exist"
        }
        if !manager.isWritableFile(atPath: folder) {
            return "the folder \(folder) is not writable"
        }
        return message
    }
}

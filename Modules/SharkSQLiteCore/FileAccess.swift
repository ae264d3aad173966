import Foundation

/// How a connection opens its database file.
package enum FileAccess: Sendable, Equatable {
    /// For reading and writing; the file is created if missing.
    case readWrite
    /// For reading only, with SQLite's usual locks, so writes by other processes are seen
    /// consistently. On a database in WAL mode SQLite shares (and, when missing, creates)
    /// the `-wal` and `-shm` files beside it; the database file itself is never written.
    case readOnly
    /// For reading only, without locks or side files: SQLite assumes nothing else changes
    /// the file while it is open.
    case immutable

    /// The access for reading `path` without writing anything: `immutable` when no `-wal` or
    /// `-journal` file is beside it, `readOnly` otherwise.
    ///
    /// Without a `-wal` file no connection has the database open in WAL mode, and all its
    /// content is in the main file; a WAL-mode writer that opens it later writes to a new
    /// `-wal` and changes the main file only when it checkpoints (after about a thousand
    /// pages, or when it closes). So the `immutable` reading of a short command sees a
    /// consistent state and leaves no `-wal` and `-shm` files behind, which plain read-only
    /// access would create. A `-wal` file means a live (or interrupted) writer: share its log.
    /// A `-journal` file may be a hot journal that SQLite must see (it then refuses to read
    /// rather than read a half-written state).
    package static func forReading(_ path: String) -> FileAccess {
        let manager = FileManager.default
        let hasSideFile = manager.fileExists(atPath: path + "-wal") || manager.fileExists(atPath: path + "-journal")
        return hasSideFile ? .readOnly : .immutable
    }

    /// The `file:` URI that opens `path` this way (read-only accesses only).
    func uri(for path: String) -> String {
        // In a URI's path, `?` and `#` end the path and `%` starts an escape.
        var escaped = ""
        for character in path.unicodeScalars {
            switch character {
            case "%": escaped += "%25"
            case "?": escaped += "%3f"
            case "#": escaped += "%23"
            default: escaped.unicodeScalars.append(character)
            }
        }
        // A relative path stays relative; an absolute one gets the empty authority.
        let prefix = escaped.hasPrefix("/") ? "file://" : "file:"
        switch self {
        case .readWrite: return prefix + escaped
        case .readOnly: return prefix + escaped + "?mode=ro"
        case .immutable: return prefix + escaped + "?mode=ro&immutable=1"
        }
    }
}

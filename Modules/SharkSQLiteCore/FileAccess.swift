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

    /// The access for reading `path` without writing anything.
    ///
    /// `immutable` for a database in WAL mode with no `-wal` file beside it: no connection
    /// has it open, and all its content is in the main file; a WAL-mode writer that opens it
    /// later writes to a new `-wal` and changes the main file only when it checkpoints (after
    /// about a thousand pages, or when it closes). So the `immutable` reading of a short
    /// command sees a consistent state and leaves no `-wal` and `-shm` files behind, which
    /// plain read-only access would create. A `-wal` file means a live (or interrupted)
    /// writer: share its log (`readOnly`; SQLite creates the `-shm` if it is missing).
    ///
    /// A database in rollback-journal mode is read with `readOnly`, whose locks keep a
    /// writer from changing pages under the read; it creates no side file. An encrypted
    /// header does not say which mode the file is in: such a file counts as WAL (the mode
    /// SharkORM gives every database it creates) unless a `-journal` file is beside it.
    package static func forReading(_ path: String) -> FileAccess {
        // SQLite names the side files after the file a symbolic link points to.
        let resolved = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        let manager = FileManager.default
        if manager.fileExists(atPath: resolved + "-wal") || manager.fileExists(atPath: resolved + "-journal") {
            return .readOnly
        }
        return journalMode(of: resolved) == .rollback ? .readOnly : .immutable
    }

    /// A database's journal mode, as its header records it.
    package enum JournalMode: Sendable {
        case wal, rollback
    }

    /// The journal mode in the header of the plain database at `path` (byte 18: 1 for a
    /// rollback journal, 2 for WAL); nil when the header is not SQLite's (an encrypted file).
    package static func journalMode(of path: String) -> JournalMode? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let header = try? handle.read(upToCount: 20), header.count == 20,
            header.starts(with: Data("SQLite format 3\u{0}".utf8))
        else { return nil }
        return header[header.startIndex + 18] == 2 ? .wal : .rollback
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

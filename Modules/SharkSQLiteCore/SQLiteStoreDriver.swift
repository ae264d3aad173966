import Foundation
@_spi(SharkDriver) import SharkORM
import Synchronization

/// A ``Driver`` over SQLite-compatible databases: one writer connection and a pool of
/// readers, all on one file in WAL mode (from the first write on: opening a file changes
/// nothing in it), so reads never wait for writes and see only committed data.
///
/// Shared by the SQLite and SQLCipher drivers, which differ only in the library they load and
/// in how a new connection is set up (`configure`, where SQLCipher keys it).
///
/// The writer is configured first and fully set up (WAL) before any reader exists, so a
/// reader's `configure` can rely on what the writer's learned (SQLCipher derives its key
/// there once and hands readers the result).
package final class SQLiteStoreDriver: IntegrityChecking, @unchecked Sendable {
    package let name: String
    package let path: String
    private let library: SQLiteLibrary
    private let tracer: Tracer
    private let configure: @Sendable (SQLiteConnection, ConnectionRole) throws -> Void
    private let writerConnection: SQLiteDriverConnection
    private let pool: ReaderPool
    private let removesFileOnClose: Bool
    private let closed = Atomic<Bool>(false)
    /// Whether the file was opened read-only: nothing this driver does writes to it.
    package let isReadOnly: Bool

    /// Opens the database at `path` (creating it); the first write switches it to WAL mode with
    /// `synchronous=NORMAL`.
    ///
    /// - Parameters:
    ///   - maximumReaders: how many reader connections may be open at once.
    ///   - removesFileOnClose: delete the file (and its WAL) on close: temporary databases.
    ///   - configure: runs first on every new connection (SQLCipher keys it here), told
    ///     whether the connection is the writer or a reader.
    ///   - readOnly: open an existing file without ever writing to it (see ``FileAccess``):
    ///     no journal mode switch, and every write fails with ``SharkError/readOnly(path:reason:)``.
    package init(
        name: String, path: String, library: SQLiteLibrary, tracer: Tracer, maximumReaders: Int = 4,
        removesFileOnClose: Bool = false, readOnly: Bool = false,
        configure: @escaping @Sendable (SQLiteConnection, ConnectionRole) throws -> Void = { _, _ in }
    ) throws {
        try Self.checkIsFilePath(path, driver: name)
        self.name = name
        self.path = path
        self.library = library
        self.tracer = tracer
        self.configure = configure
        self.removesFileOnClose = removesFileOnClose
        isReadOnly = readOnly
        var access = FileAccess.readWrite
        // A new (missing or empty) file has nothing to keep as it was: it is set up at once,
        // which an encrypted one needs (its salt, in the first page, must exist before any
        // reader opens, or each reader would make up its own).
        let isNew = ((try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0) == 0
        if readOnly {
            // Read-only never creates: a missing file is an error, not an empty database.
            guard FileManager.default.fileExists(atPath: path) else { throw SharkError.fileNotFound(path: path) }
            access = .forReading(path)
        }
        let writer = try SQLiteConnection(path: path, library: library, access: access, tracer: tracer) {
            connection in
            try configure(connection, .writer)
            connection.setBusyTimeout(milliseconds: 5000)
            if readOnly {
                try connection.execute("PRAGMA query_only = 1")
                // The first statement to read the file: a file that is not a database fails here.
                _ = try connection.scalar("SELECT count(*) FROM sqlite_master")
            } else {
                // The first statement to read the file: a file that is not a database fails
                // here. Nothing is written until the app writes: the switch to WAL follows
                // the first write (`SQLiteDriverConnection.switchToWAL`), and until then the
                // rollback journal's safe setting holds.
                _ = try connection.scalar("SELECT count(*) FROM sqlite_master")
                try connection.execute("PRAGMA synchronous = FULL")
            }
            try connection.execute("PRAGMA foreign_keys = ON")
        }
        writerConnection = SQLiteDriverConnection(writer, writesLazily: !readOnly)
        // A file already in WAL (SharkORM's own, once written) gets WAL's settings at once; a
        // new one is set up at once; any other waits for the app's first write.
        if !readOnly,
            try isNew
                || writerConnection.connection.scalar("PRAGMA journal_mode")?.coercedToText().lowercased() == "wal"
        {
            try writerConnection.switchToWAL()
        }
        pool = ReaderPool(capacity: maximumReaders) { [library, tracer] in
            let reader = try SQLiteConnection(path: path, library: library, access: access, tracer: tracer) {
                connection in
                try configure(connection, .reader)
                connection.setBusyTimeout(milliseconds: 5000)
                try connection.execute("PRAGMA query_only = 1")
            }
            return SQLiteDriverConnection(reader)
        }
    }

    package var writer: any DriverConnection { writerConnection }

    /// A reader's page cache is dropped whenever another connection commits; the writer's,
    /// which made the commit, is not: a lookup by key right after a commit costs on the
    /// writer what it costs warm (SQLCipher's pages are not decrypted again).
    package var readsByKeyOnIdleWriter: Bool { !isReadOnly }

    /// Refuses the paths SQLite reads as "a private in-memory database": the writer and every
    /// reader would each get their own, so commits would land where no query can see them.
    static func checkIsFilePath(_ path: String, driver: String) throws {
        let lowered = path.lowercased()
        let isPrivate =
            path.isEmpty || path == ":memory:"
            || (lowered.hasPrefix("file:") && (lowered.contains(":memory:") || lowered.contains("mode=memory")))
        guard isPrivate else { return }
        let temporary = driver == "sqlcipher" ? ".sqlcipherTemporary(key:)" : ".sqliteTemporary"
        throw SharkError.cannotOpen(
            path: path,
            reason:
                "\(path.isEmpty ? "an empty path" : path.debugDescription) opens a private database per connection, "
                + "so reads could never see writes; use .memory for an in-memory store, or \(temporary) "
                + "for a file deleted when the store closes")
    }

    /// The writer's raw connection, for driver-specific operations (rekeying, say).
    package var writerSQLConnection: SQLiteConnection { writerConnection.connection }

    package func read<T>(_ body: (any DriverConnection) throws -> T) throws -> T {
        guard !closed.load(ordering: .acquiring) else { throw SharkError.closed }
        let reader = try pool.take()
        defer { pool.give(back: reader) }
        return try body(reader)
    }

    /// Runs `PRAGMA integrity_check` on a reader: the committed state, without blocking writes.
    /// A damaged file can make the check itself fail part way (SQLCipher fails it when a page's
    /// HMAC does not match): that failure is one of the problems, not an error.
    package func checkIntegrity() throws -> [String] {
        do {
            guard !closed.load(ordering: .acquiring) else { throw SharkError.closed }
            let reader = try pool.take()
            defer { pool.give(back: reader) }
            let messages = try reader.connection.rows("PRAGMA integrity_check").map { $0.first?.coercedToText() ?? "" }
            return messages == ["ok"] ? [] : messages
        } catch SharkError.corrupt(_, let reason) {
            return [reason]
        } catch SharkError.driver(_, let message, _) {
            return ["the check stopped: \(message)"]
        }
    }

    /// Closes every reader so the next reads open new ones (after a rekey, say: open readers
    /// hold the old key). Readers busy now are closed when they come back.
    package func discardReaders() {
        pool.discardAll()
    }

    /// Runs `body` with the writer as the only open connection: every reader closed (those
    /// busy now waited for), and new reads waiting until it returns. What changes the whole
    /// file at once needs it: leaving WAL mode (a rekey does), which SQLite refuses while
    /// another connection has the file open. Call it with the store's writer held.
    package func withReadersClosed<T>(_ body: () throws -> T) throws -> T {
        pool.suspend()
        defer { pool.resume() }
        return try body()
    }

    package func close() {
        guard !closed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        pool.closeAll()
        writerConnection.connection.close()
        if removesFileOnClose {
            for suffix in ["", "-wal", "-shm", "-journal"] {
                try? FileManager.default.removeItem(atPath: path + suffix)
            }
        }
    }
}

/// Whether a connection is the writer or one of the readers.
package enum ConnectionRole: Sendable {
    case writer, reader
}

/// Reader connections, opened on demand up to a capacity and reused.
final class ReaderPool: @unchecked Sendable {
    private let condition = NSCondition()
    // Unchecked: every access happens with `condition` locked, which is the exclusivity that
    // matters; the run-time checks cost more than the rest of a point lookup's checkout.
    @exclusivity(unchecked) private var idle: [SQLiteDriverConnection] = []
    @exclusivity(unchecked) private var open = 0
    private let capacity: Int
    /// Bumped by `discardAll`; readers of an older generation (`poolGeneration`) are closed
    /// when given back.
    @exclusivity(unchecked) private var generation = 0
    /// Set by `suspend`: no reader may open until `resume`.
    @exclusivity(unchecked) private var suspended = false
    private let make: () throws -> SQLiteDriverConnection

    init(capacity: Int, make: @escaping () throws -> SQLiteDriverConnection) {
        self.capacity = max(1, capacity)
        self.make = make
    }

    func take() throws -> SQLiteDriverConnection {
        condition.lock()
        while suspended || (idle.isEmpty && open >= capacity) { condition.wait() }
        if let reader = idle.popLast() {
            condition.unlock()
            return reader
        }
        open += 1
        let current = generation
        condition.unlock()
        do {
            let reader = try make()
            reader.poolGeneration = current
            return reader
        } catch {
            condition.lock()
            open -= 1
            condition.signal()
            condition.unlock()
            throw error
        }
    }

    func give(back reader: SQLiteDriverConnection) {
        condition.lock()
        if reader.poolGeneration == generation {
            idle.append(reader)
        } else {
            reader.connection.close()
            open -= 1
        }
        // Broadcast: a suspend waiting for the last reader and a take waiting for one may
        // both be waiting.
        condition.broadcast()
        condition.unlock()
    }

    func discardAll() {
        condition.lock()
        discardIdle()
        condition.signal()
        condition.unlock()
    }

    /// Closes the idle readers, and the busy ones when they come back (`condition` locked).
    private func discardIdle() {
        generation += 1
        for reader in idle { reader.connection.close() }
        open -= idle.count
        idle.removeAll()
    }

    /// Closes every reader, waiting for the busy ones, and makes `take` wait until `resume`.
    func suspend() {
        condition.lock()
        suspended = true
        discardIdle()
        while open > 0 { condition.wait() }
        condition.unlock()
    }

    func resume() {
        condition.lock()
        suspended = false
        condition.broadcast()
        condition.unlock()
    }

    func closeAll() {
        discardAll()
    }
}

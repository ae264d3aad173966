import Foundation
@_spi(SharkDriver) import SharkORM
import Synchronization

/// How stores of one schema that asked to write one at a time take turns
/// (``SharedChangeLog/serializeWrites()``; sync asks, docs/architecture.md, "Sync on a shared
/// database"): each write transaction of such a store begins with
/// `LOCK TABLE _shark_write_turn IN EXCLUSIVE MODE`, held until it commits or rolls back.
///
/// A lock on a table, not an advisory lock: `LOCK TABLE` is the one statement that runs
/// before a REPEATABLE READ transaction takes its snapshot (its first query takes it, and
/// `SELECT pg_advisory_xact_lock(…)` is a query), so a transaction that waited for its turn
/// sees every commit of the stores that had theirs before. With an advisory lock it would
/// read the state from before it waited, and its first write to a row those stores changed
/// would fail with 40001. The table holds no rows; EXCLUSIVE mode lets reads of it through.
///
/// Two limits: a transaction that holds the turn and sits idle longer than ``idleLimit`` is
/// ended by the server (a client that vanished holds the other writers that long at most),
/// and a store of this process whose write would wait for a turn its own thread holds
/// through another store of the schema throws instead of waiting for ever (``held``).
enum PostgresWriteTurn {
    static let table = "_shark_write_turn"

    /// Installed with the other functions (``PostgresFunctions``).
    static let definitions = ["CREATE TABLE IF NOT EXISTS \(table) ()"]

    /// The statement that takes the turn, first in the transaction.
    static let take = "LOCK TABLE \(table) IN EXCLUSIVE MODE"

    /// How long a transaction holding the turn may sit idle before the server ends it.
    static let idleLimit = "30s"

    /// The statement that bounds how long the turn is held idle, for the rest of the transaction.
    static let limitIdling = "SET LOCAL idle_in_transaction_session_timeout = '\(idleLimit)'"

    /// The turns this process's stores hold, by schema (server, database and schema), with
    /// the thread whose transaction holds each.
    private static let held = Mutex<[String: ObjectIdentifier]>([:])

    /// Throws when the calling thread holds the turn of `schema` already (through another
    /// store): waiting for it would never end.
    static func checkNotHeld(_ schema: String) throws {
        let thread = ObjectIdentifier(Thread.current)
        if held.withLock({ $0[schema] }) == thread {
            throw SharkError.transactionMisuse(
                .turnHeldByThisThread,
                "another store of schema \(schema) holds the turn to write on this thread: this write would wait "
                    + "for itself (write through that store, or after its transaction ends)")
        }
    }

    /// Notes that the calling thread holds the turn of `schema`.
    static func noteTaken(_ schema: String) {
        let thread = ObjectIdentifier(Thread.current)
        held.withLock { $0[schema] = thread }
    }

    /// Notes that the turn of `schema` is free again (its transaction ended).
    static func noteReleased(_ schema: String) {
        held.withLock { _ = $0.removeValue(forKey: schema) }
    }
}

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
enum PostgresWriteTurn {
    static let table = "_shark_write_turn"

    /// Installed with the other functions (``PostgresFunctions``).
    static let definitions = ["CREATE TABLE IF NOT EXISTS \(table) ()"]

    /// The statement that takes the turn, first in the transaction.
    static let take = "LOCK TABLE \(table) IN EXCLUSIVE MODE"
}

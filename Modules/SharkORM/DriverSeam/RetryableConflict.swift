/// A driver's error saying that a transaction lost a race with another writer of the same
/// storage — PostgreSQL's serialization failure (SQLSTATE 40001) or deadlock (40P01): nothing
/// of it was committed, and running it again may well succeed.
///
/// The store runs a closure transaction (`store.write { … }`, `store.transaction { … }`)
/// again when its outermost attempt fails with such an error: it rolls back, gives every
/// object the transaction wrote the stored row back (as after any failed transaction), waits
/// a few randomized milliseconds, and runs the body again, at most
/// ``Store/transactionAttempts`` times in all; the last attempt's error reaches the caller. A
/// body that fetches what it changes (a read-modify-write) does it all again on fresh data.
/// Single operations outside a transaction (`commit`, `remove`, `updateAll`…) are not run
/// again — their objects got the stored row back, so a second run would write nothing — and
/// their conflict reaches the caller. A savepoint never retries on its own.
///
/// Embedded drivers, whose writer is the only one, never raise it. A driver's error type may
/// adopt the protocol for all its cases and say which are conflicts with ``isConflict``.
@_spi(SharkDriver) public protocol RetryableConflict: Error {
    /// Whether this error is a lost race, worth running the transaction again for.
    var isConflict: Bool { get }
}

extension Store {
    /// How many times a closure transaction runs at most when each attempt loses a race with
    /// another writer of the same database (a server database's serialization failure, such
    /// as `PostgresError.transactionConflict`): 10. A body may therefore run more than once:
    /// keep what it does outside the store (a network call, a counter of the app's) out of
    /// it, and make its changes to objects inside it (changes made before it to an object it
    /// commits are undone by the rollback, as after any failure).
    ///
    /// ```swift
    /// try store.write { tx in                       // runs again if another process won
    ///     guard let account = try store.find(Account.self, id: 1) else { return }
    ///     account.balance -= 10
    ///     try tx.commit(account)
    /// }
    /// print(Store.transactionAttempts)              // 10
    /// ```
    public static let transactionAttempts = 10
}

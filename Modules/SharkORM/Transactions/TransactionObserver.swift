/// Takes part in every write transaction of a store: sees its changes just before COMMIT,
/// inside the transaction, and may write in it. What it writes commits or rolls back with the
/// transaction, and is not shown to observers again.
///
/// This is the stage of the write pipeline where change capture lives (sync records its
/// change log here, so a change and its log entry commit or roll back together). Rolled-back
/// savepoints leave nothing in what observers see; a vetoed write never reaches them.
///
/// ```swift
/// final class AuditLog: TransactionObserver {
///     func transactionWillCommit(_ changes: [Change], in transaction: WriteTransaction) throws {
///         for change in changes { try transaction.commit(AuditEntry(change)) }
///     }
/// }
/// store.addTransactionObserver(AuditLog())
/// ```
public protocol TransactionObserver: AnyObject, Sendable {
    /// Entities that raw SQL must not write: a raw statement that would is refused with
    /// ``SharkError/invalidQuery(_:)`` before it runs, since its changes cannot be reported
    /// row by row. Empty by default.
    var protectedEntities: Set<String> { get }

    /// Called once per transaction that changed something, before COMMIT, on the thread
    /// running it. Throwing rolls the whole transaction back and the error reaches the caller.
    func transactionWillCommit(_ changes: [Change], in transaction: WriteTransaction) throws
}

extension TransactionObserver {
    public var protectedEntities: Set<String> { [] }
}

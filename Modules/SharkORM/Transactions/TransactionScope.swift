import Foundation
import Synchronization

/// Where the code running inside a transaction's body finds that transaction: a task-local
/// list of the transactions open around it, innermost last.
///
/// A task-local, not the thread, so that Shark's style — `store.transaction { try
/// person.commit() }`, where `commit()` is not handed the transaction — works the same from a
/// thread, a task or an actor. Task-locals are inherited by child tasks (`Task {}`,
/// `async let`), which run elsewhere and possibly later: each transaction therefore also
/// records the thread its body runs on, and refuses to be used from any other, or once its
/// body has returned, with ``SharkError/transactionMisuse(_:)``.
enum TransactionScope {
    @TaskLocal static var open: [any ScopedTransaction] = []

    /// Runs `body` with `transaction` added to the open ones.
    static func with<T>(_ transaction: any ScopedTransaction, _ body: () throws -> T) rethrows -> T {
        try $open.withValue(open + [transaction], operation: body)
    }

    /// The innermost open transaction of `store` of type `T` usable here, nil when there is
    /// none, and a misuse error when the only ones there are belong to another thread or have
    /// ended (a child task that inherited them).
    static func current<T: ScopedTransaction>(_: T.Type, of store: Store) throws(SharkError) -> T? {
        var misuse: SharkError?
        for transaction in open.reversed() {
            guard let transaction = transaction as? T, transaction.store === store else { continue }
            if let problem = transaction.usability() {
                misuse = misuse ?? problem
                continue
            }
            return transaction
        }
        if let misuse { throw misuse }
        return nil
    }

    /// The calling thread, as an identity to compare.
    static var currentThread: UInt {
        #if canImport(Glibc) || canImport(Musl)
            return UInt(pthread_self())
        #else
            return UInt(bitPattern: pthread_self())
        #endif
    }
}

/// A transaction whose body code finds it through ``TransactionScope``.
protocol ScopedTransaction: AnyObject, Sendable {
    var store: Store { get }
    /// Why it cannot be used here, or nil when it can.
    func usability() -> SharkError?
}

/// The confinement every transaction value enforces: usable only on the thread that runs its
/// body, and only until the body returns.
final class Confinement: Sendable {
    private let thread = TransactionScope.currentThread
    private let ended = Atomic<Bool>(false)

    init() {}

    func end() { ended.store(true, ordering: .releasing) }

    var isActive: Bool { !ended.load(ordering: .acquiring) }

    func problem(_ kind: String) -> SharkError? {
        if ended.load(ordering: .acquiring) {
            return .transactionMisuse(
                .ended,
                "this \(kind) has ended: use a transaction only inside its own body (a task started inside it "
                    + "runs later, elsewhere; give it its own with `await store.write { … }`)")
        }
        if thread != TransactionScope.currentThread {
            return .transactionMisuse(
                .otherThread,
                "this \(kind) is being used from another thread or task while its body runs; its body runs on one "
                    + "thread, and other tasks write through the store (`await store.write { … }`), which waits for it")
        }
        return nil
    }
}

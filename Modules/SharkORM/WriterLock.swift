import Foundation
import Synchronization

/// The lock that serializes a store's writes, and that knows which thread holds it.
///
/// Knowing the owner matters twice: a transaction started inside another on the same thread
/// must become a savepoint rather than deadlock, and a read inside a transaction must run on
/// the writer connection so it sees the transaction's own writes.
final class WriterLock: Sendable {
    private let mutex = NSLock()
    private let owner = Atomic<UInt>(0)

    /// Whether the calling thread holds the lock.
    var isHeldByCurrentThread: Bool { owner.load(ordering: .acquiring) == Self.currentThread }

    /// Runs `body` holding the lock; re-entrant on the owning thread.
    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        let me = Self.currentThread
        if owner.load(ordering: .acquiring) == me { return try body() }
        mutex.lock()
        owner.store(me, ordering: .releasing)
        defer {
            owner.store(0, ordering: .releasing)
            mutex.unlock()
        }
        return try body()
    }

    private static var currentThread: UInt {
        #if canImport(Glibc) || canImport(Musl)
            return UInt(pthread_self())
        #else
            return UInt(bitPattern: pthread_self())
        #endif
    }
}

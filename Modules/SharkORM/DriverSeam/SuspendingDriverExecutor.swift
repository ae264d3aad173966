import Foundation
import Synchronization

/// How a driver whose engine is asynchronous (a network database's client) implements the
/// blocking driver seam: each ``DriverConnection`` method hands its async work to
/// ``wait(for:)``, which runs it on this executor's own thread and blocks the caller until it
/// is done (docs/architecture.md, "Drivers whose calls suspend").
///
/// ```swift
/// @_spi(SharkDriver) import SharkORM
///
/// actor RemoteRows {                  // what a driver awaits: its connection, say
///     private var rows: [Int64: String] = [:]
///     func delete(_ row: Int64) -> Bool { rows.removeValue(forKey: row) != nil }
/// }
///
/// // In a DriverConnection's blocking method: the work awaits, this thread waits for it.
/// let executor = SuspendingDriverExecutor(name: "remote driver")
/// let remote = RemoteRows()
/// let deleted = try executor.wait { await remote.delete(42) }
/// executor.shutdown()                 // when the driver closes
/// ```
///
/// The store calls drivers only from threads that may block (its own worker threads for the
/// async API, the app's thread for the blocking one). The operation runs with this executor
/// as its task executor preference, so its continuations (and, as a rule, the default actors
/// it calls) run on this executor's thread rather than on Swift's cooperative pool: no thread
/// of the pool ever waits for another.
///
/// An operation must not call back into the blocking seam of the same executor (it would
/// wait for itself): that call throws ``SharkError/transactionMisuse(_:)``.
@_spi(SharkDriver) public final class SuspendingDriverExecutor: TaskExecutor, @unchecked Sendable {
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var stopping = false
    /// Operations handed to ``wait(for:)`` and not finished: the thread outlives them.
    private var inFlight = 0
    private var thread: Thread?
    private let name: String

    /// Creates an executor with one thread of its own, started on first use and ended by
    /// ``shutdown()`` (a driver calls it when it closes).
    public init(name: String = "Shark suspending driver") {
        self.name = name
    }

    /// Runs `operation` on this executor and returns its result, blocking the calling thread
    /// until then. Its error is rethrown as it is.
    public func wait<T: Sendable>(for operation: @escaping @Sendable () async throws -> T) throws -> T {
        if Thread.current.threadDictionary[Self.marker] as? ObjectIdentifier == ObjectIdentifier(self) {
            throw SharkError.transactionMisuse(
                .reentrantDriverCall,
                "a suspending driver's operation called back into its own blocking seam: it would wait for itself")
        }
        condition.lock()
        if stopping {
            condition.unlock()
            throw SharkError.closed
        }
        inFlight += 1
        condition.unlock()
        defer {
            condition.lock()
            inFlight -= 1
            condition.broadcast()
            condition.unlock()
        }
        let outcome = Mutex<Result<T, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task(executorPreference: self) {
            let result: Result<T, any Error>
            do { result = .success(try await operation()) } catch { result = .failure(error) }
            outcome.withLock { $0 = result }
            done.signal()
        }
        done.wait()
        return try outcome.withLock { $0! }.get()
    }

    /// Ends the thread once the operations already handed over have finished; later ones
    /// throw ``SharkError/closed``. A driver calls it when it closes.
    public func shutdown() {
        condition.lock()
        stopping = true
        condition.broadcast()
        condition.unlock()
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let unowned = UnownedJob(job)
        condition.lock()
        jobs.append(unowned)
        // Also after shutdown: an operation already in flight still needs its thread.
        if thread == nil { startThread() }
        condition.signal()
        condition.unlock()
    }

    /// The key under which this executor's thread names its executor (to catch re-entry).
    private static let marker = "SharkSuspendingDriverExecutor"

    private func startThread() {
        let thread = Thread { [self] in
            // Named from the inside: on Linux a thread otherwise keeps its creator's name.
            Thread.current.name = name
            Thread.current.threadDictionary[Self.marker] = ObjectIdentifier(self)
            runJobs()
        }
        self.thread = thread
        thread.start()
    }

    private func runJobs() {
        while true {
            condition.lock()
            while jobs.isEmpty && !(stopping && inFlight == 0) { condition.wait() }
            if jobs.isEmpty {
                thread = nil  // a job queued later (by a task an operation left behind) starts another
                condition.unlock()
                return
            }
            let batch = jobs
            jobs.removeAll(keepingCapacity: true)
            condition.unlock()
            for job in batch { job.runSynchronously(on: asUnownedTaskExecutor()) }
        }
    }
}

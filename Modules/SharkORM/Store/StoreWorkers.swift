import Foundation

/// Threads of a store's own, where the async API runs blocking work (SQLite calls, file I/O)
/// so that it never occupies a thread of Swift's cooperative pool.
///
/// A fixed number of threads, started on first use, take jobs in order. A store has one
/// such group of a single thread for writes (the writer is one connection: one thread is
/// all it can use) and one for reads, as wide as its reader pool. The reads of live queries
/// go to a third group, of lower priority (see ``Priority/background``). The threads end
/// when the store closes or goes away.
final class StoreWorkers: @unchecked Sendable {
    enum Priority {
        /// The operating system's default: the app's own reads and writes.
        case normal
        /// Work that may wait when the machine is busy: live queries re-reading after
        /// commits. On two cores, observers that compete as equals with the writer cost it a
        /// quarter of its speed (the cooperative pool's delivery work has to land somewhere);
        /// at lower priority the scheduler gives that room to the writer, and observers use
        /// what is left (shark-bench O, A/B of 7 runs: 1.26–1.34× the unobserved commits before,
        /// 1.08–1.22× after; docs/benchmarks.md).
        case background
    }

    /// A job that was handed over whole (`sending`): nothing else refers to it.
    private final class Job: @unchecked Sendable {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }

    private let name: String
    private let width: Int
    private let priority: Priority
    /// Where jobs go while an observation records the region it reads (see
    /// `TransactionScope.regions`), when this group has such a companion.
    private let observationWorkers: StoreWorkers?
    private let condition = NSCondition()
    private var jobs: [Job] = []
    private var started = 0
    private var stopping = false

    init(name: String, width: Int, priority: Priority = .normal, observationWorkers: StoreWorkers? = nil) {
        self.name = name
        self.width = max(1, width)
        self.priority = priority
        self.observationWorkers = observationWorkers
    }

    /// Runs `job` on one of the threads and returns its result to the awaiting task.
    ///
    /// The result travels back in a ``Transfer`` box: the job was handed over whole
    /// (`sending`) and runs exactly once, then is dropped, so whatever it returns is reachable
    /// from nothing but the result, and the caller may own it (`sending`). The compiler cannot
    /// follow that across the thread hop, hence the box.
    func run<T>(_ job: sending @escaping () throws -> T) async throws -> sending T {
        // An observation's region goes along, so that the reads on the worker count in it.
        let regions = TransactionScope.regions
        if !regions.isEmpty, let observationWorkers { return try await observationWorkers.run(job) }
        let handedOver = Transfer(value: job)
        let box = try await withCheckedThrowingContinuation {
            (continuation: CheckedContinuation<Transfer<T>, any Error>) in
            enqueue {
                do {
                    let value =
                        regions.isEmpty
                        ? try handedOver.value()
                        : try TransactionScope.$open.withValue(regions) { try handedOver.value() }
                    continuation.resume(returning: Transfer(value: value))
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
        return box.value
    }

    private func enqueue(_ closure: @escaping @Sendable () -> Void) {
        let job = Job(closure)
        condition.lock()
        if stopping {
            condition.unlock()
            job.run()  // a closed store: the job fails fast with `SharkError.closed` itself
            return
        }
        jobs.append(job)
        if started < width && started < jobs.count + busy {
            started += 1
            let threadName = "\(name) \(started)"
            let thread = Thread { [self] in
                Self.nameCurrentThread(threadName)
                workLoop()
            }
            if priority == .background { thread.qualityOfService = .utility }
            thread.start()
        }
        condition.signal()
        condition.unlock()
    }

    private var busy = 0

    /// The loop of each thread: take a job, run it, until the group stops.
    private func workLoop() {
        if priority == .background { Self.lowerThreadPriority() }
        condition.lock()
        while true {
            while jobs.isEmpty && !stopping { condition.wait() }
            if jobs.isEmpty && stopping { break }
            let job = jobs.removeFirst()
            busy += 1
            condition.unlock()
            job.run()
            condition.lock()
            busy -= 1
        }
        started -= 1
        condition.unlock()
    }

    /// Lets the threads finish the jobs already queued, then end.
    func stop() {
        condition.lock()
        stopping = true
        condition.broadcast()
        condition.unlock()
        observationWorkers?.stop()
    }

    /// Gives the calling thread a lower priority than the process's other threads. Apple
    /// platforms take the quality of service set before the thread started; on Linux the nice
    /// value belongs to each thread (NPTL), and `setpriority` with `who` 0 changes the
    /// calling one. Raising a nice value needs no privilege; a failure leaves the default.
    /// Names the calling thread: seen in debuggers, `top -H` and crash reports. From the
    /// thread itself, and on Linux through the kernel's own file for it: a name set before the
    /// start does not always reach the system, nor, now and then, one set through
    /// `Thread.current` on a thread given a quality of service (the thread then shows its
    /// creator's name); one longer than 15 bytes never does.
    private static func nameCurrentThread(_ name: String) {
        Thread.current.name = name
        #if os(Linux)
            let descriptor = open("/proc/thread-self/comm", O_WRONLY)
            guard descriptor >= 0 else { return }
            defer { close(descriptor) }
            let bytes = Array(name.utf8.prefix(15))
            _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        #endif
    }

    private static func lowerThreadPriority() {
        #if os(Linux)
            _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 10)
        #endif
    }

    deinit { stop() }
}

/// A value handed from one thread to another by code that guarantees nothing else refers to
/// it (see ``StoreWorkers/run(_:)``).
struct Transfer<T>: @unchecked Sendable {
    var value: T
}

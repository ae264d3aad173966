import Foundation
import Synchronization

/// How many live-query computations of a store run at once: one core fewer than the machine
/// has (at least one), so that however many queries observe, the writer keeps a core.
///
/// Observers that wait here fall behind during a burst of commits and then coalesce them
/// into one more run each (see ``LiveQuery``), so fewer runs do the same work: observation
/// costs the writer little, and observers catch up as soon as the burst ends. Their reads run
/// on threads of lower priority (`StoreWorkers.Priority.background`), so the writer also wins
/// what the cores left over are contended for.
///
/// Every `commitsPerLogRestart` commits, the gate also holds every observer back for a moment
/// and has the writer do the engine's idle upkeep (`DriverConnection.performIdleMaintenance`):
/// readers that follow each other without a pause keep SQLite's write-ahead log, for one, from
/// ever starting over,
/// and a log grown to tens of megabytes slows every write and read (measured: the O workload
/// of shark-bench, docs/benchmarks.md).
final class ObserverGate: Sendable {
    private struct State {
        var available: Int
        var waiting: [CheckedContinuation<Void, Never>] = []
        /// The commit at which the log last restarted.
        var lastRestart: UInt64 = 0
        var isRestarting = false
    }

    static let commitsPerLogRestart: UInt64 = 64

    private let state: Mutex<State>
    private let width: Int

    init(width: Int = max(1, ProcessInfo.processInfo.activeProcessorCount - 1)) {
        self.width = width
        state = Mutex(State(available: width))
    }

    /// Runs `body`, a computation reading `store`, once a place is free.
    func run<T>(in store: Store, _ body: () async throws -> sending T) async rethrows -> sending T {
        await maintainIfDue(store)
        await enter()
        defer { leave() }
        return try await body()
    }

    /// Has the writer restart the log while no observer reads, when enough commits went by.
    private func maintainIfDue(_ store: Store) async {
        let due = state.withLock { state -> Bool in
            guard !state.isRestarting, store.lastCommitSequence &- state.lastRestart >= Self.commitsPerLogRestart
            else { return false }
            state.isRestarting = true
            return true
        }
        guard due else { return }
        for _ in 0..<width { await enter() }  // every place: no observer computes meanwhile
        let sequence = store.lastCommitSequence
        // Between transactions, on the writer's thread; a closed store just skips it.
        try? await store.writerThread.run { try store.withWriterAccess { try $0.performIdleMaintenance() } }
        state.withLock { state in
            state.lastRestart = sequence
            state.isRestarting = false
        }
        for _ in 0..<width { leave() }
    }

    private func enter() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let admitted = state.withLock { state -> Bool in
                guard state.available == 0 else {
                    state.available -= 1
                    return true
                }
                state.waiting.append(continuation)
                return false
            }
            if admitted { continuation.resume() }
        }
    }

    private func leave() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.waiting.isEmpty else {
                state.available += 1
                return nil
            }
            return state.waiting.removeFirst()  // the place passes straight to the next waiter
        }
        next?.resume()
    }
}

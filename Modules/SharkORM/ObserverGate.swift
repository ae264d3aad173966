import Foundation
import Synchronization

/// How many live-query computations of a store run at once: one core fewer than the machine
/// has (at least one), so that however many queries observe, the writer keeps a core.
///
/// Observers that wait here fall behind during a burst of commits and then coalesce them
/// into one more run each (see ``LiveQuery``), so fewer runs do the same work: observation
/// costs the writer little, and observers catch up as soon as the burst ends.
final class ObserverGate: Sendable {
    private struct State {
        var available: Int
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let state: Mutex<State>

    init(width: Int = max(1, ProcessInfo.processInfo.activeProcessorCount - 1)) {
        state = Mutex(State(available: width))
    }

    /// Runs `body` once a place is free.
    func run<T>(_ body: () async throws -> sending T) async rethrows -> sending T {
        await enter()
        defer { leave() }
        return try await body()
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

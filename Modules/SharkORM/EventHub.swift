import Synchronization

/// The listeners of a store's commit events, and its commit counter.
///
/// Events are handed over inside the writer's lock, right after COMMIT, so every listener
/// receives them in commit order; handing over is a `yield` into each listener's unbounded
/// stream, which never blocks the writer and never drops an event. Listeners consume their
/// streams on their own tasks or queues (see `Store+Events.swift`).
final class EventHub: Sendable {
    private struct State {
        var nextID = 0
        var listeners: [Int: AsyncStream<CommitEvent>.Continuation] = [:]
        var isClosed = false
    }

    private let state = Mutex(State())
    /// Read on every transaction: whether to record changes for events at all.
    private let listenerCount = Atomic<Int>(0)
    private let sequence = Atomic<UInt64>(0)

    var hasListeners: Bool { listenerCount.load(ordering: .relaxed) > 0 }

    /// The number of the last transaction committed.
    var lastSequence: UInt64 { sequence.load(ordering: .acquiring) }

    /// A new listener's stream of events, from the next commit on. On a closed store the
    /// stream ends at once.
    func listen() -> AsyncStream<CommitEvent> {
        let (stream, continuation) = AsyncStream<CommitEvent>.makeStream(bufferingPolicy: .unbounded)
        let id: Int? = state.withLock { state in
            guard !state.isClosed else { return nil }
            state.nextID += 1
            state.listeners[state.nextID] = continuation
            listenerCount.add(1, ordering: .relaxed)
            return state.nextID
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in self?.remove(id) }
        return stream
    }

    private func remove(_ id: Int) {
        state.withLock { state in
            if state.listeners.removeValue(forKey: id) != nil { listenerCount.subtract(1, ordering: .relaxed) }
        }
    }

    /// Counts a committed transaction and hands its event, if it has one, to every listener.
    /// Called by the writer, inside its lock, in commit order.
    func committed(_ makeEvent: (UInt64) -> CommitEvent?) {
        let number = sequence.add(1, ordering: .releasing).newValue
        guard hasListeners, let event = makeEvent(number) else { return }
        let listeners = state.withLock { Array($0.listeners.values) }
        for listener in listeners { listener.yield(event) }
    }

    /// Ends every listener's stream: the store closed.
    func close() {
        let listeners = state.withLock { state in
            state.isClosed = true
            defer { state.listeners.removeAll() }
            return Array(state.listeners.values)
        }
        listenerCount.store(0, ordering: .relaxed)
        for listener in listeners { listener.finish() }
    }
}

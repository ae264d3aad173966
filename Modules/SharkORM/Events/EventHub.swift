import Synchronization

/// What observations hear of each commit: its number, and its changes — or that they are
/// unknown, when the transaction began before anyone listened and so recorded nothing.
struct CommitNotice: Sendable {
    let sequence: UInt64
    /// The changes, netted out; nil when unknown.
    let event: CommitEvent?

    /// Whether the commit may have changed `entity`: it did, or nobody knows.
    func mayTouch(_ entities: Set<String>) -> Bool {
        guard let event else { return true }
        return event.entities.keys.contains { entities.contains($0) }
    }
}

/// The listeners of a store's commits, and its commit counter.
///
/// Commits are handed over inside the writer's lock, right after COMMIT, so every listener
/// receives them in commit order; handing over is a `yield` into each listener's unbounded
/// stream, which never blocks the writer and never drops anything. Listeners consume their
/// streams on their own tasks or queues (see `Store+Events.swift`, `LiveQuery.swift`).
///
/// Two kinds of listener: the app's event streams get the commits that changed something
/// they can name; observations get every commit (see ``CommitNotice``), so that they can
/// tell when they have caught up with a given commit, and re-run when changes are unknown.
final class EventHub: Sendable {
    private struct State {
        var nextID = 0
        var events: [Int: AsyncStream<CommitEvent>.Continuation] = [:]
        var notices: [Int: AsyncStream<CommitNotice>.Continuation] = [:]
        var isClosed = false
    }

    private let state = Mutex(State())
    /// Read on every transaction: whether to record changes at all.
    private let listenerCount = Atomic<Int>(0)
    private let sequence = Atomic<UInt64>(0)

    var hasListeners: Bool { listenerCount.load(ordering: .relaxed) > 0 }

    /// The number of the last transaction committed.
    var lastSequence: UInt64 { sequence.load(ordering: .acquiring) }

    /// A new stream of the commit events that changed something, from the next transaction
    /// to begin. On a closed store the stream ends at once.
    func events() -> AsyncStream<CommitEvent> {
        listen(\.events)
    }

    /// A new stream of every commit from now on (see ``CommitNotice``).
    func notices() -> AsyncStream<CommitNotice> {
        listen(\.notices)
    }

    private func listen<Element>(
        _ listeners: WritableKeyPath<State, [Int: AsyncStream<Element>.Continuation]>
    ) -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream<Element>.makeStream(bufferingPolicy: .unbounded)
        let id: Int? = state.withLock { state in
            guard !state.isClosed else { return nil }
            state.nextID += 1
            state[keyPath: listeners][state.nextID] = continuation
            listenerCount.add(1, ordering: .relaxed)
            return state.nextID
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { state in
                // Identifiers are unique across both kinds of listener.
                if state.events.removeValue(forKey: id) != nil || state.notices.removeValue(forKey: id) != nil {
                    self?.listenerCount.subtract(1, ordering: .relaxed)
                }
            }
        }
        return stream
    }

    /// Counts a committed transaction and tells the listeners. Called in commit order, one
    /// call at a time: by the writer, inside its lock, or, on a database other stores write
    /// too, under the lock of the driver's ``SharedChangeLog`` (which also hands over the
    /// other stores' commits, through ``committedRemotely(_:origin:isComplete:)``). `makeEvent` gives the
    /// netted-out changes (nil when there were none); `recorded` says whether the transaction
    /// recorded its changes at all.
    func committed(recorded: Bool, _ makeEvent: (UInt64) -> CommitEvent?) {
        let number = sequence.add(1, ordering: .releasing).newValue
        guard hasListeners else { return }
        let event = recorded ? makeEvent(number) : nil
        let (events, notices) = state.withLock { (Array($0.events.values), Array($0.notices.values)) }
        if let event {
            for listener in events { listener.yield(event) }
        }
        guard !notices.isEmpty else { return }
        let notice = CommitNotice(
            sequence: number,
            event: recorded ? (event ?? CommitEvent(sequence: number, origin: .local, entities: [:])) : nil)
        for listener in notices { listener.yield(notice) }
    }

    /// Counts a commit another store made and tells the listeners (see ``committed(recorded:_:)``
    /// for when it may be called). `isComplete` false: commits this store missed because
    /// their record is gone; `entities` then names every entity with unknown changes, for
    /// the app's streams, and observations take everything as changed.
    func committedRemotely(_ entities: [String: EntityChanges], origin: ChangeOrigin, isComplete: Bool) {
        let number = sequence.add(1, ordering: .releasing).newValue
        guard hasListeners else { return }
        let event =
            entities.isEmpty ? nil : CommitEvent(sequence: number, origin: origin, isRemote: true, entities: entities)
        let (events, notices) = state.withLock { (Array($0.events.values), Array($0.notices.values)) }
        if let event {
            for listener in events { listener.yield(event) }
        }
        let notice = CommitNotice(
            sequence: number,
            event: isComplete ? (event ?? CommitEvent(sequence: number, origin: origin, entities: [:])) : nil)
        for listener in notices { listener.yield(notice) }
    }

    /// Ends every listener's stream: the store closed.
    func close() {
        let (events, notices) = state.withLock { state in
            state.isClosed = true
            defer {
                state.events.removeAll()
                state.notices.removeAll()
            }
            return (Array(state.events.values), Array(state.notices.values))
        }
        listenerCount.store(0, ordering: .relaxed)
        for listener in events { listener.finish() }
        for listener in notices { listener.finish() }
    }
}

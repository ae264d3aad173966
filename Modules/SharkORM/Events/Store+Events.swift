import Foundation

/// Commit events: after each transaction commits, what it changed (see ``CommitEvent``), as
/// an `AsyncSequence` or through a callback.
///
/// ```swift
/// let task = Task {
///     for await people in store.events(for: Person.self) {
///         print("\(people.inserted.count) inserted, \(people.removed.count) removed")
///     }
/// }
/// let subscription = store.onCommit(queue: .main) { event in
///     print("commit \(event.sequence) changed \(event.entities.keys.sorted())")
/// }
/// ```
///
/// Listening starts with the next transaction to begin. Events arrive in commit order, never
/// for rolled-back work, and never stall the writer: each listener has its own unbounded
/// buffer, drained at its own pace. Closing the store ends every sequence.
extension Store {
    /// Every commit event of this store, from the next transaction on.
    ///
    /// ```swift
    /// for await event in store.events() { print(event.sequence, event.entities.keys) }
    /// ```
    public func events() -> AsyncStream<CommitEvent> {
        eventHub.events()
    }

    /// The changes of each commit that touched `M`'s entity, with `M`'s key type.
    ///
    /// ```swift
    /// for await people in store.events(for: Person.self) { print(people.updated) }
    /// ```
    public func events<M: Model>(for type: M.Type) -> AsyncCompactMapSequence<AsyncStream<CommitEvent>, ModelChanges<M>>
    {
        eventHub.events().compactMap { $0.changes(for: M.self) }
    }

    /// The number of the last transaction this store committed (see
    /// ``CommitEvent/sequence``); 0 before the first.
    public var lastCommitSequence: UInt64 { eventHub.lastSequence }

    /// Calls `handler` on `queue` with every commit event, in commit order (`queue` should be
    /// serial: the main queue, or one of your own), until the subscription is cancelled or
    /// released.
    ///
    /// ```swift
    /// let subscription = store.onCommit(queue: .main) { event in refreshBadges(event) }
    /// // later: subscription.cancel(), or let it go
    /// ```
    public func onCommit(
        queue: DispatchQueue, _ handler: @escaping @Sendable (CommitEvent) -> Void
    ) -> EventSubscription {
        EventSubscription(events: eventHub.events()) { event in queue.async { handler(event) } }
    }

    /// Calls `handler` on `queue` with the changes of every commit that touched `M`.
    ///
    /// ```swift
    /// let subscription = store.onCommit(of: Person.self, queue: .main) { people in print(people.inserted) }
    /// ```
    public func onCommit<M: Model>(
        of type: M.Type, queue: DispatchQueue, _ handler: @escaping @Sendable (ModelChanges<M>) -> Void
    ) -> EventSubscription {
        EventSubscription(events: eventHub.events()) { event in
            if let changes = event.changes(for: M.self) { queue.async { handler(changes) } }
        }
    }

    /// Calls `handler` isolated to `actor` (`MainActor.shared`, or any actor of yours) with
    /// every commit event, one at a time and in commit order. The handler is given the actor,
    /// isolated: it reaches the actor's state synchronously.
    ///
    /// ```swift
    /// actor Tally {
    ///     var commits = 0
    ///     func count(_ event: CommitEvent) { commits += 1 }
    /// }
    /// let tally = Tally()
    /// let subscription = store.onCommit(on: tally) { tally, event in tally.count(event) }
    /// ```
    public func onCommit<A: Actor>(
        on actor: A, _ handler: @escaping @Sendable (isolated A, CommitEvent) -> Void
    ) -> EventSubscription {
        let events = eventHub.events()
        let task = Task {
            // A stream hands out what it buffered even after its task was cancelled.
            for await event in events where !Task.isCancelled { await deliver(event, to: actor, handler) }
        }
        return EventSubscription(stoppingTask: task)
    }
}

private func deliver<A: Actor>(
    _ event: CommitEvent, to actor: isolated A, _ handler: @Sendable (isolated A, CommitEvent) -> Void
) {
    handler(actor, event)
}

/// Keeps a commit-event callback registered: delivery stops when it is cancelled or released.
///
/// ```swift
/// var subscription: EventSubscription? = store.onCommit(queue: .main) { print($0.sequence) }
/// subscription = nil   // no more calls
/// ```
public final class EventSubscription: Sendable {
    private let task: Task<Void, Never>

    /// Forwards each event of `events` to `forward`, on a task of its own.
    init(events: AsyncStream<CommitEvent>, forward: @escaping @Sendable (CommitEvent) -> Void) {
        task = Task {
            for await event in events where !Task.isCancelled { forward(event) }
        }
    }

    init(stoppingTask task: Task<Void, Never>) {
        self.task = task
    }

    /// Stops delivery. A call already handed to its queue or actor may still run.
    public func cancel() {
        task.cancel()
    }

    deinit {
        task.cancel()
    }
}

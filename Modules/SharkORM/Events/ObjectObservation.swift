/// What a commit did to an observed object (see ``Store/observe(_:isolation:_:)``).
///
/// ```swift
/// let subscription = try store.observe(ada) { event in
///     switch event {
///     case .updated(let properties, _): print("now", ada.name, "after changes to", properties)
///     case .removed: print("gone")
///     }
/// }
/// ```
public enum ObjectEvent: Sendable, Hashable {
    /// A commit changed these stored properties of the object's row; the object was refreshed
    /// before the handler ran.
    case updated(Set<String>, sequence: UInt64)
    /// A commit removed the object's row. Observing it ends there.
    case removed(sequence: UInt64)
}

extension Store {
    /// Observes one stored object, as Shark's object event handler does, and makes it live:
    /// when a commit anywhere (another thread, another instance of the same row, a sync
    /// import, raw SQL) changes its row, its properties are refreshed and then `handler` runs,
    /// both on the actor of the caller. Its own unsaved changes are kept, and win until
    /// committed.
    ///
    /// ```swift
    /// @MainActor final class ProfileScreen {
    ///     let person: Person
    ///     var subscription: EventSubscription?
    ///     init(person: Person) { self.person = person }
    ///     func appear(store: Store) throws {
    ///         subscription = try store.observe(person) { event in self.render() }
    ///     }
    ///     func render() { print(person.name) }
    /// }
    /// ```
    ///
    /// Model objects are not `Sendable`, so a live object belongs to an actor (the main actor,
    /// or one of yours): call this from that actor. The refresh reads on a reader thread, never
    /// on the actor. Delivery stops when the subscription is cancelled or released, when the
    /// object is removed, or when the store closes. Throws ``SharkError/notPersisted(entity:)``
    /// for an object this store has not stored.
    public func observe<M: Model>(
        _ object: M, isolation: isolated any Actor = #isolation, _ handler: @escaping (ObjectEvent) -> Void
    ) throws -> EventSubscription {
        guard object._$shark.isPersisted, object._$shark.store === self else {
            throw SharkError.notPersisted(entity: M._sharkEntityName)
        }
        let notices = eventHub.notices()
        let task = Task {
            await follow(object, notices: notices, isolation: isolation, handler)
        }
        return EventSubscription(stoppingTask: task)
    }

    /// The observing loop of ``observe(_:isolation:_:)``, isolated to the observer's actor.
    private func follow<M: Model>(
        _ object: M, notices: AsyncStream<CommitNotice>, isolation: isolated any Actor,
        _ handler: (ObjectEvent) -> Void
    ) async {
        let entity = M._sharkEntityName
        let key = object.id.columnValue
        for await notice in notices {
            // A stream hands out what it buffered even after its task was cancelled.
            if Task.isCancelled { return }
            // The properties the commit names for this row ([] when it inserted the row
            // again), and whether its changes are unknown (raw SQL, or a transaction older
            // than the observation), in which case the row is read and compared.
            var named: Set<String>?
            var unknown = true
            if let event = notice.event {
                guard let changes = event.entities[entity] else { continue }
                if changes.removed.contains(key) {
                    handler(.removed(sequence: notice.sequence))
                    return
                }
                named = changes.updated[key] ?? (changes.inserted.contains(key) ? [] : nil)
                unknown = changes.hasUnknownChanges
                guard named != nil || unknown else { continue }
            }
            let read: [Value]?
            do {
                read = try await readerThreads.run { try self.storedValues(of: M.self, key: key) }
            } catch {
                continue  // the store closed: the stream ends next
            }
            guard let stored = read else {
                handler(.removed(sequence: notice.sequence))
                return
            }
            let changed = refreshKeepingChanges(object, from: stored)
            if let named {
                handler(.updated(named.isEmpty ? changed : named, sequence: notice.sequence))
            } else if !changed.isEmpty {
                handler(.updated(changed, sequence: notice.sequence))
            }
        }
    }

    /// Sets the stored values of `object` from `stored`, except the columns it has unsaved
    /// changes in; returns the names of the properties whose values changed.
    private func refreshKeepingChanges<M: Model>(_ object: M, from stored: [Value]) -> Set<String> {
        let current = SharkORM.storedValues(of: object)
        var merged = stored
        for column in object._$shark.dirty where Int(column) < merged.count {
            merged[Int(column)] = current[Int(column)]
        }
        let columns = M._sharkSchemaColumns
        var changed: Set<String> = []
        for index in merged.indices where index < current.count && merged[index] != current[index] {
            changed.insert(columns[index].name)
        }
        // The row keeps the object's state: its unsaved changes stay marked as such.
        try? object._sharkRestore(from: ValueRowReader(merged))
        return changed
    }
}

/// What a driver offers when other stores write the same database (other processes or
/// machines on one PostgreSQL server, another `Store` instance in this process): a record of
/// every commit's changes that the other stores read, and a report of theirs to this store,
/// so that their commits reach this store's events, live queries and observed objects, in
/// commit order, each once.
///
/// The store calls it around each outermost write transaction that changed something:
///
/// 1. ``record(_:origin:)`` on the writer, inside the transaction, after the in-transaction
///    observers and just before COMMIT, with the transaction's net changes. The driver
///    writes them for the other stores, in the same transaction, at a position that follows
///    commit order.
/// 2. After COMMIT, ``publish(_:)`` with the writer still held: the driver first hands the
///    sink every other store's commit that committed before this one and has not been
///    handed over yet, then runs the closure, which publishes this commit to the listeners.
/// 3. If the transaction did not commit after all (a rollback, a failed COMMIT),
///    ``discard()`` instead.
///
/// A transaction that changed nothing is published through ``publish(_:)`` without a
/// record. Between those calls the driver hands the sink the other stores' commits as it
/// hears of them, one call at a time and never during a `publish` (the sink's calls and the
/// store's own publications share one order). docs/architecture.md, "Events across
/// processes", describes the PostgreSQL driver's log.
///
/// ```swift
/// @_spi(SharkDriver) import SharkORM
///
/// // A driver whose storage only its store writes has no shared log: the default.
/// func isShared(_ driver: any Driver) -> Bool {
///     driver.sharedChangeLog != nil
/// }
/// ```
@_spi(SharkDriver) public protocol SharedChangeLog: AnyObject, Sendable {
    /// Starts handing `sink` the commits of other stores, from the state of the database
    /// now. Called once, when the store opens.
    func start(reporting sink: RemoteCommitSink)
    /// Writes what the open transaction changed for the other stores to read (step 1).
    func record(_ changes: [String: EntityChanges], origin: ChangeOrigin) throws
    /// Hands over the other stores' earlier commits, then runs `publishLocalCommit` (step 2).
    func publish(_ publishLocalCommit: () -> Void)
    /// Forgets the record of a transaction that did not commit (step 3).
    func discard()
    /// Makes each later write transaction of this store begin by waiting until no other
    /// store that asked the same is writing, and see everything those stores committed:
    /// what a store whose every transaction reads and rewrites the same bookkeeping needs.
    /// Sync asks (one database is one sync site, its transactions numbered in commit order;
    /// docs/architecture.md, "Sync on a shared database"). Stores that did not ask still
    /// write beside them.
    func serializeWrites()
}

extension Store {
    /// Whether other stores write this store's database too (its driver has a
    /// ``SharedChangeLog``): a PostgreSQL store, not a SQLite file or the memory engine.
    @_spi(SharkReplication) public var sharesDatabase: Bool { sharedChangeLog != nil }

    /// From the next write transaction on, for the rest of the store's life, this store's
    /// write transactions take turns with those of the other stores of its database that
    /// asked the same, each seeing every earlier one (``SharedChangeLog/serializeWrites()``).
    /// Nothing changes for a database only this store writes: its writes take turns already.
    /// (A transaction already open goes on without the turn.)
    @_spi(SharkReplication) public func serializeWritesWithOtherStores() {
        sharedChangeLog?.serializeWrites()
    }
}

/// Where a ``SharedChangeLog`` hands the commits of other stores: into the store's events.
/// Holds the store's event hub, not the store: a store released while a commit is handed
/// over is never deinitialized on the driver's thread, and a sink outliving its store
/// reaches nobody.
@_spi(SharkDriver) public final class RemoteCommitSink: Sendable {
    private let hub: EventHub

    init(hub: EventHub) {
        self.hub = hub
    }

    /// Another store's commit, with its net changes and the origin it had there.
    public func committed(_ changes: [String: EntityChanges], origin: ChangeOrigin) {
        hub.committedRemotely(changes, origin: origin, isComplete: true)
    }

    /// Commits of other stores this store can no longer learn about (their record was
    /// pruned before it was read): `entities` are every entity of the database, each marked
    /// as changed in unknown ways, and every observation reads again.
    public func missedCommits(entities: [String]) {
        var changes: [String: EntityChanges] = [:]
        for entity in entities {
            var unknown = EntityChanges()
            unknown.hasUnknownChanges = true
            changes[entity] = unknown
        }
        hub.committedRemotely(changes, origin: .local, isComplete: false)
    }

    /// Whether anyone listens to the store's commits: when nobody does, a driver may count
    /// other stores' commits without reading what they changed (``missedCommits(entities:)``
    /// with no entities).
    public var hasListeners: Bool { hub.hasListeners }
}

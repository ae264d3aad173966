import Foundation
import PostgresNIO
@_spi(SharkDriver) import SharkORM
import Synchronization

/// The PostgreSQL driver's ``SharedChangeLog``: how the stores of one schema (other
/// processes, machines, `Store` instances) hear of each other's commits.
///
/// Writing: each write transaction that changed something records its net changes in
/// `_shark_changes` just before COMMIT, at a position allocated in commit order
/// (``PostgresChangeRecord``).
///
/// Reading: a connection of its own `LISTEN`s, and on every notification (and every few
/// seconds, and on every reconnection) reads the rows past the last position it read. NOTIFY
/// only wakes it: a notification lost with a connection loses nothing, since the table is
/// read from where it left off. Rows go to a buffer; whoever holds the order lock hands them
/// to the store in position order, each once, skipping this store's own rows (the store
/// publishes its commits itself). When this store commits, it first hands over every other
/// store's commit of a smaller position, reading them on the writer if the listener has not
/// yet: so this store's events follow commit order too.
///
/// A listener that was away longer than the retention finds the rows it missed pruned (the
/// horizon says so) and reports them as missed commits: every entity changed in unknown
/// ways, so observations read again. Nothing is lost, only less precise.
final class PostgresChangeFeed: SharedChangeLog, @unchecked Sendable {
    /// Names this store's rows, so that its own commits are not reported to it again.
    let storeID = UUID()
    private let context: PostgresContext
    private let writer: PostgresDriverConnection
    private let connect: @Sendable () async throws -> PostgresSession

    /// Held while commits are handed to the store: by the writer while it publishes, or by
    /// whoever drains the buffer. Never waited for on the executor's thread (the writer holds
    /// it across a round trip that needs that thread): the listener only tries it.
    private let order = NSLock()
    private let state: Mutex<State>
    private let listener = Mutex<Task<Void, Never>?>(nil)

    private struct State {
        /// The highest position handed to the store, or known not to concern it.
        var delivered: Int64
        /// The highest position the listener has read (every smaller one is read too, or
        /// was never committed: positions become visible in order).
        var readThrough: Int64
        /// Read and not handed over yet, in position order.
        var buffer: [Entry] = []
        /// The position this store's open transaction recorded, until it is published or
        /// discarded: its row, if the listener reads it first, waits for the store.
        var pending: Int64?
        var sink: RemoteCommitSink?
        /// Wakes the listener to read again.
        var wake: AsyncStream<Void>.Continuation?
    }

    /// One thing read from the log.
    enum Entry: Sendable {
        case commit(position: Int64, store: UUID, payload: String)
        /// Everything up to `through` was pruned before it was read; `entities` are every
        /// entity of the schema.
        case missed(through: Int64, entities: [String])

        var position: Int64 {
            switch self {
            case .commit(let position, _, _): position
            case .missed(let through, _): through
            }
        }
    }

    /// How long a record stays: a listener away longer misses what was pruned meanwhile.
    private let retention: String
    /// What the listener awaits before each connection attempt (tests hold it closed).
    private let beforeConnecting: (@Sendable () async -> Void)?

    init(
        context: PostgresContext, writer: PostgresDriverConnection,
        connect: @escaping @Sendable () async throws -> PostgresSession
    ) {
        self.context = context
        self.writer = writer
        self.connect = connect
        retention = "\(max(0, context.settings.changeRetention.components.seconds)) seconds"
        beforeConnecting = context.settings.beforeListenerConnects
        state = Mutex(State(delivered: 0, readThrough: 0))
    }

    /// Finds where the log ends, once the schema is set up: commits before this store opened
    /// are not its business.
    func findStart() throws {
        let start = try writer.perform { session in try await Self.end(of: session.untraced()) }
        state.withLock { state in
            state.delivered = start
            state.readThrough = start
        }
    }

    // MARK: SharedChangeLog

    func start(reporting sink: RemoteCommitSink) {
        state.withLock { $0.sink = sink }
        // Ended by stop(), which the driver calls when it closes.
        let task = Task(executorPreference: context.executor) { await self.listen() }
        listener.withLock { $0 = task }
    }

    func record(_ changes: [String: EntityChanges], origin: ChangeOrigin) throws {
        let payload = try PostgresChangeRecord.payload(changes, origin: origin)
        let storeID = self.storeID
        let retention = self.retention
        let position = try writer.perform { session in
            let rows = try await session.untraced().rows(
                "SELECT shark_record_commit($1, $2, $3::interval)",
                [
                    WireValue(payload: .uuid(storeID)), WireValue(payload: .text(payload)),
                    WireValue(payload: .text(retention)),
                ])
            return try rows[0].decode(Int64.self)
        }
        state.withLock { $0.pending = position }
    }

    func serializeWrites() {
        context.takesWriteTurns.store(true, ordering: .relaxed)
    }

    func publish(_ publishLocalCommit: () -> Void) {
        order.lock()
        let (position, sink) = state.withLock { ($0.pending, $0.sink) }
        if let position, let sink {
            catchUp(before: position, sink: sink)
        }
        publishLocalCommit()
        state.withLock { state in
            if let position {
                state.delivered = max(state.delivered, position)
                state.pending = nil
            }
        }
        // Rows read meanwhile, after this commit's position, follow it.
        handOverBuffer()
        order.unlock()
        drainBuffer()
    }

    func discard() {
        state.withLock { $0.pending = nil }
        // Its row, if the COMMIT went through after all (an unknown outcome), is a commit
        // the store did not publish: the listener hands it over like another store's.
        drainBuffer()
    }

    /// Ends the listener (the driver closes).
    func stop() {
        listener.withLock { $0 }?.cancel()
        state.withLock { $0.wake?.finish() }
    }

    // MARK: Handing over, in order

    /// With the order lock held, before this store publishes its commit at `position`: hands
    /// over every other store's commit of a smaller position, reading on the writer those
    /// the listener has not read yet.
    private func catchUp(before position: Int64, sink: RemoteCommitSink) {
        handOverBuffer(upTo: position - 1)
        let (delivered, readThrough) = state.withLock { ($0.delivered, $0.readThrough) }
        guard delivered < position - 1, readThrough < position - 1 else { return }
        // Every position below ours ended before ours was taken, so all are visible now.
        guard sink.hasListeners else {
            // Nobody to tell what changed: count them (so lookups that remembered a missing
            // row look again), without reading them.
            sink.missedCommits(entities: [])
            state.withLock { $0.delivered = position - 1 }
            return
        }
        let start = max(delivered, readThrough)
        let entries = try? writer.perform { session in
            try await Self.readAll(after: start, through: position - 1, on: session.untraced())
        }
        guard let entries else {
            // Unreadable (the connection failed after COMMIT): what they changed is unknown,
            // said before this commit rather than never.
            sink.missedCommits(entities: context.knownEntityNames)
            state.withLock { $0.delivered = position - 1 }
            return
        }
        add(entries, readThrough: position - 1)
        handOverBuffer(upTo: position - 1)
    }

    /// Adds what was read to the buffer.
    private func add(_ entries: [Entry], readThrough: Int64) {
        state.withLock { state in
            for entry in entries where entry.position > max(state.readThrough, state.delivered) {
                state.buffer.append(entry)
            }
            state.readThrough = max(state.readThrough, readThrough)
        }
    }

    /// With the order lock held: hands the store the buffered entries in order, up to
    /// `limit`, stopping at this store's own pending row (the store publishes it).
    private func handOverBuffer(upTo limit: Int64 = .max) {
        while true {
            let next: (Entry, RemoteCommitSink?)? = state.withLock { state in
                while let first = state.buffer.first, first.position <= state.delivered {
                    state.buffer.removeFirst()
                }
                guard let first = state.buffer.first, first.position <= limit else { return nil }
                if case .commit(let position, let store, _) = first, store == storeID, position == state.pending {
                    return nil
                }
                state.buffer.removeFirst()
                state.delivered = first.position
                return (first, state.sink)
            }
            guard let (entry, sink) = next else { return }
            guard let sink else { continue }
            switch entry {
            case .commit(_, _, let payload):
                // (This store's own row, when unpublished, is a COMMIT whose outcome was
                // unknown that went through: reported as any other commit.)
                if let (changes, origin) = try? PostgresChangeRecord.changes(fromPayload: payload) {
                    if !changes.isEmpty { sink.committed(changes, origin: origin) }
                } else {
                    // Written by a later version of the driver: what changed is unknown.
                    sink.missedCommits(entities: [])
                }
            case .missed(_, let entities):
                sink.missedCommits(entities: entities)
            }
        }
    }

    /// Hands over what the buffer holds if nobody else is doing so. Whoever holds the order
    /// lock comes here after releasing it, and looks again: an entry added while the lock was
    /// held (by a listener whose `try` failed) never waits for the next commit.
    private func drainBuffer() {
        while state.withLock({ hasDeliverableHead($0) }) {
            guard order.try() else { return }
            handOverBuffer()
            order.unlock()
        }
    }

    /// Whether the buffer starts with something to hand over: not an entry already handed
    /// over, not this store's own row waiting for the writer to publish it.
    private func hasDeliverableHead(_ state: State) -> Bool {
        guard let head = state.buffer.first(where: { $0.position > state.delivered }) else { return false }
        if case .commit(let position, let store, _) = head, store == storeID, position == state.pending {
            return false
        }
        return true
    }

    // MARK: Listening

    private func listen() async {
        var pause = Duration.milliseconds(20)
        while !Task.isCancelled {
            if let beforeConnecting { await beforeConnecting() }
            var session: PostgresSession?
            let began = ContinuousClock.now
            do {
                let connected = try await connect()
                session = connected
                try await listen(on: connected)
            } catch {
                // Lost, refused or not set up yet: try again, less often the longer it fails.
            }
            if let connection = session?.connection { try? await connection.close() }
            state.withLock { $0.wake = nil }
            // A connection that listened a while was lost: reconnect at once. One that failed
            // soon after connecting (no right to read the log, say) backs off like a refusal.
            pause = ContinuousClock.now - began > .seconds(5) ? .milliseconds(20) : min(pause * 2, .seconds(2))
            try? await Task.sleep(for: pause)
        }
    }

    /// Listens on one connection until it fails: reads the log when notified, every few
    /// seconds, and once at once (what committed before LISTEN).
    private func listen(on session: PostgresSession) async throws {
        let channel = try await session.rows("SELECT shark_change_channel()")[0].decode(String.self)
        try await session.connection.listen(on: channel) { notifications in
            let (wakeups, wake) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
            state.withLock { $0.wake = wake }
            wake.yield()
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    for try await _ in notifications { wake.yield() }
                    throw SharkError.driver(code: -1, message: "the listener's connection ended", sql: nil)
                }
                group.addTask {
                    while true {
                        try await Task.sleep(for: .seconds(5))
                        wake.yield()
                    }
                }
                group.addTask { [self] in
                    for await _ in wakeups { try await readNew(on: session) }
                }
                defer { group.cancelAll() }
                try await group.next()
            }
        }
    }

    /// Reads the rows past what was read, into the buffer, and hands them over.
    private func readNew(on session: PostgresSession) async throws {
        while true {
            let after = state.withLock { max($0.readThrough, $0.delivered) }
            let entries = try await Self.read(after: after, through: nil, on: session)
            guard let last = entries.last else { return }
            add(entries, readThrough: last.position)
            drainBuffer()
            if entries.count < Self.page { return }
        }
    }

    // MARK: Queries

    private static let page = 500

    /// The entries past `after` (and not past `through`, if given), in order, with a missed
    /// entry first when the rows just past `after` were pruned. One statement: one snapshot
    /// for the horizon and the rows.
    static func read(after: Int64, through: Int64?, on session: PostgresSession) async throws -> [Entry] {
        let rows = try await session.rows(
            """
            SELECT h.pruned_through, c.position, c.store, c.payload FROM \(PostgresChangeRecord.horizonTable) AS h
            LEFT JOIN LATERAL (SELECT position, store, payload FROM \(PostgresChangeRecord.table)
                WHERE position > $1 AND position <= $2 ORDER BY position LIMIT \(page)) AS c ON true
            ORDER BY c.position
            """,
            [WireValue(payload: .bigint(after)), WireValue(payload: .bigint(through ?? .max))])
        var entries: [Entry] = []
        for row in rows {
            let (horizon, position, store, payload) = try row.decode((Int64, Int64?, UUID?, String?).self)
            if entries.isEmpty && horizon > after {
                // Not past `through`: a catch-up before this store's own commit reports the
                // loss below that commit, before it.
                entries.append(
                    .missed(through: min(horizon, through ?? .max), entities: try await entityNames(on: session)))
            }
            if let position, let store, let payload {
                entries.append(.commit(position: position, store: store, payload: payload))
            }
        }
        return entries
    }

    /// Every entry past `after` up to `through`, page by page.
    static func readAll(after: Int64, through: Int64, on session: PostgresSession) async throws -> [Entry] {
        var entries: [Entry] = []
        var start = after
        while true {
            let page = try await read(after: start, through: through, on: session)
            entries += page
            guard let last = page.last, page.count >= Self.page, last.position < through else { return entries }
            start = last.position
        }
    }

    /// Where the log ends now: the last position committed or pruned (0 for a schema whose
    /// log does not exist yet, as a read-only store may find).
    static func end(of session: PostgresSession) async throws -> Int64 {
        do {
            let rows = try await session.rows(
                "SELECT greatest((SELECT max(position) FROM \(PostgresChangeRecord.table)), "
                    + "(SELECT pruned_through FROM \(PostgresChangeRecord.horizonTable)))")
            return try rows.first?.decode(Int64?.self) ?? 0
        } catch SharkError.driver(_, let message, _) where message.hasPrefix("[42P01]") || message.hasPrefix("[42501]")
        {
            // Missing (a read-only store before any writer set the schema up) or not readable
            // by this role: the listener keeps trying, less and less often.
            return 0
        }
    }

    /// Every entity the schema stores, for a missed-commits report.
    private static func entityNames(on session: PostgresSession) async throws -> [String] {
        let rows = try await session.rows("SELECT entity FROM \(PostgresSchemaMigrator.recordTable)")
        return try rows.map { try $0.decode(String.self) }
    }
}

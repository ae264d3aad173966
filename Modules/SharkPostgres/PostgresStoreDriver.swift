import Foundation
import PostgresNIO
@_spi(SharkDriver) import SharkORM
import Synchronization

/// A ``Driver`` over a PostgreSQL server: one connection of its own for the writer (opened
/// with the store, so a wrong password or an untrusted certificate fails `Store.init` at
/// once with the server's reason), and a `PostgresClient` pool that lends connections to
/// reads. The pool serves only while its `run()` task runs: the driver owns that task and
/// cancels it on close.
///
/// Every round trip runs on the driver's ``SuspendingDriverExecutor`` thread; the store's
/// threads block on it (docs/architecture.md, "Drivers whose calls suspend"), never a thread
/// of Swift's cooperative pool or a NIO event loop.
final class PostgresStoreDriver: Driver, @unchecked Sendable {
    let name = "postgres"
    private let context: PostgresContext
    private let client: PostgresClient
    private let runTask: Task<Void, Never>
    private let writerConnection: PostgresDriverConnection
    /// How this store and the others of its schema hear of each other's commits.
    let changeFeed: PostgresChangeFeed
    private let closed = Atomic<Bool>(false)

    init(_ settings: PostgresSettings, tracer: Tracer) throws {
        try settings.validate()
        let password = try settings.resolvePassword()
        let context = PostgresContext(settings: settings, tracer: tracer)
        self.context = context
        let configuration = try settings.connectionConfiguration(password: password)
        let logger = context.logger
        let connect: @Sendable () async throws -> PostgresSession = {
            try await PostgresSession.connect(configuration, logger: logger, tracer: tracer)
        }
        let session: PostgresSession
        do {
            session = try context.executor.wait { try await connect() }
        } catch {
            // Not initialized, so never closed: end the executor's thread here.
            context.executor.shutdown()
            throw error
        }
        writerConnection = PostgresDriverConnection(session: session, context: context, reconnect: connect)
        let client = PostgresClient(
            configuration: settings.clientConfiguration(password: password), backgroundLogger: logger)
        self.client = client
        // On the driver's thread, like every await of this driver: the cooperative pool may be
        // busy with callers blocked on this driver.
        runTask = Task(executorPreference: context.executor) { await client.run() }
        // The listener's statements are the driver's bookkeeping: not traced.
        var listenerSettings = settings
        listenerSettings.applicationName += " listener"
        let listenerConfiguration = try listenerSettings.connectionConfiguration(password: password)
        changeFeed = PostgresChangeFeed(context: context, writer: writerConnection) {
            try await PostgresSession.connect(listenerConfiguration, logger: logger, tracer: Tracer())
        }
        if settings.isReadOnly {
            // Read-only never creates: a missing schema is an error, not an empty store.
            let rows = try context.executor.wait {
                try await session.rows(
                    "SELECT 1 FROM pg_catalog.pg_namespace WHERE nspname = $1",
                    [WireValue(payload: .text(settings.schema))])
            }
            if rows.isEmpty {
                close()
                throw SharkError.fileNotFound(path: "schema \(settings.schema) at \(settings.hostDescription)")
            }
        }
        if settings.schema != "public" && !settings.isReadOnly {
            let schema = PostgresQueryCompiler.identifier(settings.schema)
            do {
                try context.executor.wait { try await session.execute("CREATE SCHEMA IF NOT EXISTS \(schema)") }
            } catch SharkError.uniqueConstraint {
                // Another store created it at the same moment (a unique violation in the
                // catalog: CREATE SCHEMA IF NOT EXISTS is not atomic).
            } catch SharkError.driver(_, let message, _) where message.hasPrefix("[42P06]") {
                // The same, seen as "schema already exists".
            }
        }
        if !settings.isReadOnly {
            try context.executor.wait { try await PostgresFunctions.install(in: session) }
        }
        do {
            try changeFeed.findStart()
        } catch {
            close()
            throw error
        }
    }

    var sharedChangeLog: (any SharedChangeLog)? { changeFeed }

    var writer: any DriverConnection { writerConnection }

    var isReadOnly: Bool { context.settings.isReadOnly }

    func read<T>(_ body: (any DriverConnection) throws -> T) throws -> T {
        guard !closed.load(ordering: .relaxed) else { throw SharkError.closed }
        let client = self.client
        let executor = context.executor
        let lease = try executor.wait { try await ConnectionLease.borrow(from: client, on: executor) }
        defer { lease.release() }
        let session = PostgresSession(connection: lease.connection, logger: context.logger, tracer: context.tracer)
        return try body(PostgresDriverConnection(session: session, context: context))
    }

    func close() {
        guard !closed.exchange(true, ordering: .relaxed) else { return }
        if context.settings.dropsSchemaOnClose { writerConnection.dropSchema(context.settings.schema) }
        changeFeed.stop()
        writerConnection.close()
        runTask.cancel()
        context.executor.shutdown()
    }

    deinit { close() }
}

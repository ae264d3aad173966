@_spi(SharkDriver) import SharkMemory
@_spi(SharkDriver) import SharkORM

/// A driver whose every operation suspends: it awaits a ``RemoteServer`` actor for each call,
/// the way a network database's driver awaits its connection. It plugs into SharkORM's
/// blocking driver seam the way docs/architecture.md ("Drivers whose calls suspend") decides:
/// each blocking method hands its async work to a `SuspendingDriverExecutor`, which runs it on
/// a thread of its own, so no thread of Swift's cooperative pool ever waits for it.
final class RemoteStoreDriver: IntegrityChecking, @unchecked Sendable {
    let name = "remote"
    private let server: RemoteServer
    private let executor = SuspendingDriverExecutor(name: "remote driver")
    let writer: any DriverConnection

    init(tracer: Tracer) {
        server = RemoteServer(engine: MemoryDriver(tracer: tracer))
        writer = RemoteConnection(server.engine.writer, server: server, executor: executor)
    }

    /// A reader, each of its calls awaited like the writer's; the connection is taken on the
    /// caller's thread, as a client takes one from its pool.
    func read<T>(_ body: (any DriverConnection) throws -> T) throws -> T {
        try server.engine.read { reader in
            try body(RemoteConnection(reader, server: server, executor: executor))
        }
    }

    func close() {
        server.engine.close()
        executor.shutdown()
    }

    func checkIntegrity() throws -> [String] {
        let server = self.server
        return try executor.wait { try await server.checkIntegrity() }
    }
}

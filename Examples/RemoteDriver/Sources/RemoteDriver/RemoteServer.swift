@_spi(SharkDriver) import SharkMemory
@_spi(SharkDriver) import SharkORM

/// Where the data lives: a stand-in for a database server. Every call the driver makes is
/// awaited, one at a time, as a network driver awaits its connection; the engine behind it
/// is SharkORM's memory engine, as a server's would be its own.
actor RemoteServer {
    /// The engine the server runs. Its connections are only used inside ``perform(_:)``,
    /// and by readers that the store hands one thread at a time.
    nonisolated let engine: MemoryDriver

    init(engine: MemoryDriver) { self.engine = engine }

    /// Runs one request on the server and returns its answer.
    func perform<T>(_ request: Handoff<() throws -> T>) throws -> Handoff<T> {
        Handoff(try request.value())
    }

    /// The server's own consistency check.
    func checkIntegrity() throws -> [String] { try engine.checkIntegrity() }
}

/// A value handed to the server and back while its sender waits for the answer: the sender
/// is blocked meanwhile, so nothing else touches it.
struct Handoff<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}

import NIOPosix

/// File work of the client (its state, the file it uploads, the file it downloads) runs on
/// NIO's thread pool: a blocking call never holds a thread of Swift's cooperative pool.
enum BlockingIO {
    static func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await NIOThreadPool.singleton.runIfActive(body)
    }
}

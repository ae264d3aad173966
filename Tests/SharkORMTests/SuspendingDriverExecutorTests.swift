import Foundation
@_spi(SharkDriver) import SharkORM
import Testing

/// Data a suspending driver would await: an actor, as a network driver awaits its connection.
private actor RemoteRows {
    private var rows: [Int: String] = [:]

    func put(_ key: Int, _ value: String) { rows[key] = value }

    func get(_ key: Int) throws -> String {
        guard let value = rows[key] else { throw SharkError.notFound(entity: "Remote", key: "\(key)") }
        return value
    }

}

private func currentThreadName() -> String? { Thread.current.name }

@Suite("A suspending driver's executor")
struct SuspendingDriverExecutorTests {
    @Test("blocking calls run async work on the executor's own thread, results and errors as they are")
    func runsOnItsOwnThread() throws {
        let executor = SuspendingDriverExecutor(name: "remote driver")
        defer { executor.shutdown() }
        let remote = RemoteRows()
        try executor.wait { await remote.put(1, "one") }
        #expect(try executor.wait { try await remote.get(1) } == "one")
        #expect(throws: SharkError.notFound(entity: "Remote", key: "2")) {
            try executor.wait { try await remote.get(2) }
        }
        // The executor's thread runs the operations handed to it. Where a given one runs is
        // in the end the runtime's choice: loaded CI runs have seen a nonisolated function, an
        // actor it calls, and once even the operation's own body run on a thread of the
        // global executor. So the name is read in the operation's body, before anything else
        // is awaited, over several operations, and the executor's thread must run at least one:
        // an executor that handed none to its thread would run none there.
        var names: [String?] = []
        for _ in 0..<20 { names.append(try executor.wait { () async -> String? in currentThreadName() }) }
        #expect(names.contains("remote driver"), "the operations ran on \(Set(names.map { $0 ?? "unnamed" }))")
    }

    @Test("called from tasks of the cooperative pool at once, it never waits for the pool")
    func manyCallersAtOnce() async throws {
        let executor = SuspendingDriverExecutor()
        defer { executor.shutdown() }
        let remote = RemoteRows()
        // More blocked callers than the pool has threads: each waits for the executor only.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for key in 0..<16 {
                group.addTask { try executor.wait { await remote.put(key, "\(key)") } }
            }
            try await group.waitForAll()
        }
        #expect(try executor.wait { try await remote.get(15) } == "15")
    }

    @Test("an operation that calls back into its own executor, or a call after shutdown, throws")
    func misuse() throws {
        let executor = SuspendingDriverExecutor()
        #expect(throws: SharkError.self) {
            try executor.wait { try executor.wait { 1 } }
        }
        executor.shutdown()
        #expect(throws: SharkError.closed) { try executor.wait { 1 } }
    }
}

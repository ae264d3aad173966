import Foundation
@_spi(SharkDriver) import SharkORM
import SharkTestSupport
import Synchronization
import Testing

@testable import SharkPostgres

/// Commits of other stores on the same schema (other processes or machines, as far as the
/// server can tell: each store has connections of its own) reaching this store's events,
/// live queries and observed objects (docs/architecture.md, "Events across processes").
@Suite("PostgreSQL events across stores")
struct PostgresRemoteEventTests {
    /// Stores on one schema, dropped by the last.
    final class Schema {
        let name = PostgresTestServer.uniqueSchema()

        func open(_ change: (inout PostgresSettings) -> Void = { _ in }) throws -> Store {
            var settings = try PostgresTestServer.settings(schema: name)
            change(&settings)
            return try Store(.postgres(settings))
        }

        deinit {
            if let settings = try? PostgresTestServer.settings(schema: name, dropsSchema: true),
                let last = try? Store(.postgres(settings))
            {
                last.close()
            }
        }
    }

    /// The next element, or a failure after `seconds` (a test that would hang fails instead).
    static func next<Element: Sendable>(
        _ iterator: inout AsyncStream<Element>.Iterator, within seconds: Double = 30
    ) async throws -> Element {
        let box = IteratorBox(iterator)
        let element = try await withThrowingTaskGroup(of: Element?.self) { group in
            group.addTask { await box.next() }
            group.addTask {
                try await Task.sleep(for: .seconds(seconds))
                return nil
            }
            defer { group.cancelAll() }
            return try await group.next()!
        }
        iterator = box.iterator
        guard let element else { throw SharkError.invalidQuery("nothing arrived within \(seconds) s") }
        return element
    }

    /// Lets the iterator cross into a child task and come back.
    final class IteratorBox<Element: Sendable>: @unchecked Sendable {
        var iterator: AsyncStream<Element>.Iterator
        init(_ iterator: AsyncStream<Element>.Iterator) { self.iterator = iterator }
        func next() async -> Element? { await iterator.next() }
    }

    @Test(
        "another store's commits arrive in commit order, each once, across listener connections cut off",
        .timeLimit(.minutes(3)))
    func commitOrderAcrossCutConnections() async throws {
        let schema = Schema()
        let application = "watcher-\(UUID().uuidString.prefix(8))"
        let watcher = try schema.open { $0.applicationName = application }
        let long = try schema.open()
        let short = try schema.open()
        defer {
            watcher.close()
            long.close()
            short.close()
        }
        _ = try long.prepare(PostgresNote.self)
        var events = watcher.events().makeAsyncIterator()
        let live = watcher.observe { try await PostgresNote.query(in: watcher).count() }
        var counts = live.makeAsyncIterator()
        #expect(try await counts.next()?.value == 0)

        // Each round: a long transaction inserts first (so its key is the smaller), a short
        // one inserts and commits while it is open, then the long one commits. Key order and
        // commit order disagree; events must follow commit order.
        let rounds = 24
        let expected = try await Self.onThread { () throws -> [Int64] in
            var expected: [Int64] = []
            var kills: Int64 = 0
            for round in 0..<rounds {
                let inserted = DispatchSemaphore(value: 0)
                let shortDone = DispatchSemaphore(value: 0)
                let longKey = Mutex<Int64?>(nil)
                let longFinished = DispatchSemaphore(value: 0)
                let longWriter = Thread {
                    defer { longFinished.signal() }
                    try? long.write { tx in
                        let note = PostgresNote(title: "long \(round)")
                        try tx.commit(note)
                        longKey.withLock { $0 = note.id }
                        inserted.signal()
                        shortDone.wait()
                    }
                }
                longWriter.start()
                inserted.wait()
                let shortNote = PostgresNote(title: "short \(round)")
                try short.commit(shortNote)
                shortDone.signal()
                longFinished.wait()
                let longID = try #require(longKey.withLock { $0 })
                #expect(longID < shortNote.id)
                expected += [shortNote.id, longID]
                if round % 6 == 3 {
                    // Cut the watcher's listener off mid-stream; it reconnects and reads on.
                    kills += try PostgresTestServer.terminateBackends(named: application + " listener")
                }
            }
            #expect(kills > 0)
            return expected
        }

        var received: [Int64] = []
        while received.count < expected.count {
            let event = try await Self.next(&events)
            #expect(event.isRemote)
            #expect(event.origin == .local)
            let notes = try #require(event.entities["PostgresNote"])
            received += notes.inserted.compactMap { if case .integer(let key) = $0 { key } else { nil } }
        }
        #expect(received == expected)

        // Nothing twice: the next event is the watcher's own commit.
        let own = PostgresNote(title: "own")
        try watcher.commit(own)
        let ownEvent = try await Self.next(&events)
        #expect(!ownEvent.isRemote)
        #expect(ownEvent.entities["PostgresNote"]?.inserted == [.integer(own.id)])

        // The live query caught up with every commit.
        var count = 0
        while count != 2 * rounds + 1 { count = try #require(try await counts.next()).value }
    }

    @Test("an observed object refreshes when another store changes it", .timeLimit(.minutes(1)))
    @MainActor
    func observedObjectRefreshes() async throws {
        let schema = Schema()
        let watcher = try schema.open()
        let other = try schema.open()
        defer {
            watcher.close()
            other.close()
        }
        let note = PostgresNote(title: "draft")
        try watcher.commit(note)
        let titles = AsyncStream<String>.makeStream()
        let subscription = try watcher.observe(note) { _ in titles.continuation.yield(note.title) }
        defer { subscription.cancel() }
        let copy = try #require(try await PostgresNote.query(in: other).where(\.id == note.id).first())
        copy.title = "final"
        try other.commit(copy)
        var iterator = titles.stream.makeAsyncIterator()
        var title = ""
        while title != "final" { title = try await Self.next(&iterator) }
    }

    @Test(
        "a store whose listener was away past the retention hears that it missed commits, then the rest",
        .timeLimit(.minutes(1)))
    func missedCommitsAfterPruning() async throws {
        let schema = Schema()
        let gate = Gate()
        let watcher = try schema.open(gate.configure)
        let writer = try schema.open()
        defer {
            watcher.close()
            writer.close()
        }
        _ = try writer.prepare(PostgresNote.self)
        var events = watcher.events().makeAsyncIterator()
        let first = PostgresNote(title: "heard")
        try writer.commit(first)
        #expect(try await Self.next(&events).entities["PostgresNote"]?.inserted == [.integer(first.id)])

        // Cut the listener off and keep it away while commits are made and pruned.
        try await gate.cutOff()
        for index in 0..<3 { try writer.commit(PostgresNote(title: "missed \(index)")) }
        try writer.execute("SELECT shark_prune_changes('0 seconds')")
        gate.open()

        let missed = try await Self.next(&events)
        #expect(missed.isRemote)
        #expect(missed.entities["PostgresNote"]?.hasUnknownChanges == true)
        let after = PostgresNote(title: "heard again")
        try writer.commit(after)
        #expect(try await Self.next(&events).entities["PostgresNote"]?.inserted == [.integer(after.id)])
    }

    @Test(
        "a store that commits while its listener is away first hears every earlier commit of the others, pages of them",
        .timeLimit(.minutes(1)))
    func ownCommitAfterOthersWhileAway() async throws {
        let schema = Schema()
        let gate = Gate()
        let watcher = try schema.open(gate.configure)
        let writer = try schema.open()
        defer {
            watcher.close()
            writer.close()
        }
        _ = try writer.prepare(PostgresNote.self)
        _ = try watcher.prepare(PostgresNote.self)
        var events = watcher.events().makeAsyncIterator()
        try await gate.cutOff()
        // More commits than one read of the log returns, then one of the watcher's own.
        let others = try await Self.onThread { () throws -> [Int64] in
            try (0..<700).map { index in
                let note = PostgresNote(title: "other \(index)")
                try writer.commit(note)
                return note.id
            }
        }
        let own = PostgresNote(title: "own")
        try watcher.commit(own)
        var heard: [Int64] = []
        for _ in 0...others.count {
            let event = try await Self.next(&events)
            for key in event.entities["PostgresNote"]?.inserted ?? [] {
                if case .integer(let key) = key { heard.append(key) }
            }
        }
        #expect(heard == others + [own.id])
        gate.open()
        let after = PostgresNote(title: "after")
        try writer.commit(after)
        #expect(try await Self.next(&events).entities["PostgresNote"]?.inserted == [.integer(after.id)])
    }

    /// Runs `body` on a thread of its own (it blocks), not on one of the cooperative pool.
    static func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try body() }) }.start()
        }
    }

    /// Keeps a store's listener from connecting while closed.
    final class Gate: Sendable {
        /// The store's name in `pg_stat_activity`, so that its listener can be cut off.
        let application = "watcher-\(UUID().uuidString.prefix(8))"
        private let closed = Atomic<Bool>(false)

        /// Names the store and has its listener wait at this gate.
        func configure(_ settings: inout PostgresSettings) {
            settings.applicationName = application
            settings.beforeListenerConnects = { await self.pass() }
        }

        /// Closes the gate and cuts the listener off; returns once its connection is gone.
        func cutOff() async throws {
            closed.store(true, ordering: .sequentiallyConsistent)
            try PostgresTestServer.terminateBackends(named: application + " listener")
            while try PostgresTestServer.backendCount(named: application + " listener") > 0 {
                try await Task.sleep(for: .milliseconds(10))
            }
        }

        func open() { closed.store(false, ordering: .sequentiallyConsistent) }

        func pass() async {
            while closed.load(ordering: .sequentiallyConsistent) && !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(5))
            }
        }
    }
}

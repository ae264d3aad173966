import Foundation
@_spi(SharkDriver) import SharkORM
import SharkTestSupport
import Synchronization
import Testing

@testable import SharkPostgres

@Model(entity: "Account")
final class WorkerAccount {
    var id: Int64 = 0
    var balance: Int64 = 0

    init(balance: Int64) { self.balance = balance }
}

@Model(entity: "Transfer")
final class WorkerTransfer {
    var id: Int64 = 0
    var source: Int64 = 0
    var destination: Int64 = 0
    var amount: Int64 = 0
}

/// Many writers on one database: processes of `shark-postgres-transfers`
/// (Tests/PostgresTransferWorker), each with several threads, move money between accounts
/// through the ORM at once. At PostgreSQL's default isolation (READ COMMITTED) such
/// read-modify-write transactions lose updates; the store runs them at REPEATABLE READ, and
/// runs again each one that loses a race (`RetryableConflict`).
@Suite("PostgreSQL with many writers")
struct PostgresManyWritersTests {
    static let processes = 4
    static let threads = 4
    static let transfers = 10_000
    static let accounts: Int64 = 20
    static let opening: Int64 = 10_000

    /// The worker binary, beside the test bundle (SwiftPM builds it for this test target).
    static var worker: URL {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            .deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent("shark-postgres-transfers")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent(".build/debug/shark-postgres-transfers")
    }

    /// The seed of a run: `SHARK_TRANSFER_SEED`, or a new one, printed so that it replays.
    static func seed(of run: String) -> UInt64 {
        let seed =
            ProcessInfo.processInfo.environment["SHARK_TRANSFER_SEED"].flatMap { UInt64($0) }
            ?? UInt64.random(in: 1...1_000_000)
        print("\(run): seed \(seed) (SHARK_TRANSFER_SEED=\(seed) replays it)")
        return seed
    }

    /// Runs `processes` workers on `schema`, `threads` threads each, `transfers` in all, and
    /// waits for them: how many transfers they made, how many attempts lost a race, how many
    /// transfers lost every attempt and were made again.
    static func runWorkers(schema: String, seed: UInt64, transfers: Int, sync: Bool) throws
        -> (made: Int, conflicts: Int, retriedByApp: Int)
    {
        collect(try startWorkers(schema: schema, seed: seed, transfers: transfers, sync: sync))
    }

    /// Starts the workers of ``runWorkers(schema:seed:transfers:sync:)`` without waiting.
    static func startWorkers(schema: String, seed: UInt64, transfers: Int, sync: Bool) throws -> [(Process, Pipe)] {
        let perThread = transfers / (processes * threads)
        var running: [(Process, Pipe)] = []
        for process in 0..<processes {
            let worker = Process()
            worker.executableURL = Self.worker
            worker.arguments =
                [schema, String(seed &+ UInt64(process)), String(threads), String(perThread), String(accounts)]
                + (sync ? ["sync"] : [])
            let output = Pipe()
            worker.standardOutput = output
            try worker.run()
            running.append((worker, output))
        }
        return running
    }

    /// How long the workers may take before they are stopped (and the test fails).
    static let deadline: TimeInterval = 900

    /// Waits for workers ``startWorkers(schema:seed:transfers:sync:)`` started; what they did.
    /// Workers still running after ``deadline`` seconds from now are ended.
    static func collect(_ running: [(Process, Pipe)]) -> (made: Int, conflicts: Int, retriedByApp: Int) {
        let stopper = DispatchWorkItem {
            for (worker, _) in running where worker.isRunning { worker.terminate() }
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + deadline, execute: stopper)
        defer { stopper.cancel() }
        var outcome = (made: 0, conflicts: 0, retriedByApp: 0)
        for (worker, output) in running {
            let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            worker.waitUntilExit()
            #expect(worker.terminationStatus == 0, "\(text)")
            let fields = text.split(whereSeparator: \.isWhitespace)
            func count(after label: String) -> Int {
                guard let index = fields.firstIndex(where: { $0 == label }), index + 1 < fields.count else { return 0 }
                return Int(fields[index + 1]) ?? 0
            }
            outcome.made += count(after: "transfers")
            outcome.conflicts += count(after: "conflicts")
            outcome.retriedByApp += count(after: "retried-by-app")
        }
        return outcome
    }

    @Test("4 processes × 4 threads, 10,000 seeded transfers: the total is kept, every balance is its history")
    func transfers() throws {
        let seed = Self.seed(of: "many writers")
        let schema = PostgresTestServer.uniqueSchema()
        let store = try Store(.postgres(try PostgresTestServer.settings(schema: schema, dropsSchema: true)))
        defer { store.close() }
        try store.commit((0..<Self.accounts).map { _ in WorkerAccount(balance: Self.opening) })
        // The transfer table exists before the workers race to create it.
        #expect(try WorkerTransfer.query(in: store).count() == 0)
        // This process hears of every transfer the workers commit (events across processes),
        // on a thread of its own: this test and others block the cooperative pool's threads.
        let heard = Mutex<[CommitEvent]>([])
        let listening = SuspendingDriverExecutor(name: "many writers: events")
        let events = store.events()
        let listener = Task(executorPreference: listening) {
            for await event in events { heard.withLock { $0.append(event) } }
        }
        defer {
            listener.cancel()
            listening.shutdown()
        }

        let outcome = try Self.runWorkers(schema: schema, seed: seed, transfers: Self.transfers, sync: false)
        print(
            "many writers: \(outcome.made) transfers, \(outcome.conflicts) attempts lost a race and ran again; "
                + "\(outcome.retriedByApp) transfer(s) lost every one of Store.transactionAttempts and were made "
                + "again by the app")
        let made = outcome.made
        #expect(made == Self.transfers)

        let accounts = try WorkerAccount.query(in: store).fetch()
        let history = try WorkerTransfer.query(in: store).fetch()
        #expect(history.count == Self.transfers)
        #expect(accounts.reduce(0) { $0 + $1.balance } == Self.accounts * Self.opening)
        var expected = Dictionary(uniqueKeysWithValues: accounts.map { ($0.id, Self.opening) })
        for transfer in history {
            expected[transfer.source, default: 0] -= transfer.amount
            expected[transfer.destination, default: 0] += transfer.amount
        }
        for account in accounts {
            #expect(account.balance == expected[account.id], "account \(account.id)")
        }

        // Every transfer committed was heard once, as one event naming its two accounts.
        let deadline = Date().addingTimeInterval(120)
        while heard.withLock({ $0.count }) < Self.transfers && Date() < deadline {
            Thread.sleep(forTimeInterval: 0.05)
        }
        let received = heard.withLock { $0 }
        #expect(received.count == Self.transfers)
        let byKey = Dictionary(uniqueKeysWithValues: history.map { ($0.id, $0) })
        var heardTransfers = Set<Int64>()
        for event in received {
            #expect(event.isRemote)
            let inserted = event.entities["Transfer"]?.inserted ?? []
            guard inserted.count == 1, case .integer(let key) = inserted[0], let transfer = byKey[key] else {
                Issue.record("an event that is not one transfer: \(event)")
                continue
            }
            #expect(heardTransfers.insert(key).inserted, "transfer \(key) heard twice")
            let accounts = Set(event.entities["Account"]?.updated.keys.map { $0 } ?? [])
            #expect(accounts == [.integer(transfer.source), .integer(transfer.destination)])
        }
        #expect(heardTransfers.count == Self.transfers)
    }
}

/// A connection lost with a transaction open: nothing is run again; when it was lost while
/// the server committed, the store cannot tell whether it did, and says so; the next write
/// connects anew.
@Suite("PostgreSQL connection lost")
struct PostgresConnectionLostTests {
    @Test("the writer's connection ended inside a transaction: the write fails, is not retried, the next reconnects")
    func lostInsideTransaction() throws {
        var settings = try PostgresTestServer.settings(schema: PostgresTestServer.uniqueSchema(), dropsSchema: true)
        let name = "shark-lost-\(UUID().uuidString.prefix(8))"
        settings.applicationName = name
        let store = try Store(.postgres(settings))
        defer { store.close() }
        try store.commit(PostgresNote(title: "before"))
        var attempts = 0
        #expect {
            try store.write { tx in
                attempts += 1
                try tx.commit(PostgresNote(title: "lost"))
                try PostgresTestServer.terminateBackends(named: name, state: "idle in transaction")
                // The client hears of it at once, or while its last statements are on their
                // way: either way the answer never comes.
                Thread.sleep(forTimeInterval: Double.random(in: 0...0.2))
            }
        } throws: { error in
            switch error {
            case PostgresError.commitOutcomeUnknown: return true
            case SharkError.driver(let code, let message, _): return code == -1 && message.contains("lost")
            default: return false
            }
        }
        #expect(attempts == 1)
        try store.commit(PostgresNote(title: "after"))
        #expect(try PostgresNote.query(in: store).orderBy(\.id).fetch().map(\.title) == ["before", "after"])
    }

    @Test("the server ended the connection at COMMIT: the write fails, is not retried, the next reconnects")
    func endedAtCommit() throws {
        let store = try Store(
            .postgres(try PostgresTestServer.settings(schema: PostgresTestServer.uniqueSchema(), dropsSchema: true)))
        defer { store.close() }
        try store.commit(PostgresNote(title: "before"))
        // A trigger run at COMMIT that ends its own server process: the server answers COMMIT
        // with its reason (57P01: the transaction rolled back) and closes the connection.
        try store.execute(
            """
            CREATE FUNCTION end_own_connection() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF NEW.title = 'lost' THEN PERFORM pg_terminate_backend(pg_backend_pid()); END IF;
                RETURN NULL;
            END $$
            """)
        try store.execute(
            """
            CREATE CONSTRAINT TRIGGER end_at_commit AFTER INSERT ON "PostgresNote"
            DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION end_own_connection()
            """)
        var attempts = 0
        #expect {
            try store.write { tx in
                attempts += 1
                try tx.commit(PostgresNote(title: "lost"))
            }
        } throws: { error in
            guard case SharkError.driver(_, let message, _) = error else { return false }
            return message.hasPrefix("[57P01]")
        }
        #expect(attempts == 1)
        try store.commit(PostgresNote(title: "after"))
        #expect(try PostgresNote.query(in: store).orderBy(\.id).fetch().map(\.title) == ["before", "after"])
    }
}

import Foundation
import SharkHubClient
import SharkMemory
import SharkORM
import SharkPostgres
import SharkSQLCipher
import SharkSQLite
import SharkSync
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Model
final class Entry {
    var id: UUID = UUID()
    var author: Int = 0
    var text: String = ""
    var revision: Int = 0

    init(author: Int, text: String) {
        self.author = author
        self.text = text
    }
}

/// Devices on every driver syncing through two `shark serve` processes on one throw-away
/// PostgreSQL database, while the test kills a hub with SIGKILL in the middle of uploads and
/// starts it again. Seeded: `SHARK_HUB_SEED=<n>` replays a run (the seed is in every failure).
@Suite("Hub processes: devices converge through shark serve, killed with SIGKILL mid-upload")
struct HubFaultTests {
    static let lineage = "hub-fault-tests"
    static let deviceCount = 20
    static let rounds = 5

    @Test(
        "20 devices on mixed drivers converge through two hub processes killed mid-upload; nothing acknowledged is lost"
    )
    func devicesConvergeThroughKilledHubs() async throws {
        let server = try PostgresCommandTests.Server()
        let seed =
            ProcessInfo.processInfo.environment["SHARK_HUB_SEED"].flatMap(UInt64.init)
            ?? UInt64.random(in: 1...UInt64.max)
        var random = SeededRandom(seed: seed)
        let replay = "replay with SHARK_HUB_SEED=\(seed)"
        let hubSchema = "hubfault_\(UUID().uuidString.prefix(8).lowercased())"
        let folder = try Fixtures.directory()
        // Processes, stores and commits block: on threads of their own, never on the
        // cooperative pool the other tests share.
        let (devices, hubs) = try await offPool { try Self.setUp(server: server, hubSchema: hubSchema, folder: folder) }
        defer {
            for hub in hubs { hub.stop() }
            for device in devices { device.engine.store.close() }
            for schema in [hubSchema] + devices.compactMap(\.schema) { try? server.dropSchema(schema) }
            try? FileManager.default.removeItem(at: folder)
        }

        let key = ChangeLogKey.random()
        let ledger = Ledger()
        // Random commits, then every device syncs at once through a hub picked at random; in
        // each round one device writes a large file and a hub is killed while it uploads.
        for _ in 0..<Self.rounds {
            let big = random.next(below: devices.count)
            let generator = random
            random = try await offPool {
                var random = generator
                for device in devices {
                    try device.commitRandomly(&random, ledger: ledger, large: device.index == big)
                }
                return random
            }
            let victim = KillOnce(hubs[random.next(below: hubs.count)])
            let killAfter = Int64(2 + random.next(below: 6)) * (64 << 10)
            let choices = devices.map { _ in random.next(below: hubs.count) }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (device, choice) in zip(devices, choices) {
                    let isBig = device.index == big
                    let hub = isBig ? victim.hub : hubs[choice]
                    group.addTask {
                        try await device.sync(through: hub.address, key: key, ledger: ledger) { step in
                            if isBig, case .uploading(_, let sent, _) = step, sent >= killAfter { victim.fire() }
                        }
                    }
                }
                try await group.waitForAll()
            }
        }
        let kills = hubs.map(\.kills).reduce(0, +)
        #expect(kills >= 1, "no hub was killed mid-upload: \(replay)")

        // Quiet rounds, one device after another, until every device holds everything.
        var converged = false
        for _ in 0..<4 where !converged {
            for device in devices {
                try await device.sync(
                    through: hubs[device.index % 2].address, key: key, ledger: ledger, progress: { _ in })
            }
            let digests = try await offPool { try devices.map { try $0.engine.digest() } }
            converged = digests.allSatisfy { $0 == digests[0] }
        }
        #expect(converged, "the devices did not converge: \(replay)")
        let contents = try await offPool {
            try devices.map { device in
                try Entry.query(in: device.engine.store).orderBy(\.id).fetch().map {
                    "\($0.id) \($0.author) \($0.revision) \($0.text.prefix(20))"
                }
            }
        }
        for (index, content) in contents.enumerated() {
            #expect(content == contents[0], "device \(index) differs from device 0: \(replay)")
        }
        // Nothing acknowledged is lost: every file a device was answered for is accepted on
        // the hub, and every row written and not removed is on every device.
        let accepted = try await offPool {
            let hubStore = try server.store(schema: hubSchema)
            defer { hubStore.close() }
            return Set(
                try hubStore.fetchRows(of: "hub_files").compactMap { row -> Int64? in
                    guard case .integer(let sequence) = row["sequence"], sequence > 0 else { return nil }
                    return sequence
                })
        }
        let acknowledged = ledger.acknowledged
        #expect(acknowledged.isSubset(of: accepted), "acknowledged files missing on the hub: \(replay)")
        let present = Set(try await Entry.query(in: devices[0].engine.store).fetch().map(\.id))
        let expected = ledger.written.subtracting(ledger.removed)
        #expect(expected.isSubset(of: present), "\(expected.subtracting(present).count) rows lost: \(replay)")
        print(
            "hub fault test (\(replay)): \(kills) kills, \(acknowledged.count) files acknowledged, "
                + "\(ledger.retries) requests retried, \(ledger.unavailable) syncs ended unavailable, \(present.count) rows"
        )
    }
}

extension HubFaultTests {
    /// A space on a hub database of its own, 20 devices with a store of each driver in turn
    /// (a token and a state folder each), and two hub processes on that database.
    static func setUp(server: PostgresCommandTests.Server, hubSchema: String, folder: URL) throws
        -> ([FaultDevice], [HubProcess])
    {
        let hubURL = server.url(schema: hubSchema)
        let password = ["--password-file", server.passwordFile]
        let created = try SharkProcess.run(["hub", "create-space", hubURL, "notes", "--lineage", lineage] + password)
        try #require(created.status == 0, "\(created.error)")
        var devices: [FaultDevice] = []
        for index in 0..<deviceCount {
            let added = try SharkProcess.run(["hub", "add-device", hubURL, "notes", "device-\(index)"] + password)
            try #require(added.status == 0, "\(added.error)")
            let token = try #require(DeviceToken(parsing: added.output.trimmingCharacters(in: .whitespacesAndNewlines)))
            let store: Store
            var schema: String?
            switch index % 4 {
            case 0: store = try Store(.memory)
            case 1: store = try Store(.sqlite(path: folder.appendingPathComponent("device-\(index).sqlite").path))
            case 2:
                store = try Store(
                    .sqlcipher(
                        path: folder.appendingPathComponent("device-\(index).db").path,
                        key: .passphrase("device \(index)")))
            default:
                schema = "hubdev_\(UUID().uuidString.prefix(8).lowercased())"
                store = try server.store(schema: schema!)
            }
            let engine = try SyncEngine(store: store, lineage: lineage, models: [Entry.self])
            devices.append(
                FaultDevice(
                    index: index, engine: engine, token: token, schema: schema,
                    folder: folder.appendingPathComponent("state-\(index)", isDirectory: true)))
        }
        let hubs = [
            try HubProcess(
                database: hubURL, passwordFile: server.passwordFile, log: folder.appendingPathComponent("hub-a.log")),
            try HubProcess(
                database: hubURL, passwordFile: server.passwordFile, log: folder.appendingPathComponent("hub-b.log")),
        ]
        return (devices, hubs)
    }
}

/// Runs blocking work on a thread of its own and awaits its result.
func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
    }
}

/// One device of the fault test.
struct FaultDevice: Sendable {
    let index: Int
    let engine: SyncEngine
    let token: DeviceToken
    /// The PostgreSQL schema of its store, for a device on PostgreSQL.
    let schema: String?
    let folder: URL

    /// Inserts, updates and removes a few entries; a large one when `large`.
    func commitRandomly(_ random: inout SeededRandom, ledger: Ledger, large: Bool) throws {
        let store = engine.store
        var inserted: [Entry] = (0..<(1 + random.next(below: 3))).map { _ in
            Entry(author: index, text: "from \(index) #\(random.next(below: 1_000_000))")
        }
        if large {
            // About 1 MB that hardly compresses: uploaded in a dozen chunks of 64 KiB.
            inserted += (0..<2).map { _ in Entry(author: index, text: random.noise(bytes: 400_000)) }
        }
        try store.commit(inserted)
        ledger.wrote(inserted.map(\.id))
        let existing = try Entry.query(in: store).fetch()
        if let entry = existing.randomElement(using: &random) {
            entry.revision += 1
            entry.text = "edited by \(index)"
            try store.commit(entry)
        }
        if random.next(below: 4) == 0, let entry = existing.randomElement(using: &random), entry.author != index {
            ledger.removed(entry.id)
            try store.remove(entry)
        }
    }

    /// One sync through the hub at `address`; a hub that stays unreachable is not a failure
    /// here (the next sync goes on).
    func sync(
        through address: URL, key: ChangeLogKey, ledger: Ledger,
        progress: @escaping @Sendable (SyncProgress) -> Void = { _ in }
    ) async throws {
        var options = SyncClient.Options(stateFolder: folder)
        options.chunkBytes = 64 << 10
        options.requestTimeout = .seconds(5)
        options.retry = RetryPolicy(maximumAttempts: 8, initialDelay: .milliseconds(100), maximumDelay: .seconds(1))
        let client = SyncClient(engine: engine, hub: address, space: "notes", token: token, key: key, options: options)
        do {
            let report = try await client.sync(progress: progress)
            ledger.acknowledge(report.filesPushed, retries: report.retries)
        } catch let error as SyncClientError where error.reason == .unavailable {
            ledger.endedUnavailable()
        }
    }
}

/// What the devices wrote, removed and were acknowledged, across their tasks.
final class Ledger: @unchecked Sendable {
    private let lock = NSLock()
    private var writtenIDs: Set<UUID> = []
    private var removedIDs: Set<UUID> = []
    private var sequences: Set<Int64> = []
    private var retryCount = 0
    private var unavailableCount = 0

    func wrote(_ ids: [UUID]) { lock.withLock { writtenIDs.formUnion(ids) } }
    func removed(_ id: UUID) { lock.withLock { _ = removedIDs.insert(id) } }
    func acknowledge(_ accepted: [Int64], retries: Int) {
        lock.withLock {
            sequences.formUnion(accepted)
            retryCount += retries
        }
    }
    func endedUnavailable() { lock.withLock { unavailableCount += 1 } }
    var retries: Int { lock.withLock { retryCount } }
    var unavailable: Int { lock.withLock { unavailableCount } }
    var written: Set<UUID> { lock.withLock { writtenIDs } }
    var removed: Set<UUID> { lock.withLock { removedIDs } }
    var acknowledged: Set<Int64> { lock.withLock { sequences } }
}

/// Kills a hub once, the first time it is asked to.
final class KillOnce: @unchecked Sendable {
    let hub: HubProcess
    private let lock = NSLock()
    private var fired = false

    init(_ hub: HubProcess) { self.hub = hub }

    func fire() {
        guard
            lock.withLock({ () -> Bool in
                defer { fired = true }
                return !fired
            })
        else { return }
        hub.killAndRestart()
    }
}

/// `shark serve` on the shared database: killed with SIGKILL and started again on its port.
final class HubProcess: @unchecked Sendable {
    private let lock = NSLock()
    private var process: Process
    private var killCount = 0
    private var restarting = false
    let port: Int
    let database: String
    let passwordFile: String
    let log: URL

    var address: URL { URL(string: "http://127.0.0.1:\(port)")! }
    var kills: Int { lock.withLock { killCount } }

    init(database: String, passwordFile: String, log: URL) throws {
        self.database = database
        self.passwordFile = passwordFile
        self.log = log
        (process, port) = try Self.start(database, passwordFile: passwordFile, port: 0, log: log)
    }

    /// Kills the process with SIGKILL once (while it is up), and starts it again on its port
    /// after a moment, on a thread of its own.
    func killAndRestart() {
        let victim: Process? = lock.withLock {
            guard !restarting, process.isRunning else { return nil }
            restarting = true
            killCount += 1
            return process
        }
        guard let victim else { return }
        kill(victim.processIdentifier, SIGKILL)
        Thread.detachNewThread {
            victim.waitUntilExit()
            Thread.sleep(forTimeInterval: 0.3)
            let restarted = try? Self.start(
                self.database, passwordFile: self.passwordFile, port: self.port, log: self.log)
            self.lock.withLock {
                if let restarted { self.process = restarted.0 }
                self.restarting = false
            }
        }
    }

    func stop() {
        let running = lock.withLock { process }
        if running.isRunning {
            running.terminate()
            running.waitUntilExit()
        }
    }

    private static func start(_ database: String, passwordFile: String, port: Int, log: URL) throws -> (Process, Int) {
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let process = Process()
        process.executableURL = SharkProcess.executable
        process.arguments = ["serve", database, "--port", "\(port)", "--password-file", passwordFile]
        process.standardError = try FileHandle(forWritingTo: log)
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            if let range = text.range(of: "listening on http://127.0.0.1:"),
                let line = text[range.upperBound...].split(separator: "\n").first, let bound = Int(line)
            {
                return (process, bound)
            }
            guard process.isRunning else { break }
            Thread.sleep(forTimeInterval: 0.05)
        }
        process.terminate()
        throw CocoaError(
            .fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "shark serve did not start: \(log.path)"])
    }
}

/// SplitMix64: the test's choices from one seed.
struct SeededRandom: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func next(below bound: Int) -> Int { Int(next() % UInt64(bound)) }

    /// Base64 of random bytes: text that does not compress much.
    mutating func noise(bytes: Int) -> String {
        var data = Data(count: bytes)
        for index in 0..<bytes { data[index] = UInt8(truncatingIfNeeded: next()) }
        return data.base64EncodedString()
    }
}

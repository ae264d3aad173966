import Foundation
import Histogram
import SharkHub
import SharkHubClient
import SharkMemory
import SharkORM
import SharkSQLite
import SharkSync
import Synchronization

/// `shark-bench --hub-load`: sustained sync through a real hub. The hub is `shark serve` on
/// a SQLite database, one child process, or with `--hub-postgres` on a fresh PostgreSQL
/// schema, one or several child processes (`--hub-processes`) sharing it, as a deployment
/// that outgrows one process runs; their memory is read from /proc/<pid>/status. The devices
/// are in this process, each an in-memory store with `SyncClient`, all syncing at once in
/// every round, each after a commit of its own.
///
/// Reported: changes pushed to the hub and delivered to devices per second, each sync's
/// latency (hdrhistogram: p50, p90, p99, max), the hub's CPU time against the wall time (how
/// busy the hub was; with several processes, their sum), and its resident memory (the
/// largest process's): idle after start, at its peak under load, and while a device that
/// joins late pulls a backlog of 100,000 and 1,000,000 changes. Every device's rows are
/// counted at the end: a run that lost a change fails.
enum HubLoad {
    struct Settings {
        var devices = 20
        var rounds = 20
        var changesPerCommit = 100
        var backlogs = [100_000, 1_000_000]
        var shark: String
        var directory: String
        /// The server of `--hub-postgres`; nil: the hub on a SQLite file.
        var postgres: PostgresBenchServer?
        /// How many `shark serve` processes share the hub's database (more than one:
        /// PostgreSQL only).
        var processes = 1
    }

    struct Backlog {
        var changes: Int
        var files: Int
        var hubBytes: Int64
        var pullSeconds: Double
        var hubPeakMegabytes: Double
    }

    struct Figures {
        var settings: Settings
        var seconds: Double
        var pushed: Int
        var delivered: Int
        var latencies: Histogram<UInt64>
        var hubCPUSeconds: Double
        /// The bench process's CPU time over the load: the devices' imports and exports.
        var devicesCPUSeconds: Double
        /// The PostgreSQL server's CPU time over the load, when the hub ran on one.
        var databaseCPUSeconds: Double?
        var hubIdleMegabytes: Double
        var hubLoadPeakMegabytes: Double
        var backlogs: [Backlog]
        /// The PostgreSQL server's version when the hub ran on one.
        var postgresVersion: String?
    }

    static let space = "bench"
    static let key = ChangeLogKey.random()

    static func run(_ settings: Settings) throws -> Figures {
        let box = Mutex<Result<Figures, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task {
            do {
                let figures = try await measure(settings)
                box.withLock { $0 = .success(figures) }
            } catch {
                box.withLock { $0 = .failure(error) }
            }
            done.signal()
        }
        done.wait()
        return try box.withLock { $0! }.get()
    }

    /// The run in a folder of its own (the SQLite hub, the devices' sync state, the hub's
    /// logs) and, on PostgreSQL, a schema of its own: both gone afterwards, whatever happened.
    static func measure(_ settings: Settings) async throws -> Figures {
        let folder = URL(fileURLWithPath: settings.directory).appendingPathComponent("shark-hub-load-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let database: Database =
            if let server = settings.postgres {
                .postgres(server, schema: PostgresBenchServer.freshSchema())
            } else {
                .sqlite(path: folder.appendingPathComponent("hub.sqlite").path)
            }
        let figures: Figures
        do {
            figures = try await load(settings, database: database, folder: folder)
        } catch {
            await database.drop()
            throw error
        }
        await database.drop()
        return figures
    }

    /// The load and the backlogs; the hub processes are stopped on return, before the
    /// caller drops their database.
    static func load(_ settings: Settings, database: Database, folder: URL) async throws -> Figures {
        // The space and every device's token, written before the hub starts.
        let joiners = settings.backlogs.count
        let tokens = try await prepareHub(database, devices: settings.devices + 1 + joiners)
        let postgresVersion = try await database.serverVersion()
        let hub = try HubProcesses(
            shark: settings.shark, database: database, count: settings.processes, folder: folder)
        defer { hub.stop() }
        try await Task.sleep(for: .seconds(1))
        let idle = hub.residentMegabytes()

        // The load: every device commits, then all sync at once, round after round.
        var devices: [Device] = []
        for index in 0..<settings.devices {
            devices.append(
                try Device(index: index, token: tokens[index], hub: hub.address(for: index), folder: folder))
        }
        var latencies = Histogram<UInt64>(
            highestTrackableValue: 600_000_000_000, numberOfSignificantValueDigits: .three)
        let cpuBefore = hub.cpuSeconds()
        let devicesCPUBefore = CPUTime.ownSeconds()
        let databaseCPUBefore = settings.postgres == nil ? nil : CPUTime.postgresSeconds()
        let started = ContinuousClock.now
        for round in 0..<settings.rounds {
            let measured = try await withThrowingTaskGroup(of: UInt64.self) { group in
                for device in devices {
                    group.addTask {
                        try device.commit(settings.changesPerCommit, round: round)
                        let begun = ContinuousClock.now
                        try await device.client.sync()
                        return Nanoseconds.of(ContinuousClock.now - begun)
                    }
                }
                return try await group.reduce(into: [UInt64]()) { $0.append($1) }
            }
            for value in measured { _ = latencies.record(value) }
        }
        // One quiet round, untimed, so that every device holds every change.
        for device in devices { try await device.client.sync() }
        let seconds = Double(Nanoseconds.of(ContinuousClock.now - started)) / 1e9
        let cpu = hub.cpuSeconds() - cpuBefore
        let devicesCPU = CPUTime.ownSeconds() - devicesCPUBefore
        let databaseCPU = databaseCPUBefore.map { CPUTime.postgresSeconds() - $0 }
        let loadPeak = hub.peakMegabytes()
        let pushed = settings.devices * settings.rounds * settings.changesPerCommit
        for device in devices {
            let count = try await HubBenchRow.query(in: device.engine.store).count()
            guard count == pushed else {
                throw BenchError.wrongResult("device \(device.index) holds \(count) of the \(pushed) changes")
            }
        }

        // Backlogs: one device writes them, pushing a file every 100,000 changes; a device
        // that joins late pulls them all, which the hub serves chunk by chunk.
        var backlogs: [Backlog] = []
        let writer = try Device(
            index: settings.devices, token: tokens[settings.devices], hub: hub.address(for: settings.devices),
            folder: folder)
        try await writer.client.sync()
        var written = try await HubBenchRow.query(in: writer.engine.store).count()
        for (number, size) in settings.backlogs.enumerated() {
            var files = 0
            var remaining = size
            while remaining > 0 {
                let part = min(remaining, 100_000)
                for start in stride(from: 0, to: part, by: 10_000) {
                    try writer.commit(min(10_000, part - start), round: 1_000_000 + files * 100 + start / 10_000)
                }
                files += try await writer.client.sync().filesPushed.count
                remaining -= part
            }
            written += size
            let hubBytes = try await database.bytes()
            hub.resetPeak()
            let index = settings.devices + 1 + number
            let joiner = try Device(index: index, token: tokens[index], hub: hub.address(for: index), folder: folder)
            let begun = ContinuousClock.now
            try await joiner.client.sync()
            let pullSeconds = Double(Nanoseconds.of(ContinuousClock.now - begun)) / 1e9
            let count = try await HubBenchRow.query(in: joiner.engine.store).count()
            guard count == written else {
                throw BenchError.wrongResult("the device that joined late holds \(count) of \(written) changes")
            }
            backlogs.append(
                Backlog(
                    changes: written, files: files, hubBytes: hubBytes, pullSeconds: pullSeconds,
                    hubPeakMegabytes: hub.peakMegabytes()))
            print(
                "backlog of \(written) changes: pulled in \(String(format: "%.1f", pullSeconds)) s, hub peak "
                    + "\(String(format: "%.0f", hub.peakMegabytes())) MB")
        }
        return Figures(
            settings: settings, seconds: seconds, pushed: pushed, delivered: pushed * (settings.devices - 1),
            latencies: latencies, hubCPUSeconds: cpu, devicesCPUSeconds: devicesCPU, databaseCPUSeconds: databaseCPU,
            hubIdleMegabytes: idle, hubLoadPeakMegabytes: loadPeak,
            backlogs: backlogs, postgresVersion: postgresVersion)
    }

    /// The space, and a token for each of `devices` devices, written through a store of the
    /// bench's own on the hub's database (its tables too, before any hub process opens it).
    static func prepareHub(_ database: Database, devices: Int) async throws -> [DeviceToken] {
        let store = try Store(database.configuration)
        defer { store.close() }
        let hub = try await Hub(store: store)
        try await hub.createSpace(space, lineage: "shark-bench-hub")
        var tokens: [DeviceToken] = []
        for index in 0..<devices { tokens.append(try await hub.addDevice(to: space, name: "device \(index)")) }
        return tokens
    }

    /// A device of the load: an in-memory store with sync, and its client to the hub.
    struct Device: Sendable {
        let index: Int
        let engine: SyncEngine
        let client: SyncClient

        init(index: Int, token: DeviceToken, hub: URL, folder: URL) throws {
            self.index = index
            engine = try SyncEngine(store: try Store(.memory), lineage: "shark-bench-hub", models: [HubBenchRow.self])
            var options = SyncClient.Options(stateFolder: folder.appendingPathComponent("device-\(index)"))
            options.allowsPlaintextHTTP = true
            client = SyncClient(
                engine: engine, hub: hub, space: HubLoad.space, token: token, key: key, options: options)
        }

        func commit(_ count: Int, round: Int) throws {
            try engine.store.commit(
                (0..<count).map {
                    HubBenchRow(device: index, round: round, text: "device \(index), round \(round), row \($0)")
                })
        }
    }
}

/// The rows the load's devices commit: small, as an app's edits are.
@Model(entity: "hub_bench_rows")
final class HubBenchRow {
    var id: UUID
    var device: Int = 0
    var round: Int = 0
    var text: String = ""

    init(device: Int, round: Int, text: String) {
        (self.id, self.device, self.round, self.text) = (UUID(), device, round, text)
    }
}

extension HubLoad.Figures {
    /// What the hub ran on, for the sentence above the tables: on PostgreSQL, how many
    /// processes and how the figures add up over them, and that the server's own cost is not
    /// in them (it is a separate process the bench does not watch).
    var hubDescription: String {
        guard settings.postgres != nil else { return "the hub is `shark serve` on SQLite, one process." }
        let count = settings.processes
        let server = "PostgreSQL \(postgresVersion ?? "?") on the same machine, over TCP on loopback"
        guard count > 1 else {
            return "the hub is `shark serve` on PostgreSQL, one process (\(server)); "
                + "database CPU is every postgres process's, PostgreSQL's memory is not counted."
        }
        return "the hub is `shark serve` on PostgreSQL, \(count) processes sharing one database (\(server)), "
            + "device i (the backlogs' writer and the devices that join late included) syncing through process "
            + "i mod \(count). Hub CPU is the processes' sum, hub RSS the largest process's; "
            + "database CPU is every postgres process's, PostgreSQL's memory is not counted."
    }

    /// The figures as Markdown: the load, then the backlogs.
    var markdown: String {
        func f(_ value: Double, _ digits: Int = 1) -> String { String(format: "%.\(digits)f", value) }
        func ms(_ quantile: Double) -> String { f(Double(latencies.valueAtPercentile(quantile)) / 1e6, 0) }
        var text = """
            \(settings.devices) devices, each committing \(settings.changesPerCommit) changes then syncing, \
            all at once, \(settings.rounds) rounds; \(hubDescription)

            | changes pushed | pushed per second | delivered per second | sync p50 (ms) | p90 | p99 | max | hub CPU / wall | devices CPU / wall | database CPU / wall | hub RSS idle (MB) | hub RSS peak (MB) |
            | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |
            | \(pushed) | \(f(Double(pushed) / seconds, 0)) | \(f(Double(delivered) / seconds, 0)) | \(ms(50)) | \(ms(90)) | \(ms(99)) | \(ms(100)) | \(f(hubCPUSeconds / seconds, 2)) | \(f(devicesCPUSeconds / seconds, 2)) | \(databaseCPUSeconds.map { f($0 / seconds, 2) } ?? "in the hub") | \(f(hubIdleMegabytes)) | \(f(hubLoadPeakMegabytes)) |

            """
        if !backlogs.isEmpty {
            text += """

                A device that joins late pulls the space's whole history\(databaseNote):

                | changes held | files | hub database (MB) | pull (s) | changes per second | hub RSS peak while serving (MB) |
                | ---: | ---: | ---: | ---: | ---: | ---: |

                """
            for backlog in backlogs {
                text +=
                    "| \(backlog.changes) | \(backlog.files) | \(f(Double(backlog.hubBytes) / 1_048_576)) | "
                    + "\(f(backlog.pullSeconds)) | \(f(Double(backlog.changes) / backlog.pullSeconds, 0)) | "
                    + "\(f(backlog.hubPeakMegabytes)) |\n"
            }
        }
        return text
    }

    /// What "hub database" measures on PostgreSQL, where there is no file to take the size of.
    private var databaseNote: String {
        settings.postgres == nil
            ? "" : " (hub database: the schema's tables with their indexes and TOAST, `pg_total_relation_size`)"
    }
}

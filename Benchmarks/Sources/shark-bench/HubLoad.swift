import Foundation
import Histogram
import SharkHub
import SharkHubClient
import SharkMemory
import SharkORM
import SharkSQLite
import SharkSync
import Synchronization

/// `shark-bench --hub-load`: sustained sync through a real hub process. The hub is
/// `shark serve` on a SQLite database, a child process whose memory is read from
/// /proc/<pid>/status; the devices are in this process, each an in-memory store with
/// `SyncClient`, all syncing at once in every round, each after a commit of its own.
///
/// Reported: changes pushed to the hub and delivered to devices per second, each sync's
/// latency (hdrhistogram: p50, p90, p99, max), the hub's CPU time against the wall time (how
/// busy the hub was), and its resident memory: idle after start, at its peak under load, and
/// while a device that joins late pulls a backlog of 100,000 and 1,000,000 changes.
/// Every device's rows are counted at the end: a run that lost a change fails.
enum HubLoad {
    struct Settings {
        var devices = 20
        var rounds = 20
        var changesPerCommit = 100
        var backlogs = [100_000, 1_000_000]
        var shark: String
        var directory: String
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
        var hubIdleMegabytes: Double
        var hubLoadPeakMegabytes: Double
        var backlogs: [Backlog]
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

    static func measure(_ settings: Settings) async throws -> Figures {
        let folder = URL(fileURLWithPath: settings.directory).appendingPathComponent("shark-hub-load-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = folder.appendingPathComponent("hub.sqlite").path
        // The space and every device's token, written before the hub starts.
        let joiners = settings.backlogs.count
        let tokens = try await prepareHub(at: database, devices: settings.devices + 1 + joiners)
        let hub = try HubProcess(shark: settings.shark, database: database, folder: folder)
        defer { hub.stop() }
        try await Task.sleep(for: .seconds(1))
        let idle = hub.residentMegabytes()

        // The load: every device commits, then all sync at once, round after round.
        var devices: [Device] = []
        for index in 0..<settings.devices {
            devices.append(try Device(index: index, token: tokens[index], hub: hub.address, folder: folder))
        }
        var latencies = Histogram<UInt64>(
            highestTrackableValue: 600_000_000_000, numberOfSignificantValueDigits: .three)
        let cpuBefore = hub.cpuSeconds()
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
            index: settings.devices, token: tokens[settings.devices], hub: hub.address, folder: folder)
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
            let hubBytes = try fileBytes(database)
            hub.resetPeak()
            let joiner = try Device(
                index: settings.devices + 1 + number, token: tokens[settings.devices + 1 + number], hub: hub.address,
                folder: folder)
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
            latencies: latencies, hubCPUSeconds: cpu, hubIdleMegabytes: idle, hubLoadPeakMegabytes: loadPeak,
            backlogs: backlogs)
    }

    /// The space, and a token for each of `devices` devices.
    static func prepareHub(at path: String, devices: Int) async throws -> [DeviceToken] {
        let store = try Store(.sqlite(path: path))
        defer { store.close() }
        let hub = try await Hub(store: store)
        try await hub.createSpace(space, lineage: "shark-bench-hub")
        var tokens: [DeviceToken] = []
        for index in 0..<devices { tokens.append(try await hub.addDevice(to: space, name: "device \(index)")) }
        return tokens
    }

    static func fileBytes(_ database: String) throws -> Int64 {
        var total: Int64 = 0
        for suffix in ["", "-wal"] {
            let attributes = try? FileManager.default.attributesOfItem(atPath: database + suffix)
            total += (attributes?[.size] as? NSNumber)?.int64Value ?? 0
        }
        return total
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

/// `shark serve` as a child process on a free port of loopback, with no rate limit (the
/// load is one address and many requests by design) and its log on a file, not a pipe that
/// could fill.
final class HubProcess {
    let process: Process
    let address: URL

    init(shark: String, database: String, folder: URL) throws {
        let log = folder.appendingPathComponent("hub.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: shark)
        process.arguments = [
            "serve", database, "--port", "0", "--device-requests-per-minute", "0", "--address-requests-per-minute",
            "0", "--log-level", "warning",
        ]
        // The caller's SHARK_SERVE_… settings are not this hub's.
        process.environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("SHARK_SERVE_") }
        let output = try FileHandle(forWritingTo: log)
        process.standardError = output
        process.standardOutput = output
        try process.run()
        self.process = process
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            if let range = text.range(of: "listening on http://127.0.0.1:"),
                let port = Int(text[range.upperBound...].prefix { $0.isNumber })
            {
                address = URL(string: "http://127.0.0.1:\(port)")!
                return
            }
            guard process.isRunning else { break }
            usleep(50_000)
        }
        process.terminate()
        throw BenchError.wrongResult(
            "shark serve did not start: \((try? String(contentsOf: log, encoding: .utf8)) ?? "")")
    }

    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }

    /// A line of /proc/<pid>/status, in megabytes.
    private func status(_ field: String) -> Double {
        guard let text = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8),
            let line = text.split(separator: "\n").first(where: { $0.hasPrefix(field + ":") }),
            let kilobytes = Double(line.split(separator: " ").dropFirst().first ?? "")
        else { return .nan }
        return kilobytes / 1024
    }

    func residentMegabytes() -> Double { status("VmRSS") }
    func peakMegabytes() -> Double { status("VmHWM") }

    /// Starts the peak over from what the hub holds now (Linux: /proc/<pid>/clear_refs).
    func resetPeak() {
        try? "5".write(toFile: "/proc/\(process.processIdentifier)/clear_refs", atomically: false, encoding: .utf8)
    }

    /// The hub's user and system CPU time so far.
    func cpuSeconds() -> Double {
        guard let text = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/stat", encoding: .utf8),
            let end = text.lastIndex(of: ")")
        else { return .nan }
        // After the command's name: state is field 3, utime 14 and stime 15.
        let fields = text[text.index(after: end)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return .nan }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }
}

extension HubLoad.Figures {
    /// The figures as Markdown: the load, then the backlogs.
    var markdown: String {
        func f(_ value: Double, _ digits: Int = 1) -> String { String(format: "%.\(digits)f", value) }
        func ms(_ quantile: Double) -> String { f(Double(latencies.valueAtPercentile(quantile)) / 1e6, 0) }
        var text = """
            \(settings.devices) devices, each committing \(settings.changesPerCommit) changes then syncing, \
            all at once, \(settings.rounds) rounds; the hub is `shark serve` on SQLite, one process.

            | changes pushed | pushed per second | delivered per second | sync p50 (ms) | p90 | p99 | max | hub CPU / wall | hub RSS idle (MB) | hub RSS peak (MB) |
            | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |
            | \(pushed) | \(f(Double(pushed) / seconds, 0)) | \(f(Double(delivered) / seconds, 0)) | \(ms(50)) | \(ms(90)) | \(ms(99)) | \(ms(100)) | \(f(hubCPUSeconds / seconds, 2)) | \(f(hubIdleMegabytes)) | \(f(hubLoadPeakMegabytes)) |

            """
        if !backlogs.isEmpty {
            text += """

                A device that joins late pulls the space's whole history:

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
}

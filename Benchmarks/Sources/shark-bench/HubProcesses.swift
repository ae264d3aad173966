import Foundation

/// The hub of `--hub-load` as the processes that serve it: one on SQLite, one or more on
/// PostgreSQL (`--hub-processes`), all on the same database. A hub process keeps nothing
/// between requests, so any of them may answer any device; device `i` syncs through process
/// `i % count`, which sends the writer of the backlogs and the devices that join late to
/// different processes when there are several.
///
/// The figures read over the processes are those a deployment would size by: the CPU time
/// is their sum (what the hub as a whole costs), the resident memory the largest process's
/// (the 150 MB limit is per process).
final class HubProcesses {
    let members: [HubProcess]

    /// Starts `count` processes of `shark serve` on `database`, one after another, each
    /// once the one before listens, so that no two check the hub's tables at the same time
    /// (the bench created them before), each logging to a file of its own in `folder`.
    init(shark: String, database: HubLoad.Database, count: Int, folder: URL) throws {
        guard count == 1 || database.allowsSeveralProcesses else {
            throw BenchError.wrongResult("one shark serve process per SQLite database: several need PostgreSQL")
        }
        var members: [HubProcess] = []
        do {
            for index in 0..<count {
                members.append(
                    try HubProcess(
                        shark: shark, database: database.serveArguments,
                        log: folder.appendingPathComponent("hub-\(index).log")))
            }
        } catch {
            for member in members { member.stop() }
            throw error
        }
        self.members = members
    }

    /// The address device `index` syncs through.
    func address(for index: Int) -> URL { members[index % members.count].address }

    func stop() {
        for member in members { member.stop() }
    }

    /// The largest resident set of the processes now, in megabytes.
    func residentMegabytes() -> Double { members.map { $0.residentMegabytes() }.max() ?? .nan }

    /// The largest peak resident set of the processes, in megabytes.
    func peakMegabytes() -> Double { members.map { $0.peakMegabytes() }.max() ?? .nan }

    /// Starts every process's peak over from what it holds now.
    func resetPeak() {
        for member in members { member.resetPeak() }
    }

    /// The user and system CPU time of all the processes so far.
    func cpuSeconds() -> Double { members.reduce(0) { $0 + $1.cpuSeconds() } }
}

/// `shark serve` as a child process on a free port of loopback, with no rate limit (the
/// load is one address and many requests by design) and its log on a file, not a pipe that
/// could fill.
final class HubProcess {
    let process: Process
    let address: URL

    /// `database`: the arguments that name the hub's database to `shark serve`, a file or a
    /// URL and the file that holds its password (never the password itself).
    init(shark: String, database: [String], log: URL) throws {
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: shark)
        process.arguments =
            ["serve"] + database + [
                "--port", "0", "--device-requests-per-minute", "0", "--address-requests-per-minute", "0",
                "--log-level", "warning",
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
    func cpuSeconds() -> Double { CPUTime.seconds(of: process.processIdentifier) }
}

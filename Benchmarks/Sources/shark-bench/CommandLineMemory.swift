import Foundation
import SharkORM
import SharkSQLCipher
import SharkSQLite
import SharkSync

#if canImport(Glibc)
    import Glibc
#endif

/// The peak resident memory and the time of the `shark` command line's streaming commands on
/// a large database: `query` to CSV, `export` of a full change log, and `import` of that log
/// into an empty synced store, on a SQLite and a SQLCipher file of `rows` rows. Each command
/// runs as a child process whose peak resident set (`ru_maxrss`) is read when it exits, set
/// against that of `shark --help` (the process's own start): what the commands hold beyond it
/// must not grow with the rows.
enum CommandLineMemory {
    struct Measure {
        var database: String
        var command: String
        var seconds: Double
        var peakMegabytes: Double
    }

    static let passphrase = "shark-bench"

    static func measure(rows: Int, shark: String, directory: String) throws {
        let folder = directory + "/shark-cli-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let start = try run(shark, ["--help"], environment: [:])
        var measures: [Measure] = []
        for encrypted in [false, true] {
            let name = encrypted ? "sqlcipher" : "sqlite"
            let source = folder + "/\(name).sqlite"
            let target = folder + "/\(name)-empty.sqlite"
            try fill(path: source, rows: rows, encrypted: encrypted)
            try fill(path: target, rows: 0, encrypted: encrypted)
            let environment = encrypted ? ["SHARK_KEY": passphrase] : [:]
            let log = folder + "/\(name).sharklog"
            for (command, arguments) in [
                ("query --format csv", ["query", source, "SyncRow4", "--format", "csv"]),
                ("export", ["export", source, "-o", log]),
                ("import", ["import", target, log]),
            ] {
                let result = try run(shark, arguments, environment: environment)
                measures.append(
                    Measure(database: name, command: command, seconds: result.seconds, peakMegabytes: result.peak))
                print(
                    "\(name) \(command): \(String(format: "%.1f", result.seconds)) s, peak \(String(format: "%.1f", result.peak)) MB"
                )
            }
            let imported = try Store(configuration(path: target, encrypted: encrypted))
            let count = try SyncRow4.query(in: imported).count()
            imported.close()
            guard count == rows else { throw BenchError.wrongResult("the import left \(count) of \(rows) rows") }
        }
        let header = ["database", "command", "time (s)", "peak RSS (MB)", "above the start (MB)"]
        let table = measures.map { measure in
            [
                measure.database, "`shark \(measure.command)`", String(format: "%.1f", measure.seconds),
                String(format: "%.1f", measure.peakMegabytes),
                String(format: "%.1f", measure.peakMegabytes - start.peak),
            ]
        }
        print(
            "\nThe shark command line on \(rows) rows (UUID key, a short string, two integers); "
                + "`shark --help` peaks at \(String(format: "%.1f", start.peak)) MB\n")
        print(markdownTable(header, table).joined(separator: "\n"))
    }

    private static func configuration(path: String, encrypted: Bool) -> StoreConfiguration {
        encrypted ? .sqlcipher(path: path, key: .passphrase(passphrase)) : .sqlite(path: path)
    }

    /// A synced store of `rows` rows, filled in commits of 10,000.
    private static func fill(path: String, rows: Int, encrypted: Bool) throws {
        let store = try Store(configuration(path: path, encrypted: encrypted))
        defer { store.close() }
        _ = try SyncEngine(store: store, lineage: "bench", models: [SyncRow4.self])
        for start in stride(from: 0, to: rows, by: 10_000) {
            let objects = (start..<min(start + 10_000, rows)).map { index in
                SyncRow4(id: UUID.v7(), name: "row \(index)", amount: (index * 7919) % 10_000, kind: index % 10)
            }
            try store.commit(objects)
        }
    }

    /// Runs `shark` with `arguments`, its output thrown away; its time and peak resident set.
    private static func run(_ shark: String, _ arguments: [String], environment: [String: String]) throws -> (
        seconds: Double, peak: Double
    ) {
        var actions: posix_spawn_file_actions_t = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0)
        let argv = ([shark] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var merged = ProcessInfo.processInfo.environment
        for (name, value) in environment { merged[name] = value }
        let envp = merged.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in envp { free(pointer) } }
        var pid: pid_t = 0
        let started = ContinuousClock.now
        let spawned = posix_spawn(&pid, shark, &actions, nil, argv, envp)
        guard spawned == 0 else {
            throw BenchError.wrongResult("cannot run \(shark): \(String(cString: strerror(spawned)))")
        }
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 {
            guard errno == EINTR else { throw BenchError.wrongResult("waiting for \(shark) failed") }
        }
        let seconds = (ContinuousClock.now - started).seconds
        guard status & 0x7f == 0, (status >> 8) & 0xff == 0 else {
            throw BenchError.wrongResult("shark \(arguments.joined(separator: " ")) failed (status \(status))")
        }
        return (seconds, Double(usage.ru_maxrss) / 1024)
    }
}

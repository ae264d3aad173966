import Foundation
import SharkORM
import SharkSQLCipher
import SharkSQLite
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `shark rekey`, `encrypt` and `decrypt` killed with SIGKILL at random moments while they
/// work: a rekeyed file opens with the old key or the new one with every row, and an
/// encrypted or decrypted copy is either absent or complete, its source untouched.
///
/// A kill counts as landing while the operation runs only when it left the evidence of one
/// in progress: a rollback journal beside the file being rekeyed, the hidden partial copy
/// beside an export's destination. The test runs until 20 kills of each operation have
/// landed (`SHARK_KILL_COUNT` asks for another number) and says how many did.
@Suite("Crash safety: kill -9 during rekey, encrypt and decrypt")
struct CrashSafetyTests {
    static let landingsWanted = Int(ProcessInfo.processInfo.environment["SHARK_KILL_COUNT"] ?? "") ?? 20
    static let keys = [String(repeating: "1a", count: 32), String(repeating: "2b", count: 32)]

    /// A database big enough that rewriting it takes a while: about 12 MB.
    static func fill(_ store: Store) throws {
        let padding = String(repeating: "x", count: 300)
        for batch in 0..<8 {
            try store.commit(
                (0..<4_000).map { index in
                    let number = batch * 4_000 + index
                    return Member(
                        id: UUID(), name: "member \(number) \(padding)", age: number, joined: Date(),
                        salary: Decimal(number), active: true)
                })
        }
    }

    static let rowCount = 32_000
    static let ageSum = (0..<32_000).reduce(0, +)

    /// Whether the database at `path` opens with `key` and holds every row; nil when the key
    /// does not open it.
    static func isComplete(_ path: String, key: SQLCipherKey?) throws -> Bool? {
        let store: Store
        do {
            store = try Store(key.map { .sqlcipher(path: path, key: $0) } ?? .sqlite(path: path))
        } catch SQLCipherError.wrongKey {
            return nil
        }
        defer { store.close() }
        let rows = try store.fetchRows(of: "Member")
        let ages = rows.reduce(0) { $0 + Int($1["age"]?.coercedToInt64() ?? 0) }
        return rows.count == rowCount && ages == ageSum
    }

    static func rawKey(_ hex: String) -> SQLCipherKey { .raw(rawBytes(hex)) }

    /// Runs `shark arguments`, kills it after `delay` seconds unless it ended, and says
    /// whether the kill happened (the process ended by the signal).
    static func runKilling(_ arguments: [String], key: String, newKey: String? = nil, after delay: Double) throws
        -> Bool
    {
        let process = Process()
        process.executableURL = SharkProcess.executable
        process.arguments = arguments + ["--raw-key"]
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("SHARK_") }
        environment["SHARK_KEY"] = key
        if let newKey { environment["SHARK_NEW_KEY"] = newKey }
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(delay)
        while process.isRunning && Date() < deadline { usleep(500) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        return process.terminationReason == .uncaughtSignal
    }

    /// How long an uninterrupted run of `arguments` takes.
    static func duration(_ arguments: [String], key: String, newKey: String? = nil) throws -> Double {
        let start = Date()
        _ = try runKilling(arguments, key: key, newKey: newKey, after: 600)
        return Date().timeIntervalSince(start)
    }

    static func partialCopies(in directory: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.contains(".shark-partial-") }
    }

    @Test("rekey killed at random moments: the file opens with the old key or the new one, with every row")
    func rekey() throws {
        let directory = try Fixtures.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("vault.sqlite").path
        do {
            let store = try Store(.sqlcipher(path: path, key: Self.rawKey(Self.keys[0])))
            try Self.fill(store)
            store.close()
        }
        var current = 0
        let full = try Self.duration(["rekey", path], key: Self.keys[current], newKey: Self.keys[1 - current])
        current = 1 - current
        var random = SystemRandomNumberGenerator()
        var landed = 0
        var attempts = 0
        var window = KillWindow(full: full)
        while landed < Self.landingsWanted && attempts < Self.landingsWanted * 6 {
            attempts += 1
            let delay = window.next(using: &random)
            let killed = try Self.runKilling(
                ["rekey", path], key: Self.keys[current], newKey: Self.keys[1 - current], after: delay)
            let inside = killed && FileManager.default.fileExists(atPath: path + "-journal")
            if inside { landed += 1 }
            // Killed with no journal: before the rekey began or after it ended, which is not
            // told apart; only a run that ended before the kill moves the window.
            window.record(delay: delay, outcome: !killed ? .late : inside ? .inside : .unknown)
            // Either key may be tried first: trying the wrong one must not harm the file.
            let order = Bool.random(using: &random) ? [current, 1 - current] : [1 - current, current]
            var opened: Int?
            for candidate in order {
                if let complete = try Self.isComplete(path, key: Self.rawKey(Self.keys[candidate])) {
                    #expect(complete, "after a kill at \(delay) s the file opened with a key but lost rows")
                    opened = candidate
                    break
                }
            }
            guard let opened else {
                Issue.record("after a kill at \(delay) s, neither key opens the file")
                return
            }
            current = opened
        }
        print("rekey: \(landed) of \(attempts) kills landed while the rekey ran (runs take \(full) s)")
        #expect(landed >= Self.landingsWanted)
    }

    @Test("encrypt and decrypt killed at random moments: the source untouched, the copy absent or complete")
    func export() throws {
        let directory = try Fixtures.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let plain = directory.appendingPathComponent("plain.sqlite").path
        let encrypted = directory.appendingPathComponent("encrypted.sqlite").path
        do {
            let store = try Store(.sqlite(path: plain))
            try Self.fill(store)
            store.close()
        }
        let key = Self.keys[0]
        _ = try Self.duration(["encrypt", plain, "-o", encrypted], key: key)
        #expect(try Self.isComplete(encrypted, key: Self.rawKey(key)) == true)
        for (name, source, arguments) in [
            ("encrypt", plain, { (output: String) in ["encrypt", plain, "-o", output] }),
            ("decrypt", encrypted, { (output: String) in ["decrypt", encrypted, "-o", output] }),
        ] {
            let sourceBefore = try Data(contentsOf: URL(fileURLWithPath: source))
            let output = directory.appendingPathComponent("\(name)-output.sqlite").path
            let full = try Self.duration(arguments(output), key: key)
            try FileManager.default.removeItem(atPath: output)
            var random = SystemRandomNumberGenerator()
            var landed = 0
            var attempts = 0
            var window = KillWindow(full: full)
            while landed < Self.landingsWanted && attempts < Self.landingsWanted * 6 {
                attempts += 1
                let delay = window.next(using: &random)
                let killed = try Self.runKilling(arguments(output), key: key, after: delay)
                let partials = try Self.partialCopies(in: directory)
                if killed && !partials.isEmpty { landed += 1 }
                let finished = !killed || FileManager.default.fileExists(atPath: output)
                window.record(delay: delay, outcome: finished ? .late : partials.isEmpty ? .early : .inside)
                #expect(
                    try Data(contentsOf: URL(fileURLWithPath: source)) == sourceBefore, "\(name) changed its source")
                if FileManager.default.fileExists(atPath: output) {
                    let complete = try Self.isComplete(output, key: name == "encrypt" ? Self.rawKey(key) : nil)
                    #expect(complete == true, "\(name) killed at \(delay) s left an incomplete file at its destination")
                    try FileManager.default.removeItem(atPath: output)
                }
                for partial in partials {
                    try FileManager.default.removeItem(at: directory.appendingPathComponent(partial))
                }
            }
            print("\(name): \(landed) of \(attempts) kills landed while it ran (runs take \(full) s)")
            #expect(landed >= Self.landingsWanted, "\(name)")
        }
    }
}

/// The moments to kill a run at: random within a window that follows what the kills find. The
/// run's length was measured once, but the machine's load changes while the tests run (other
/// tests start processes of their own: the PostgreSQL many-writer test runs four), so a kill
/// after the run ended moves the window's end to that moment, and one before the run reached
/// its work (nothing to find yet) moves the window's start there: kills keep landing inside
/// the run.
struct KillWindow {
    var low: Double
    var high: Double

    init(full: Double) {
        low = full * 0.2
        high = full * 1.1
    }

    func next(using random: inout some RandomNumberGenerator) -> Double {
        Double.random(in: low...max(high, low + 0.001), using: &random)
    }

    /// Where a kill fell.
    enum Outcome { case early, inside, late, unknown }

    mutating func record(delay: Double, outcome: Outcome) {
        switch outcome {
        case .late: high = max(low + 0.001, delay)  // the run had ended
        case .early: low = min(delay, high - 0.001)  // the run had not begun its work
        case .inside, .unknown: break
        }
        if high - low < high * 0.1 {
            // Collapsed: open it again around where it stands, for the load may change back.
            low *= 0.7
            high *= 1.3
        }
    }
}

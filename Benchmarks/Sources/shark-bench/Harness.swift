import CSQLite
import Foundation
import SharkMemory
@_spi(SharkDriver) import SharkORM
import SharkPostgres
import SharkSQLCipher
import SharkSQLite

/// Runs the workloads on every backend, one fresh database per backend per repetition, with
/// the order of the backends rotated each repetition so that none always runs first (on a
/// cold heap) or last (after the others have fragmented it).
final class Harness {
    let backends: [BackendKind]
    let workloads: Set<Workload>
    let input: WorkloadInput
    let directory: String
    /// The server of the PostgreSQL family, when it runs.
    let postgres: PostgresBenchServer?

    /// Seconds, per workload and backend, one entry per repetition.
    private(set) var timings: [Workload: [BackendKind: [Double]]] = [:]
    /// The most heap each backend held beyond its start, over its repetitions, in bytes.
    private(set) var peakMemory: [BackendKind: Int] = [:]

    init(
        backends: [BackendKind], workloads: Set<Workload>, input: WorkloadInput, directory: String,
        postgres: PostgresBenchServer? = nil
    ) {
        self.postgres = postgres
        self.backends = backends
        self.workloads = workloads
        self.input = input
        self.directory = directory
    }

    /// The order of the backends in repetition `repetition` (from 0).
    static func order(of backends: [BackendKind], repetition: Int) -> [BackendKind] {
        guard !backends.isEmpty else { return [] }
        let shift = repetition % backends.count
        return Array(backends[shift...] + backends[..<shift])
    }

    func run(repetitions: Int, progress: (String) -> Void) throws {
        for repetition in 0..<repetitions {
            for kind in Self.order(of: backends, repetition: repetition) {
                progress("repetition \(repetition + 1)/\(repetitions): \(kind.title)")
                // The PostgreSQL family is not sampled: at 100,000 rows a sample (glibc's
                // mallinfo2, which walks every free chunk under the allocator's lock) took
                // longer than the interval between samples, and held Fluent's event loop
                // waiting for the allocator most of the time.
                guard postgres == nil else {
                    try runOnce(kind)
                    continue
                }
                let peak = try PeakMemory.measure { try runOnce(kind) }
                peakMemory[kind] = max(peakMemory[kind] ?? 0, peak)
            }
        }
    }

    private func runOnce(_ kind: BackendKind) throws {
        let backend = try makeBackend(kind)
        defer { backend.close() }
        let rows = input.rows.count
        untimed { backend.prepareInsert(input.rows) }
        try step(.insert, kind) { try backend.insert(input.rows) }
        try step(.fetch, kind) { try expect(backend.fetchAll(), rows, "fetch", kind) }
        if kind.supports(.range) {
            let expected = input.rangeStarts.count * input.rangeWidth
            try step(.range, kind) {
                try expect(backend.ranges(input.rangeStarts, width: input.rangeWidth), expected, "range", kind)
            }
        }
        try step(.update, kind) { try backend.updateAll() }
        try step(.lookup, kind) {
            try expect(backend.lookups(input.lookupKeys), input.lookupKeys.count, "lookup", kind)
        }
        if kind.supports(.query) {
            let values = input.lookupKeys.map { Int($0) - 1 }  // row n has key n + 1 and a == n
            try step(.query, kind) { try expect(backend.queries(values), values.count, "query", kind) }
        }
        let expectedSum = input.rows.reduce(Int64(0)) { $0 + $1.h }
        try step(.aggregate, kind) {
            for _ in 0..<20 {
                let sum = try backend.sumOfH()
                guard sum == expectedSum else {
                    throw BenchError.wrongResult("\(kind.title) sum: \(sum), expected \(expectedSum)")
                }
            }
        }
        if kind.supports(.join) {
            try untimed { try backend.prepareJoin(members: input.joinMembers, teams: input.joinTeams) }
            try step(.join, kind) {
                let loaded = try backend.joinPages(input.joinStarts, width: input.joinWidth)
                try expect(loaded, input.joinStarts.count * input.joinWidth, "join", kind)
            }
        }
        try step(.remove, kind) { try expect(backend.removeEveryOther(), (rows + 1) / 2, "remove", kind) }
    }

    /// Runs one workload: timed (and counted by callgrind) when selected, plainly otherwise,
    /// since later workloads need the data earlier ones wrote.
    private func step(_ workload: Workload, _ kind: BackendKind, _ body: () throws -> Void) throws {
        guard workloads.contains(workload) else { return try untimed(body) }
        let seconds = try measured(body)
        timings[workload, default: [:]][kind, default: []].append(seconds)
    }

    private func expect(_ count: Int, _ expected: Int, _ what: String, _ kind: BackendKind) throws {
        guard count == expected else {
            throw BenchError.wrongResult("\(kind.title) \(what): \(count) rows, expected \(expected)")
        }
    }

    private func makeBackend(_ kind: BackendKind) throws -> any Backend {
        let path = directory + "/shark-bench-\(UUID().uuidString).sqlite"
        let removeFiles = {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        }
        switch kind {
        case .rawSQLite: return RawDatabase(api: RawLibraries.sqlite, path: path)
        case .rawSQLCipher: return RawDatabase(api: RawLibraries.sqlcipher, path: path, key: "bench")
        case .grdb: return try GRDBBackend(path: path)
        case .sharkSQLite: return try SharkBackend(Store(.sqlite(path: path)), cleanup: removeFiles)
        case .sharkSQLCipher:
            return try SharkBackend(Store(.sqlcipher(path: path, key: .passphrase("bench"))), cleanup: removeFiles)
        case .sharkMemory: return try SharkBackend(Store(.memory))
        case .dictionary: return DictionaryFloor()
        case .rawPostgres, .sharkPostgres, .fluent:
            guard let postgres else { throw BenchError.noServer }
            switch kind {
            case .rawPostgres: return try RawPostgres(server: postgres)
            case .fluent: return try FluentBackend(server: postgres)
            default:
                let schema = PostgresBenchServer.freshSchema()
                return try SharkBackend(Store(postgres.storeConfiguration(schema: schema))) {
                    let executor = SuspendingDriverExecutor(name: "shark-bench cleanup")
                    postgres.dropSchema(schema, on: executor)
                    executor.shutdown()
                }
            }
        }
    }
}

/// The C function tables of the two libraries: the system SQLite's points at the libsqlite3
/// already linked in; SQLCipher's is loaded isolated, as the SQLCipher driver loads it.
enum RawLibraries {
    nonisolated(unsafe) static let sqlite = RawDatabase.table("libsqlite3.so.0", isolated: false)
    nonisolated(unsafe) static let sqlcipher = RawDatabase.table("libsqlcipher.so.0", isolated: true)
}

enum BenchError: Error, CustomStringConvertible {
    case wrongResult(String)
    case noServer
    var description: String {
        switch self {
        case .wrongResult(let message): "wrong result: \(message)"
        case .noServer:
            "no PostgreSQL server: SHARK_POSTGRES_HOST, _PORT and _PASSWORD_FILE are not set "
                + "(scripts/bench-postgres.sh starts a throw-away one and runs the PostgreSQL family on it)"
        }
    }
}

/// The timed section. Not inlined, and named so that callgrind can count its instructions
/// alone: `valgrind --tool=callgrind --toggle-collect='*measured*'`.
@inline(never)
func measured(_ body: () throws -> Void) rethrows -> Double {
    let start = ContinuousClock.now
    try body()
    let elapsed = ContinuousClock.now - start
    return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
}

/// Work that prepares later workloads: kept out of the callgrind count.
@inline(never)
func untimed(_ body: () throws -> Void) rethrows {
    try body()
}

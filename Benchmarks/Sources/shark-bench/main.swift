// shark-bench: the same workloads through SharkORM on every backend, and through a
// hand-written sqlite3 loop, in one process. Build in release:
//
//     swift run -c release --package-path Benchmarks shark-bench [rows] [--runs N]
//
// Workloads, on a model of ten columns with an index on `a`:
//   insert   commit `rows` new objects in one transaction
//   fetch    fetch every row back into objects
//   lookup   1,000 point lookups by key
//   range    100 indexed range queries of 100 rows each
import CSQLite
import Foundation
import SharkMemory
import SharkORM
import SharkSQLCipher
import SharkSQLite

let arguments = Array(CommandLine.arguments.dropFirst())
let runsFlag = arguments.firstIndex(of: "--runs")
let repetitions = runsFlag.flatMap { $0 + 1 < arguments.count ? Int(arguments[$0 + 1]) : nil } ?? 7
let rowCount =
    arguments.enumerated().first { index, argument in
        Int(argument) != nil && runsFlag.map { index != $0 + 1 } ?? true
    }.flatMap { Int($0.element) } ?? 100_000
let lookupCount = 1_000
let rangeCount = 100
let rangeWidth = 100

func temporaryPath() -> String {
    FileManager.default.temporaryDirectory.appendingPathComponent("shark-bench-\(UUID().uuidString).sqlite").path
}

func remove(_ path: String) {
    for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
}

func seconds(_ body: () throws -> Void) rethrows -> Double {
    let start = ContinuousClock.now
    try body()
    let elapsed = ContinuousClock.now - start
    return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
}

func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

let input = InputRow.make(count: rowCount)
var generator = SystemRandomNumberGenerator()
let lookupKeys = (0..<lookupCount).map { _ in Int64.random(in: 1...Int64(rowCount), using: &generator) }
let rangeStarts = (0..<rangeCount).map { _ in Int.random(in: 0..<max(1, rowCount - rangeWidth), using: &generator) }

/// Medians per workload, per backend.
var results: [String: [String: [Double]]] = [:]
@MainActor func record(_ workload: String, _ backend: String, _ time: Double) {
    results[workload, default: [:]][backend, default: []].append(time)
}

/// The four workloads through SharkORM on one store.
@MainActor func runShark(_ backend: String, _ store: Store) throws {
    try store.prepare(Row10.self)
    let objects = input.map(Row10.init)
    record("insert", backend, try seconds { try store.commit(objects) })
    var fetched: [Row10] = []
    record("fetch", backend, try seconds { fetched = try Row10.query(in: store).fetch() })
    precondition(fetched.count == rowCount && fetched.last?.e == input.last?.e)
    var found = 0
    record(
        "lookup", backend,
        try seconds {
            for key in lookupKeys where try store.find(Row10.self, id: key) != nil { found += 1 }
        })
    precondition(found == lookupCount)
    var rangeRows = 0
    record(
        "range", backend,
        try seconds {
            for start in rangeStarts {
                rangeRows += try Row10.query(in: store).where(.between(\.a, start, start + rangeWidth - 1)).fetch()
                    .count
            }
        })
    precondition(rangeRows == rangeCount * rangeWidth)
}

/// The same four workloads written by hand against the C API.
@MainActor func runRaw(_ backend: String, api: UnsafeMutablePointer<shark_sqlite3_api>, key: String?, pageSize: Int) {
    let path = temporaryPath()
    let raw = RawDatabase(api: api, path: path, key: key, pageSize: pageSize)
    raw.createTable()
    record("insert", backend, seconds { raw.insert(input) })
    var plain: [PlainRow10] = []
    record("fetch", backend, seconds { plain = raw.fetchAll() })
    precondition(plain.count == rowCount && plain.last?.e == input.last?.e)
    var found = 0
    record("lookup", backend, seconds { found = raw.lookups(lookupKeys) })
    precondition(found == lookupCount)
    var rangeRows = 0
    record("range", backend, seconds { rangeRows = raw.ranges(rangeStarts, width: rangeWidth) })
    precondition(rangeRows == rangeCount * rangeWidth)
    raw.close()
    remove(path)
}

// The system SQLite's table points at the libsqlite3 already linked in; SQLCipher's is
// loaded isolated, as the SQLCipher driver loads it.
let systemAPI = RawDatabase.table("libsqlite3.so.0", isolated: false)
let cipherAPI = RawDatabase.table("libsqlcipher.so.0", isolated: true)

let backends = [
    "memory", "sqlite (file)", "sqlite (temporary)", "sqlcipher", "raw sqlcipher 1K", "raw sqlcipher 4K", "raw sqlite3",
]
for run in 1...repetitions {
    print("run \(run)/\(repetitions)…")
    do {
        let store = try Store(.memory)
        try runShark("memory", store)
        store.close()
    }
    do {
        let path = temporaryPath()
        let store = try Store(.sqlite(path: path))
        try runShark("sqlite (file)", store)
        store.close()
        remove(path)
    }
    do {
        let store = try Store(.sqliteTemporary)
        try runShark("sqlite (temporary)", store)
        store.close()
    }
    do {
        let store = try Store(.sqlcipherTemporary(key: .passphrase("bench")))
        try runShark("sqlcipher", store)
        store.close()
    }
    runRaw("raw sqlcipher 1K", api: cipherAPI, key: "bench", pageSize: 1024)
    runRaw("raw sqlcipher 4K", api: cipherAPI, key: "bench", pageSize: 4096)
    runRaw("raw sqlite3", api: systemAPI, key: nil, pageSize: 0)
}

print("\n\(rowCount) rows × 10 columns, SQLite \(sqliteVersion), median of \(repetitions) runs (release build)")
print("milliseconds, then the ratio to raw sqlite3 doing the same work (lower is faster)\n")
let width = 18
print(
    "workload".padding(toLength: 8, withPad: " ", startingAt: 0)
        + backends.map { $0.padding(toLength: width, withPad: " ", startingAt: 0) }.joined())
for workload in ["insert", "fetch", "lookup", "range"] {
    let times = backends.map { median(results[workload]![$0]!) * 1000 }
    let raw = times.last!
    let cells = zip(backends, times).map { backend, time in
        String(format: "%.2f (%.2f×)", time, time / raw).padding(toLength: width, withPad: " ", startingAt: 0)
    }
    print(workload.padding(toLength: 8, withPad: " ", startingAt: 0) + cells.joined())
}
@MainActor func ratio(_ workload: String, _ a: String, _ b: String) -> String {
    String(format: "%.2f×", median(results[workload]![a]!) / median(results[workload]![b]!))
}
print("\nencryption overhead: SharkORM sqlcipher / sqlite, beside the bare C libraries")
for workload in ["insert", "fetch"] {
    print(
        "\(workload): SharkORM \(ratio(workload, "sqlcipher", "sqlite (file)"))",
        "| C 4K pages \(ratio(workload, "raw sqlcipher 4K", "raw sqlite3"))",
        "| C 1K pages \(ratio(workload, "raw sqlcipher 1K", "raw sqlite3"))")
}

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
import CSQLiteRaw
import Foundation
import SharkMemory
import SharkORM
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
    _ = try store.schema(for: Row10.self)
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
@MainActor func runRaw() {
    let path = temporaryPath()
    let db = RawSQLite.open(path)
    RawSQLite.createTable(db)
    record("insert", "raw sqlite3", seconds { RawSQLite.insert(input, into: db) })
    var plain: [PlainRow10] = []
    record("fetch", "raw sqlite3", seconds { plain = RawSQLite.fetchAll(from: db) })
    precondition(plain.count == rowCount && plain.last?.e == input.last?.e)
    var found = 0
    record("lookup", "raw sqlite3", seconds { found = RawSQLite.lookups(lookupKeys, in: db) })
    precondition(found == lookupCount)
    var rangeRows = 0
    record(
        "range", "raw sqlite3", seconds { rangeRows = RawSQLite.ranges(rangeStarts, width: rangeWidth, in: db) })
    precondition(rangeRows == rangeCount * rangeWidth)
    sqlite3_close_v2(db)
    remove(path)
}

let backends = ["memory", "sqlite (file)", "sqlite (temporary)", "raw sqlite3"]
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
    runRaw()
}

print("\n\(rowCount) rows × 10 columns, SQLite \(sqliteVersion), median of \(repetitions) runs (release build)")
print("times in milliseconds; ratios against raw sqlite3 (lower is faster)\n")
let header = ["workload"] + backends + backends.dropLast().map { "\($0) ×" }
print(header.map { $0.padding(toLength: 20, withPad: " ", startingAt: 0) }.joined())
for workload in ["insert", "fetch", "lookup", "range"] {
    let times = backends.map { median(results[workload]![$0]!) * 1000 }
    let raw = times.last!
    let cells =
        [workload] + times.map { String(format: "%.2f", $0) }
        + times.dropLast().map { String(format: "%.2f", $0 / raw) }
    print(cells.map { $0.padding(toLength: 20, withPad: " ", startingAt: 0) }.joined())
}

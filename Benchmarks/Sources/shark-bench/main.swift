// shark-bench: inserts 100,000 ten-column rows in one transaction and fetches them back
// into objects, through SharkORM on SQLite and through a hand-written sqlite3 loop, in one
// process. Build in release: `swift run -c release --package-path Benchmarks shark-bench`.
import CSQLiteRaw
import Foundation
import SharkORM
import SharkSQLite

let arguments = CommandLine.arguments
let rowCount = Int(arguments.dropFirst().first { Int($0) != nil } ?? "") ?? 100_000
let repetitions = 7

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
var results: [String: [Double]] = [:]

for run in 1...repetitions {
    print("run \(run)/\(repetitions)…")

    // SharkORM on SQLite.
    let sharkPath = temporaryPath()
    let store = try Store(.sqlite(path: sharkPath))
    _ = try store.schema(for: Row10.self)
    let objects = input.map { row -> Row10 in
        let object = Row10()
        object.a = row.a
        object.b = row.b
        object.c = row.c
        object.d = row.d
        object.e = row.e
        object.f = row.f
        object.g = row.g
        object.h = row.h
        object.i = row.i
        object.j = row.j
        return object
    }
    results["shark insert", default: []].append(try seconds { try store.commit(objects) })
    var fetched: [Row10] = []
    results["shark fetch", default: []].append(try seconds { fetched = try Row10.query(in: store).fetch() })
    precondition(fetched.count == rowCount && fetched.last?.e == input.last?.e)
    store.close()
    remove(sharkPath)

    // The hand-written sqlite3 loop.
    let rawPath = temporaryPath()
    let db = RawSQLite.open(rawPath)
    RawSQLite.createTable(db)
    results["raw insert", default: []].append(seconds { RawSQLite.insert(input, into: db) })
    var plain: [PlainRow10] = []
    results["raw fetch", default: []].append(seconds { plain = RawSQLite.fetchAll(from: db) })
    precondition(plain.count == rowCount && plain.last?.e == input.last?.e)
    sqlite3_close_v2(db)
    remove(rawPath)
}
let version = sqliteVersion
print("\n\(rowCount) rows × 10 columns, SQLite \(version), median of \(repetitions) runs (release build)\n")
print("workload  SharkORM (s)  raw sqlite3 (s)  ratio")
for workload in ["insert", "fetch"] {
    let shark = median(results["shark \(workload)"]!)
    let raw = median(results["raw \(workload)"]!)
    print(
        workload.padding(toLength: 8, withPad: " ", startingAt: 0),
        String(format: "%12.4f  %15.4f  %5.2fx", shark, raw, shark / raw))
}

import Foundation
import SharkORM

/// The workloads every backend runs, in this order, on one fresh database per repetition.
enum Workload: String, CaseIterable, Sendable {
    /// W1: insert every row in one transaction.
    case insert = "W1"
    /// W2: fetch every row back into objects.
    case fetch = "W2"
    /// W3: 100 indexed range queries on `a`, each of `rangeWidth` rows, into objects.
    case range = "W3"
    /// W4: change one column of every row, in one transaction.
    case update = "W4"
    /// 1,000 point lookups by key.
    case lookup = "L"
    /// 1,000 queries filtering on the indexed `a`, each with a fresh value: the cost of a
    /// query beyond its rows (rendering, preparing, binding).
    case query = "Q"
    /// The sum of a column over every row, 20 times.
    case aggregate = "A"
    /// J: 100 pages of members, each member with its team (a join, or a prefetch).
    case join = "J"
    /// R: remove every other row fetched by W2, by object, in one transaction.
    case remove = "R"

    var title: String {
        switch self {
        case .insert: "W1 insert all rows, one transaction"
        case .fetch: "W2 fetch all into objects"
        case .range: "W3 100 indexed ranges"
        case .update: "W4 update one column of every row"
        case .lookup: "1,000 point lookups by key"
        case .query: "Q 1,000 queries on an indexed column, a fresh value each"
        case .aggregate: "20 sums of a column over all rows"
        case .join: "J 100 pages of 100 members with their teams"
        case .remove: "R remove every other row, one transaction"
        }
    }
}

/// The ten-column model every workload inserts and fetches.
@Model
final class Row10 {
    var a: Int = 0
    var b: Int = 0
    var c: Double = 0
    var d: Double = 0
    var e: String = ""
    var f: String = ""
    var g: Bool = false
    var h: Int64 = 0
    var i: String?
    var j: Date = Date(timeIntervalSinceReferenceDate: 0)

    static let indexes: [Index<Row10>] = [.on(\.a)]

    convenience init(_ row: InputRow) {
        self.init()
        (a, b, c, d, e, f, g, h, i, j) = (row.a, row.b, row.c, row.d, row.e, row.f, row.g, row.h, row.i, row.j)
    }
}

/// The same values as a plain class, for the hand-written baselines.
final class PlainRow10 {
    var id: Int64 = 0
    var a = 0
    var b = 0
    var c = 0.0
    var d = 0.0
    var e = ""
    var f = ""
    var g = false
    var h: Int64 = 0
    var i: String?
    var j = Date(timeIntervalSinceReferenceDate: 0)
}

/// Deterministic input values, so every backend writes exactly the same rows. Row `n` (from
/// 0) gets key `n + 1` and `a == n`, so a range of `a` is a range of keys too.
struct InputRow {
    let a: Int, b: Int, c: Double, d: Double, e: String, f: String, g: Bool, h: Int64, i: String?, j: Date

    static func make(count: Int) -> [InputRow] {
        (0..<count).map(row)
    }

    /// Rows `start ..< start + count`, for filling a large store a chunk at a time.
    static func make(from start: Int, count: Int) -> [InputRow] {
        (start..<start + count).map(row)
    }

    private static func row(_ n: Int) -> InputRow {
        let note: String? = n % 5 == 0 ? nil : "note \(n)"
        let date = Date(timeIntervalSinceReferenceDate: Double(n) * 60)
        return InputRow(
            a: n, b: n % 97, c: Double(n) * 0.5, d: -Double(n) / 3, e: "name \(n)", f: "department \(n % 13)",
            g: n % 2 == 0, h: Int64(n) * 1_000_003, i: note, j: date)
    }

    /// The value W4 writes into column `b` of the row whose `a` is `a`: always a change.
    static func updatedB(a: Int) -> Int { a % 97 + 1000 }
}

/// What one repetition asks of every backend: the same rows, keys and ranges.
struct WorkloadInput: Sendable {
    let rows: [InputRow]
    let lookupKeys: [Int64]
    let rangeStarts: [Int]
    let rangeWidth: Int
    /// J: how many members and teams, and the first key of each page of `joinWidth` members.
    let joinMembers: Int
    let joinTeams = 100
    let joinWidth: Int
    let joinStarts: [Int64]

    init(rowCount: Int, lookups: Int = 1_000, ranges: Int = 100, rangeWidth: Int = 1_000) {
        rows = InputRow.make(count: rowCount)
        var generator = SeededGenerator(seed: 0x5EED)
        lookupKeys = (0..<lookups).map { _ in Int64.random(in: 1...Int64(max(1, rowCount)), using: &generator) }
        self.rangeWidth = min(rangeWidth, max(1, rowCount / 10))
        let width = self.rangeWidth
        rangeStarts = (0..<ranges).map { _ in Int.random(in: 0...max(0, rowCount - width), using: &generator) }
        joinMembers = max(1, min(rowCount, 10_000))
        joinWidth = min(100, joinMembers)
        let members = joinMembers
        let pageWidth = joinWidth
        joinStarts = (0..<100).map { _ in Int64.random(in: 1...Int64(members - pageWidth + 1), using: &generator) }
    }
}

/// SplitMix64: the same keys and ranges in every run, so runs compare.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

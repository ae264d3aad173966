import Foundation
import SharkORM

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

/// The same values as a plain class, for the hand-written baseline.
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

/// Deterministic input values, so every backend writes exactly the same rows.
struct InputRow {
    let a: Int, b: Int, c: Double, d: Double, e: String, f: String, g: Bool, h: Int64, i: String?, j: Date

    static func make(count: Int) -> [InputRow] {
        (0..<count).map(row)
    }

    private static func row(_ n: Int) -> InputRow {
        let note: String? = n % 5 == 0 ? nil : "note \(n)"
        let date = Date(timeIntervalSinceReferenceDate: Double(n) * 60)
        return InputRow(
            a: n, b: n % 97, c: Double(n) * 0.5, d: -Double(n) / 3, e: "name \(n)", f: "department \(n % 13)",
            g: n % 2 == 0, h: Int64(n) * 1_000_003, i: note, j: date)
    }
}

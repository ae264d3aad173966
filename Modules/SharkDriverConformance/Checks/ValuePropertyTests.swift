import Foundation
import PropertyBased
@_spi(SharkDriver) import SharkORM
import Testing

/// A property of every kind the value rules speak of.
@Model
final class Specimen {
    var int8: Int8 = 0
    var int64: Int64 = 0
    var uint64: UInt64 = 0
    var float: Float = 0
    var double: Double = 0
    var maybe: Double?
    var decimal: Decimal = 0
    var text: String = ""
    var bytes: Data = Data()
    var when: Date = Date(timeIntervalSinceReferenceDate: 0)

    init(_ values: SpecimenValues) { values.apply(to: self) }
}

/// One specimen's values, generated across each type's whole range, its edges most often.
struct SpecimenValues: Sendable, Equatable, CustomStringConvertible {
    var int8: Int8
    var int64: Int64
    var uint64: UInt64
    var float: Float
    var double: Double
    var maybe: Double?
    var decimal: Decimal
    var text: String
    var bytes: Data
    var when: Double

    func apply(to specimen: Specimen) {
        specimen.int8 = int8
        specimen.int64 = int64
        specimen.uint64 = uint64
        specimen.float = float
        specimen.double = double
        specimen.maybe = maybe
        specimen.decimal = decimal
        specimen.text = text
        specimen.bytes = bytes
        specimen.when = Date(timeIntervalSinceReferenceDate: when)
    }

    /// Equal to the bit: −0.0 is not 0.0, NaN is NaN, text is its scalars.
    static func == (a: SpecimenValues, b: SpecimenValues) -> Bool {
        func same(_ x: Double, _ y: Double) -> Bool { x.bitPattern == y.bitPattern || (x.isNaN && y.isNaN) }
        return a.int8 == b.int8 && a.int64 == b.int64 && a.uint64 == b.uint64
            && same(Double(a.float), Double(b.float)) && same(a.double, b.double)
            && (a.maybe == nil ? b.maybe == nil : b.maybe.map { same(a.maybe!, $0) } ?? false)
            && a.decimal == b.decimal && Array(a.text.unicodeScalars) == Array(b.text.unicodeScalars)
            && a.bytes == b.bytes && same(a.when, b.when)
    }

    var description: String {
        "(int8 \(int8), int64 \(int64), uint64 \(uint64), float \(float), double \(double), maybe \(maybe.map { "\($0)" } ?? "nil"), "
            + "decimal \(decimal), text \(text.unicodeScalars.count) scalars \(text.debugDescription.prefix(40)), "
            + "bytes \(bytes.count), when \(when))"
    }

    // MARK: Generation

    static let generator = Generator<SpecimenValues, Shrink.None<SpecimenValues>> { rng in random(&rng) }

    static func random(_ rng: inout any SeededRandomNumberGenerator) -> SpecimenValues {
        func edge<T>(_ edges: [T], or other: () -> T) -> T {
            Int.random(in: 0..<3, using: &rng) == 0 ? other() : edges.randomElement(using: &rng)!
        }
        func real(_ edges: [Double]) -> Double {
            edge(edges) {
                // Any finite double, by its bits.
                var bits = UInt64.random(in: 0...UInt64.max, using: &rng)
                while !Double(bitPattern: bits).isFinite { bits = UInt64.random(in: 0...UInt64.max, using: &rng) }
                return Double(bitPattern: bits)
            }
        }
        let doubleEdges: [Double] = [
            0, -0.0, .leastNonzeroMagnitude, -.leastNonzeroMagnitude, .leastNormalMagnitude, .greatestFiniteMagnitude,
            -.greatestFiniteMagnitude, .infinity, -.infinity, 0.1, 1, -1, 9_007_199_254_740_992, 9_007_199_254_740_994,
        ]
        let floatEdges: [Float] = [
            0, -0.0, .leastNonzeroMagnitude, -.leastNonzeroMagnitude, .greatestFiniteMagnitude, -.infinity, .infinity,
            0.1, 1.5,
        ]
        let int64Edges: [Int64] = [.min, .min + 1, -1, 0, 1, .max - 1, .max, 1 << 53, (1 << 53) + 1, -(1 << 53) - 1]
        let int64 = edge(int64Edges) {
            Int64.random(in: .min ... .max, using: &rng)
        }
        var values = SpecimenValues(
            int8: edge([Int8.min, .min + 1, -1, 0, 1, .max - 1, .max]) { Int8.random(in: .min ... .max, using: &rng) },
            int64: int64,
            uint64: edge([UInt64(0), 1, UInt64(Int64.max), UInt64(Int64.max) - 1]) {
                UInt64.random(in: 0...UInt64(Int64.max), using: &rng)
            },
            float: edge(floatEdges) { Float(bitPattern: UInt32.random(in: 0...0x7F7F_FFFF, using: &rng)) },
            double: Int.random(in: 0..<12, using: &rng) == 0 ? .nan : real(doubleEdges),
            maybe: Bool.random(using: &rng) ? nil : real(doubleEdges),
            decimal: decimal(&rng),
            text: text(&rng),
            bytes: bytes(&rng),
            when: real([0, -978_307_200, 1e9, -1e-9]))
        if Bool.random(using: &rng) { values.float.negate() }
        return values
    }

    static func decimal(_ rng: inout any SeededRandomNumberGenerator) -> Decimal {
        switch Int.random(in: 0..<5, using: &rng) {
        case 0:
            return [0, 1, -1, .greatestFiniteMagnitude, -.greatestFiniteMagnitude, Decimal(string: "1e-128")!]
                .randomElement(using: &rng)!
        default:
            // Up to 38 significant digits, an exponent from far below to far above.
            let count = Int.random(in: 1...38, using: &rng)
            var digits = String(Int.random(in: 1...9, using: &rng))
            for _ in 1..<count { digits += String(Int.random(in: 0...9, using: &rng)) }
            let exponent =
                Bool.random(using: &rng) ? Int.random(in: -6...6, using: &rng) : Int.random(in: -120...90, using: &rng)
            let value = Decimal(string: "\(Bool.random(using: &rng) ? "-" : "")\(digits)e\(exponent)")
            return value ?? 0
        }
    }

    static func text(_ rng: inout any SeededRandomNumberGenerator) -> String {
        // Characters from every plane, NUL among them, and ASCII letters whose case matters.
        let scalars: [Unicode.Scalar] = [
            "\0", "a", "B", "z", "%", "_", "é", "\u{301}", "€", "\u{FFFD}", "\u{1F988}", "\u{20000}", "\u{30000}",
            "\u{E0001}", "\u{F0000}", "\u{10FFFD}",
        ]
        let count =
            Int.random(in: 0..<12, using: &rng) == 0
            ? Int.random(in: 0...5_000, using: &rng) : Int.random(in: 0...12, using: &rng)
        var text = String.UnicodeScalarView()
        for _ in 0..<count { text.append(scalars.randomElement(using: &rng)!) }
        return String(text)
    }

    static func bytes(_ rng: inout any SeededRandomNumberGenerator) -> Data {
        let length: Int
        switch Int.random(in: 0..<40, using: &rng) {
        case 0: length = Int.random(in: 0...(1 << 20), using: &rng)
        case 1...6: length = Int.random(in: 1...16, using: &rng) * 4096 + Int.random(in: -1...1, using: &rng)
        default: length = Int.random(in: 0...1024, using: &rng)
        }
        return Data((0..<length).map { _ in UInt8.random(in: 0...255, using: &rng) })
    }
}

extension SpecimenValues {
    init(of specimen: Specimen) {
        int8 = specimen.int8
        int64 = specimen.int64
        uint64 = specimen.uint64
        float = specimen.float
        double = specimen.double
        maybe = specimen.maybe
        decimal = specimen.decimal
        text = specimen.text
        bytes = specimen.bytes
        when = specimen.when.timeIntervalSinceReferenceDate
    }

}

/// What a check of one iteration does besides the rows: the row whose values are the
/// pivots, a small integer and a small decimal for arithmetic.
struct Probe: Sendable, CustomStringConvertible {
    var pivotRow: Int
    var k: Int8
    var decimalFactor: Decimal

    static let generator = Generator<Probe, Shrink.None<Probe>> { rng in
        Probe(
            pivotRow: Int.random(in: 0..<8, using: &rng), k: [-100, -2, -1, 0, 1, 2, 100].randomElement(using: &rng)!,
            decimalFactor: [Decimal(2), Decimal(string: "-0.5")!, Decimal(string: "1e10")!, Decimal(string: "1e100")!]
                .randomElement(using: &rng)!)
    }

    var description: String { "pivot row \(pivotRow), k \(k), decimal factor \(decimalFactor)" }
}

/// The value rules of docs/values.md, checked as a property: random rows across each type's
/// whole range, committed, fetched, compared with every operator, ordered, computed on,
/// aggregated, updated and upserted on every driver, each result compared with an oracle
/// written from the rules (`ValueOracle`), not from the drivers' code.
///
/// A failure prints PropertyBased's seed and the shrunk rows; `SHARK_VALUES_SEED=<seed>`
/// replays it (PropertyBased then also reports that a fixed seed was used); `SHARK_VALUES_SOAK=1`
/// runs 20 times as many cases (about six minutes).
@Suite("Value rules as a property, on every driver")
struct ValuePropertyTests {
    static let count = ProcessInfo.processInfo.environment["SHARK_VALUES_SOAK"] == "1" ? 5_000 : 250

    /// `.fixedSeed(…)` from `SHARK_VALUES_SEED` (the base64 seed a failure prints), or nil.
    static var replay: FixedSeedTrait? {
        guard let text = ProcessInfo.processInfo.environment["SHARK_VALUES_SEED"],
            let data = Data(base64Encoded: text), data.count == 32
        else { return nil }
        let words = data.withUnsafeBytes { Array($0.bindMemory(to: UInt64.self)) }
        return .fixedSeed(words[0], words[1], words[2], words[3])
    }

    /// Random rows and probes against the rules, on one store of the driver.
    func valuesFollowTheRules(driver: ConformanceDriver) async throws {
        let store = try driver.makeStore()
        defer { store.close() }
        let check = {
            await propertyCheck(count: Self.count, input: SpecimenValues.generator.array(of: 1...8), Probe.generator) {
                rows, probe in
                try Specimen.query(in: store).removeAll()
                try ValueOracle(rows: rows, probe: probe, driver: driver, store: store).check()
            }
        }
        // The seed trait scopes the check as it would scope a test of its own: the conformance
        // test of a driver's target carries no trait per check.
        if let replay = Self.replay, let test = Test.current {
            await replay.provideScope(for: test, testCase: Test.Case.current) { await check() }
        } else {
            await check()
        }
    }
}

/// The rules, applied to the generated rows, against what one store answers.
struct ValueOracle {
    let rows: [SpecimenValues]
    let probe: Probe
    let driver: ConformanceDriver
    let store: Store

    func check() throws {
        let objects = rows.map(Specimen.init)
        try store.commit(objects)
        let ids = objects.map(\.id)
        // Every value comes back as it went in.
        let fetched = try Specimen.query(in: store).orderBy(\.id).fetch().map(SpecimenValues.init(of:))
        #expect(fetched == rows, "\(driver): round trip")
        let pivot = rows[probe.pivotRow % rows.count]
        try compare(\.int8, pivot.int8, ids, "int8", order: { $0 < $1 })
        try compare(\.int64, pivot.int64, ids, "int64", order: { $0 < $1 })
        try compare(\.uint64, pivot.uint64, ids, "uint64", order: { $0 < $1 })
        try compare(\.float, pivot.float, ids, "float", order: { $0 < $1 })
        try compare(\.double, pivot.double, ids, "double", order: { $0 < $1 })
        try compare(\.decimal, pivot.decimal, ids, "decimal", order: { $0 < $1 })
        try compare(
            \.text, pivot.text, ids, "text", order: { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) })
        try compare(\.bytes, pivot.bytes, ids, "bytes", order: { Array($0).lexicographicallyPrecedes(Array($1)) })
        try compare(\.when, Date(timeIntervalSinceReferenceDate: pivot.when), ids, "when", order: { $0 < $1 })
        try arithmetic(ids, pivot)
        try aggregates()
        try updates(ids)
        try upsert(objects)
    }

    // MARK: Comparisons and ordering

    /// Every comparison of `keyPath` with `pivot`, typed and as a string predicate, and the
    /// ordering by it, against the rule: NULL (a NaN double) matches nothing and sorts first;
    /// `== .nan` is IS NULL; everything else by `order`.
    func compare<V: ColumnConvertible & Sendable>(
        _ keyPath: KeyPath<Specimen, V> & Sendable, _ pivot: V, _ ids: [Int64], _ name: String,
        order: (V, V) -> Bool
    ) throws {
        let values = try Specimen.query(in: store).orderBy(\.id).fetch().map { $0[keyPath: keyPath] }
        func isNull(_ value: V) -> Bool { (value as? Double)?.isNaN == true }
        let pivotIsNull = isNull(pivot)
        for op in ComparisonOperator.allSmall {
            var expected: Set<Int64> = []
            for (index, value) in values.enumerated() {
                let holds: Bool
                if pivotIsNull {
                    holds = op == .equal ? isNull(value) : (op == .notEqual ? !isNull(value) : false)
                } else if isNull(value) {
                    holds = false
                } else {
                    let less = order(value, pivot)
                    let greater = order(pivot, value)
                    switch op {
                    case .equal: holds = !less && !greater
                    case .notEqual: holds = less || greater
                    case .less: holds = less
                    case .lessOrEqual: holds = !greater
                    case .greater: holds = greater
                    case .greaterOrEqual: holds = !less
                    }
                }
                if holds { expected.insert(ids[index]) }
            }
            let typed = Set(try Specimen.query(in: store).where(QueryPredicate.comparing(keyPath, op, pivot)).ids())
            #expect(typed == expected, "\(driver): \(name) \(op.rawValue) \(pivot)")
            let text = Set(try Specimen.query(in: store).where("\(name) \(op.rawValue) ?", pivot).ids())
            #expect(text == expected, "\(driver): string predicate \(name) \(op.rawValue) \(pivot)")
        }
        // Ordering: NULL first, then the rule's order, ties by key.
        let expectedOrder = zip(values, ids).sorted { a, b in
            switch (isNull(a.0), isNull(b.0)) {
            case (true, true): return a.1 < b.1
            case (true, false): return true
            case (false, true): return false
            default:
                if order(a.0, b.0) { return true }
                if order(b.0, a.0) { return false }
                return a.1 < b.1
            }
        }.map(\.1)
        let ordered = try Specimen.query(in: store).orderBy(keyPath).fetch().map(\.id)
        #expect(ordered == expectedOrder, "\(driver): order by \(name)")
    }

    // MARK: Arithmetic

    func arithmetic(_ ids: [Int64], _ pivot: SpecimenValues) throws {
        let k = Int64(probe.k)
        // Integers: exact, or an error when any row's result leaves 64 bits.
        for (op, symbol) in [(ArithmeticOperator.add, "+"), (.multiply, "*")] {
            var overflow = false
            var expected: Set<Int64> = []
            for (row, id) in zip(rows, ids) {
                let (result, overflowed) =
                    op == .add ? row.int64.addingReportingOverflow(k) : row.int64.multipliedReportingOverflow(by: k)
                overflow = overflow || overflowed
                if !overflowed && result > pivot.int64 { expected.insert(id) }
            }
            let outcome = Result {
                Set(try Specimen.query(in: store).where("int64 \(symbol) ? > ?", k, pivot.int64).ids())
            }
            switch outcome {
            case .success(let found):
                #expect(!overflow && found == expected, "\(driver): int64 \(symbol) \(k) > \(pivot.int64)")
            case .failure(let error):
                #expect(overflow, "\(driver): int64 \(symbol) \(k) failed: \(error)")
            }
        }
        // Decimals: Foundation's product, or an error when any row's leaves Decimal's range.
        var overflow = false
        var expected: Set<Int64> = []
        for (row, id) in zip(rows, ids) {
            // The exact product rounded once (docs/values.md), computed from the digits.
            if let result = ValueOracle.exactDecimalProduct(row.decimal, probe.decimalFactor) {
                if result > pivot.decimal { expected.insert(id) }
            } else {
                overflow = true
            }
        }
        let outcome = Result {
            Set(try Specimen.query(in: store).where((\.decimal * probe.decimalFactor) > pivot.decimal).ids())
        }
        switch outcome {
        case .success(let found): #expect(!overflow && found == expected, "\(driver): decimal × \(probe.decimalFactor)")
        case .failure(let error): #expect(overflow, "\(driver): decimal × \(probe.decimalFactor) failed: \(error)")
        }
        // Reals: IEEE; a NaN row (NULL) or a NaN result matches nothing.
        let factor = Double(probe.k)
        let real = Set(
            rows.indices.filter {
                (rows[$0].double * factor).isNaN == false && rows[$0].double * factor > pivot.maybe ?? 0
            }.map { ids[$0] })
        let found = Set(try Specimen.query(in: store).where(\.double * factor > (pivot.maybe ?? 0)).ids())
        #expect(found == real, "\(driver): double × \(factor)")
    }

    // MARK: Aggregates

    func aggregates() throws {
        let query = try Specimen.query(in: store)
        // Integers: the exact sum, or an error beyond 64 bits.
        let exact = rows.reduce(Int128(0)) { $0 + Int128($1.int64) }
        if let sum = Int64(exactly: exact) {
            #expect(try query.sum(\.int64) == sum, "\(driver): sum of int64")
        } else {
            #expect(throws: SharkError.self, "\(driver): sum of int64 beyond 64 bits") { try query.sum(\.int64) }
        }
        #expect(try query.average(\.int64) == ValueOracle.quotient(exact, rows.count), "\(driver): average of int64")
        #expect(try query.min(\.int64) == rows.map(\.int64).min(), "\(driver): min of int64")
        #expect(
            try query.max(\.text).map { Array($0.unicodeScalars) }
                == rows.map(\.text).max { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }.map {
                    Array($0.unicodeScalars)
                }, "\(driver): max of text")
        // Doubles: the exact sum rounded once (NaN rows are NULL, skipped).
        let reals = rows.map(\.double).filter { !$0.isNaN }
        let realSum = ValueOracle.correctlyRoundedSum(reals)
        let sum = try query.sum(\.double)
        #expect(
            sum?.bitPattern == realSum?.bitPattern,
            "\(driver): sum of doubles \(reals) is \(String(describing: sum)), the rule says \(String(describing: realSum))"
        )
        // Decimals: the exact sum, rounded once.
        let decimalSum = ValueOracle.exactDecimalSum(rows.map(\.decimal))
        let outcome = Result { try query.sum(\.decimal) }
        switch (outcome, decimalSum) {
        case (.success(let found?), .some(let expected)): #expect(found == expected, "\(driver): sum of decimals")
        case (.failure, .none): break
        default:
            Issue.record(
                "\(driver): sum of decimals \(rows.map(\.decimal)) is \(outcome), the rule says \(String(describing: decimalSum))"
            )
        }
        #expect(try query.min(\.decimal) == rows.map(\.decimal).min(), "\(driver): min of decimals")
    }

    // MARK: Writes

    func updates(_ ids: [Int64]) throws {
        let k = probe.k
        let overflow = rows.contains {
            Int16($0.int8) + Int16(k) > Int16(Int8.max) || Int16($0.int8) + Int16(k) < Int16(Int8.min)
        }
        let outcome = Result { try Specimen.query(in: store).updateAll(.set(\.int8, to: \.int8 + k)) }
        let after = try Specimen.query(in: store).orderBy(\.id).fetch().map(\.int8)
        switch outcome {
        case .success:
            #expect(!overflow, "\(driver): int8 + \(k) stored a value Int8 cannot hold")
            #expect(after == rows.map { $0.int8 + k }, "\(driver): int8 + \(k)")
            try Specimen.query(in: store).updateAll(.set(\.int8, to: \.int8 - k))
        case .failure:
            #expect(overflow, "\(driver): int8 + \(k) refused without an overflow")
            #expect(after == rows.map(\.int8), "\(driver): a refused updateAll changed rows")
        }
    }

    func upsert(_ objects: [Specimen]) throws {
        let target = objects[probe.pivotRow % objects.count]
        var values = rows[(probe.pivotRow + 1) % rows.count]
        values.text += "•"
        let replacement = Specimen(values)
        replacement._sharkAssignKey(target.id)
        try store.upsert(replacement)
        let back = try #require(try store.find(Specimen.self, id: target.id))
        #expect(SpecimenValues(of: back) == values, "\(driver): upsert over a stored key")
    }

    // MARK: The rules, computed here

    /// `numerator / count` rounded to the nearest Double (ties to even), exactly.
    static func quotient(_ numerator: Int128, _ count: Int) -> Double {
        // The exact quotient's binary digits: scale so the integer part has 64+ bits to spare.
        let negative = numerator < 0
        var magnitude = UInt128(numerator.magnitude)
        var scale = 0
        while magnitude.leadingZeroBitCount > 2 && scale < 1_100 {
            magnitude <<= 1
            scale += 1
        }
        let (quotient, remainder) = magnitude.quotientAndRemainder(dividingBy: UInt128(count))
        // Round the 128-bit quotient to 53 bits, then scale back.
        let width = 128 - quotient.leadingZeroBitCount
        guard width > 0 else { return 0 }
        let drop = max(0, width - 53)
        var top = quotient >> UInt128(drop)
        if drop > 0 {
            let half = UInt128(1) << UInt128(drop - 1)
            let rest = quotient & ((UInt128(1) << UInt128(drop)) - 1)
            if rest > half || (rest == half && (remainder != 0 || top & 1 == 1)) || (rest == half && remainder != 0) {
                top += 1
            }
        }
        let value = Double(sign: negative ? .minus : .plus, exponent: drop - scale, significand: Double(top))
        return value == 0 ? 0 : value
    }

    /// The exact sum of `values` rounded once to a Double (ties to even): each value added
    /// into signed 32-bit limbs of a fixed-point number in units of 2^-1074, carries settled at
    /// the end. An oracle independent of the library's own sum.
    static func correctlyRoundedSum(_ values: [Double]) -> Double? {
        guard !values.isEmpty else { return nil }
        let infinities = values.filter(\.isInfinite)
        if !infinities.isEmpty {
            // ∞ − ∞ is not a number: NULL, as every real result that is not one.
            return Set(infinities).count == 1 ? infinities[0] : nil
        }
        var limbs = [Int64](repeating: 0, count: 72)  // 72 × 32 bits > 2098 bits + carries
        for value in values where value != 0 {
            let exponent = Int(value.exponentBitPattern)
            let significand = exponent == 0 ? value.significandBitPattern : value.significandBitPattern | (1 << 52)
            let shift = exponent == 0 ? 0 : exponent - 1
            let sign: Int64 = value < 0 ? -1 : 1
            // significand << shift, split over 32-bit limbs.
            let wide = (UInt128(significand) << UInt128(shift % 32))
            var limb = shift / 32
            var rest = wide
            while rest != 0 {
                limbs[limb] += sign * Int64(UInt32(truncatingIfNeeded: rest))
                rest >>= 32
                limb += 1
            }
        }
        // Settle carries: every limb in 0..<2^32 but the top, which keeps the sign.
        for index in 0..<(limbs.count - 1) {
            let carry = limbs[index] >> 32  // floor division by 2^32
            limbs[index] -= carry << 32
            limbs[index + 1] += carry
        }
        var negative = false
        if limbs[limbs.count - 1] < 0 {
            negative = true
            // Negate the two's-complement-like number: magnitude = -value.
            var borrow: Int64 = 0
            for index in 0..<limbs.count {
                var digit = -limbs[index] - borrow
                borrow = 0
                if digit < 0 && index < limbs.count - 1 {
                    digit += 1 << 32
                    borrow = 1
                }
                limbs[index] = digit
            }
        }
        // The magnitude's bits: find the top, keep 53 (or down to 2^-1074), round half to even.
        guard let top = limbs.lastIndex(where: { $0 != 0 }) else { return 0 }
        let width = top * 32 + (64 - UInt64(limbs[top]).leadingZeroBitCount)
        func bit(_ index: Int) -> Bool { index >= 0 && (limbs[index / 32] >> Int64(index % 32)) & 1 == 1 }
        let lastBit = max(width - 53, 0)  // in units of 2^-1074: never below the smallest subnormal
        var significand: UInt64 = 0
        for index in stride(from: width - 1, through: lastBit, by: -1) {
            significand = significand << 1 | (bit(index) ? 1 : 0)
        }
        if lastBit > 0, bit(lastBit - 1) {
            let below = (0..<(lastBit - 1)).contains { bit($0) }
            if below || significand & 1 == 1 { significand += 1 }
        }
        let result = Double(sign: negative ? .minus : .plus, exponent: lastBit - 1074, significand: Double(significand))
        return result == 0 ? 0 : result
    }

    /// The exact sum of `values` by schoolbook addition of their digits, rounded once to a
    /// Decimal (ties to even); nil beyond Decimal's range.
    static func exactDecimalSum(_ values: [Decimal]) -> Decimal? {
        // Each value as an integer of digits times 10^exponent, all at the smallest exponent.
        var terms: [(negative: Bool, digits: [Int], exponent: Int)] = values.map { value in
            let text = "\(value.magnitude)"
            let parts = text.split(separator: ".", omittingEmptySubsequences: false)
            let fraction = parts.count > 1 ? String(parts[1]) : ""
            let digits = (String(parts[0]) + fraction).compactMap { $0.wholeNumberValue }
            return (value < 0, digits, -fraction.count)
        }
        let low = terms.map(\.exponent).min() ?? 0
        for index in terms.indices {
            terms[index].digits += Array(repeating: 0, count: terms[index].exponent - low)
        }
        func less(_ a: [Int], _ b: [Int]) -> Bool {
            let x = Array(a.drop { $0 == 0 })
            let y = Array(b.drop { $0 == 0 })
            return x.count != y.count ? x.count < y.count : x.lexicographicallyPrecedes(y)
        }
        func subtract(_ a: [Int], _ b: [Int]) -> [Int] {  // a ≥ b
            var result: [Int] = []
            var borrow = 0
            var (i, j) = (a.count - 1, b.count - 1)
            while i >= 0 {
                var difference = a[i] - (j >= 0 ? b[j] : 0) - borrow
                borrow = difference < 0 ? 1 : 0
                if difference < 0 { difference += 10 }
                result.append(difference)
                i -= 1
                j -= 1
            }
            return Array(result.reversed())
        }
        var positive: [Int] = [0]
        var negative: [Int] = [0]
        for term in terms {
            if term.negative { negative = add(negative, term.digits) } else { positive = add(positive, term.digits) }
        }
        let isNegative = less(positive, negative)
        let digits = isNegative ? subtract(negative, positive) : subtract(positive, negative)
        return rounded(negative: isNegative, digits: digits, exponent: low)
    }

    /// `value` as its digits and exponent.
    static func digits(of value: Decimal) -> (negative: Bool, digits: [Int], exponent: Int) {
        let text = "\(value.magnitude)"
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        let fraction = parts.count > 1 ? String(parts[1]) : ""
        return (value < 0, (String(parts[0]) + fraction).compactMap { $0.wholeNumberValue }, -fraction.count)
    }

    /// The exact product, by schoolbook multiplication of the digits, rounded once.
    static func exactDecimalProduct(_ a: Decimal, _ b: Decimal) -> Decimal? {
        let (x, y) = (digits(of: a), digits(of: b))
        var product = [Int](repeating: 0, count: x.digits.count + y.digits.count)
        for (i, p) in x.digits.reversed().enumerated() {
            for (j, q) in y.digits.reversed().enumerated() { product[i + j] += p * q }
        }
        var carry = 0
        for index in product.indices {
            let total = product[index] + carry
            product[index] = total % 10
            carry = total / 10
        }
        return rounded(
            negative: x.negative != y.negative, digits: product.reversed(), exponent: x.exponent + y.exponent)
    }

    /// The sum of two digit strings (most significant first), as written by hand.
    static func add(_ a: [Int], _ b: [Int]) -> [Int] {
        var result: [Int] = []
        var carry = 0
        var (i, j) = (a.count - 1, b.count - 1)
        while i >= 0 || j >= 0 || carry > 0 {
            let sum = (i >= 0 ? a[i] : 0) + (j >= 0 ? b[j] : 0) + carry
            result.append(sum % 10)
            carry = sum / 10
            i -= 1
            j -= 1
        }
        return Array(result.reversed())
    }

    /// `digits × 10^exponent` rounded half to even to the digits a Decimal's mantissa holds
    /// (39 when below 2^128, else 38), and no exponent below -128; nil beyond the range.
    static func rounded(negative isNegative: Bool, digits all: [Int], exponent low: Int) -> Decimal? {
        var digits = Array(all.drop { $0 == 0 })
        var exponent = low
        guard !digits.isEmpty else { return 0 }
        while digits.last == 0 {
            digits.removeLast()
            exponent += 1
        }
        let largest = "340282366920938463463374607431768211455".compactMap(\.wholeNumberValue)
        func fits(_ digits: [Int]) -> Bool {
            digits.count < 39 || (digits.count == 39 && !largest.lexicographicallyPrecedes(digits))
        }
        var keep = min(digits.count, 39)
        keep = min(keep, digits.count - max(0, -128 - exponent))
        while true {
            var kept = Array(digits.prefix(max(0, keep)))
            if keep < digits.count {
                let next = keep >= 0 ? digits[keep] : 0
                let rest = keep + 1 < digits.count ? digits[max(0, keep + 1)...].contains { $0 != 0 } : false
                let odd = (kept.last ?? 0) % 2 == 1
                if next > 5 || (next == 5 && (rest || odd)) { kept = add(kept.isEmpty ? [0] : kept, [1]) }
            }
            var shifted = exponent + digits.count - keep
            while kept.count > 1 && kept.last == 0 {
                kept.removeLast()
                shifted += 1
            }
            if fits(kept) {
                if kept.isEmpty || kept.allSatisfy({ $0 == 0 }) { return 0 }
                // An exponent above 127 moves into the mantissa while it fits: up to 39
                // digits when they stay below 2^128.
                while shifted > 127 && fits(kept + [0]) {
                    kept.append(0)
                    shifted -= 1
                }
                guard shifted <= 127 else { return nil }
                return Decimal(string: (isNegative ? "-" : "") + kept.map(String.init).joined() + "e\(shifted)")
            }
            keep -= 1
        }
    }
}

extension ComparisonOperator {
    static let allSmall: [ComparisonOperator] = [.equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual]
}

extension QueryPredicate {
    /// `keyPath op value`, as the typed operators build it.
    static func comparing<V: ColumnConvertible & Sendable>(
        _ keyPath: KeyPath<Root, V> & Sendable, _ op: ComparisonOperator, _ value: V
    ) -> QueryPredicate {
        switch op {
        case .equal: return keyPath == value
        case .notEqual: return keyPath != value
        case .less: return keyPath < value
        case .lessOrEqual: return keyPath <= value
        case .greater: return keyPath > value
        case .greaterOrEqual: return keyPath >= value
        }
    }
}

import Foundation
@_spi(SharkDriver) import SharkORM
import SharkTestSupport
import Testing

@testable import SharkDriverConformance

/// A model with a little of everything the planner and evaluator care about.
@Model
final class Sample {
    var name: String = ""
    var age: Int = 0
    var score: Double?
    var flag: Bool = false
    var code: Int = 0
    var note: String?
    /// Another sample: paths (`parent.age`), subqueries and prefetching on random data; its
    /// removal nullifies.
    var parent: Sample?

    static let indexes: [Index<Sample>] = [.on(\.age), .on(\.name), .unique(\.code)]
}

/// Runs one random sequence of commits, removes, rollbacks and queries against SQLite and
/// the memory engine side by side and requires identical results at every step.
///
/// Replay a failure with `SHARK_DIFFERENTIAL_SEED=<seed> swift test --filter Differential`.
@Suite("Differential: memory engine against SQLite")
struct DifferentialTests {
    static var seeds: [UInt64] {
        if let text = ProcessInfo.processInfo.environment["SHARK_DIFFERENTIAL_SEED"], let seed = UInt64(text) {
            return [seed]
        }
        return (0..<4).map { _ in UInt64.random(in: 1...UInt64(UInt32.max)) }
    }

    @Test("random operations give identical results", arguments: seeds)
    func randomOperations(seed: UInt64) throws {
        var run = try DifferentialRun(seed: seed)
        defer { run.close() }
        for step in 0..<400 {
            let mismatch = try run.step()
            if let mismatch {
                Issue.record("seed \(seed), step \(step): \(mismatch)")
                return
            }
        }
        #expect(try run.compareAll() == nil, "seed \(seed): final contents differ")
    }
}

/// The two stores, the pairs of objects mirrored between them, and the random source.
struct DifferentialRun {
    var random: SeededGenerator
    let sqlite: Store
    let memory: Store
    /// Stored objects: the SQLite one and its memory twin.
    var pairs: [(Sample, Sample)] = []

    init(seed: UInt64) throws {
        random = SeededGenerator(state: seed)
        sqlite = try TestDriver.sqlite.makeStore()
        memory = try TestDriver.memory.makeStore()
    }

    func close() {
        sqlite.close()
        memory.close()
    }

    /// One random operation; a description of the difference if the stores disagree.
    mutating func step() throws -> String? {
        switch Int.random(in: 0..<10, using: &random) {
        case 0...2: return try insert()
        case 3...4: return try update()
        case 5: return try remove()
        case 6: return try transaction()
        default: return try query()
        }
    }

    // MARK: Writes

    private mutating func randomValues() -> (String, Int, Double?, Bool, Int, String?) {
        let names = ["", "a", "A", "ab", "b%", "é", "e\u{301}", "Zed", "zed", "x_y", "100", "9"]
        let scores: [Double?] = [nil, 0, -0.0, 1.5, -2, 1e300, .infinity, 42]
        return (
            names.randomElement(using: &random)!, Int.random(in: -3...12, using: &random),
            scores.randomElement(using: &random)!, Bool.random(using: &random), Int.random(in: 0...60, using: &random),
            Bool.random(using: &random) ? nil : names.randomElement(using: &random)
        )
    }

    private func make(_ values: (String, Int, Double?, Bool, Int, String?)) -> Sample {
        let sample = Sample()
        (sample.name, sample.age, sample.score, sample.flag, sample.code, sample.note) = values
        return sample
    }

    /// Applies the same write to both stores; the outcomes (success or error) must agree.
    private func both(_ a: () throws -> Void, _ b: () throws -> Void) -> String? {
        let first = Result { try a() }
        let second = Result { try b() }
        switch (first, second) {
        case (.success, .success): return nil
        case (.failure(let x), .failure(let y)):
            return String(describing: x) == String(describing: y) ? nil : "errors differ: \(x) / \(y)"
        default: return "outcomes differ: \(first) / \(second)"
        }
    }

    private mutating func insert() throws -> String? {
        let values = randomValues()
        let (a, b) = (make(values), make(values))
        if Bool.random(using: &random), let (parentA, parentB) = pairs.randomElement(using: &random) {
            (a.parent, b.parent) = (parentA, parentB)
        }
        if let mismatch = both({ try sqlite.commit(a) }, { try memory.commit(b) }) { return mismatch }
        if a.isPersisted != b.isPersisted || a.id != b.id { return "insert state differs: \(a.id) / \(b.id)" }
        if a.isPersisted { pairs.append((a, b)) }
        return nil
    }

    private mutating func update() throws -> String? {
        guard let (a, b) = pairs.randomElement(using: &random) else { return nil }
        let values = randomValues()
        switch Int.random(in: 0..<4, using: &random) {
        case 0: (a.age, b.age) = (values.1, values.1)
        case 1: (a.code, b.code) = (values.4, values.4)
        case 2: (a.score, b.score) = (values.2, values.2)
        default:
            (a.name, b.name) = (values.0, values.0)
            (a.note, b.note) = (values.5, values.5)
        }
        if let mismatch = both({ try sqlite.commit(a) }, { try memory.commit(b) }) { return mismatch }
        // A refused update leaves unsaved changes; reload both so they stay twins.
        try sqlite.refresh(a)
        try memory.refresh(b)
        return nil
    }

    private mutating func remove() throws -> String? {
        guard !pairs.isEmpty else { return nil }
        let index = Int.random(in: 0..<pairs.count, using: &random)
        let (a, b) = pairs.remove(at: index)
        return both({ try sqlite.remove(a) }, { try memory.remove(b) })
    }

    /// A few writes in a transaction (with a nested savepoint), committed or rolled back.
    private mutating func transaction() throws -> String? {
        let inserts = (0..<Int.random(in: 1...3, using: &random)).map { _ in randomValues() }
        let nested = randomValues()
        let rollOuter = Bool.random(using: &random)
        let rollInner = Bool.random(using: &random)
        struct Abort: Error {}
        func run(_ store: Store) -> [Sample] {
            let objects = inserts.map(make)
            let inner = make(nested)
            _ = try? store.transaction {
                for object in objects { try? store.commit(object) }
                try? store.transaction {
                    try store.commit(inner)
                    if rollInner { throw Abort() }
                }
                if rollOuter { throw Abort() }
            }
            return (objects + [inner]).filter(\.isPersisted)
        }
        let a = run(sqlite)
        let b = run(memory)
        guard a.map(\.id) == b.map(\.id) else { return "transaction kept \(a.map(\.id)) / \(b.map(\.id))" }
        pairs += zip(a, b).map { ($0, $1) }
        return try compareAll()
    }

    // MARK: Queries

    private mutating func randomPredicate(depth: Int = 0) -> QueryPredicate<Sample> {
        let values = randomValues()
        switch Int.random(in: 0..<(depth > 1 ? 10 : 13), using: &random) {
        case 0: return \.age == values.1
        case 1: return \.age < values.1
        case 2: return \.age >= values.1
        case 3: return \.name == values.0
        case 4: return \.name > values.0
        case 5: return \.score < (values.2 ?? 0)
        case 6: return \.note == values.5
        case 7: return .like(\.name, ["a%", "%d", "_", "%", "x\\_y", "E%"].randomElement(using: &random)!)
        case 8:
            return .isIn(
                \.age, (0..<Int.random(in: 0...3, using: &random)).map { _ in Int.random(in: -2...12, using: &random) })
        case 9: return .between(\.code, values.4, values.4 + 20)
        case 10: return randomPredicate(depth: depth + 1) && randomPredicate(depth: depth + 1)
        case 11: return randomPredicate(depth: depth + 1) || randomPredicate(depth: depth + 1)
        default: return !randomPredicate(depth: depth + 1)
        }
    }

    private mutating func query() throws -> String? {
        var a = try Sample.query(in: sqlite)
        var b = try Sample.query(in: memory)
        var text = RandomPredicateText(random: SeededGenerator(state: random.next()))
        switch Int.random(in: 0..<5, using: &random) {
        case 0, 1:
            let predicate = randomPredicate()
            a = a.where(predicate)
            b = b.where(predicate)
        case 3:
            // A subquery: samples whose parent matches a random predicate.
            let inner = randomPredicate()
            a = a.where(.isIn(\.parent, try Sample.query(in: sqlite).where(inner)))
            b = b.where(.isIn(\.parent, try Sample.query(in: memory).where(inner)))
        case 2:
            // A string predicate, parsed into the same AST: both engines must agree on it.
            let (predicate, arguments) = text.predicate()
            a = a.where(predicate, arguments: arguments)
            b = b.where(predicate, arguments: arguments)
            if let problem = a.problem { return "\(predicate) does not parse: \(problem)" }
        default: break
        }
        for _ in 0..<Int.random(in: 0...2, using: &random) {
            switch Int.random(in: 0..<7, using: &random) {
            case 0: (a, b) = (a.orderBy(\.age), b.orderBy(\.age))
            case 1: (a, b) = (a.orderByDescending(\.name), b.orderByDescending(\.name))
            case 2: (a, b) = (a.orderBy(\.score), b.orderBy(\.score))
            case 3: (a, b) = (a.orderByDescending(\.note), b.orderByDescending(\.note))
            case 4: (a, b) = (a.orderBy(\.name), b.orderBy(\.name))
            case 5: (a, b) = (a.orderBy(\.flag), b.orderBy(\.flag))
            default:
                let ordering = text.ordering()
                (a, b) = (a.orderBy(ordering), b.orderBy(ordering))
            }
        }
        if Bool.random(using: &random) {
            let limit = Int.random(in: 0...8, using: &random)
            (a, b) = (a.limit(limit), b.limit(limit))
        }
        if Bool.random(using: &random) {
            let offset = Int.random(in: 0...8, using: &random)
            (a, b) = (a.offset(offset), b.offset(offset))
        }
        if Bool.random(using: &random) {
            // Prefetched parents must be the same rows, loaded.
            (a, b) = (a.including(\.parent), b.including(\.parent))
            let parentsA = Self.outcome {
                try a.fetch().map { "\($0.id)→\($0.parent.map(Self.describe) ?? "nil")" }.sorted()
            }
            let parentsB = Self.outcome {
                try b.fetch().map { "\($0.id)→\($0.parent.map(Self.describe) ?? "nil")" }.sorted()
            }
            if !Self.sameOutcome(parentsA, parentsB) {
                return "including parent \(a.description): \(parentsA) / \(parentsB)"
            }
        }
        // A query may fail (a division by zero in a random ordering): then both must, alike.
        let fetchedA = Self.outcome { try a.fetch().map(Self.describe) }
        let fetchedB = Self.outcome { try b.fetch().map(Self.describe) }
        guard case .success(var left) = fetchedA, case .success(var right) = fetchedB else {
            return Self.sameOutcome(fetchedA, fetchedB) ? nil : "query \(a.description): \(fetchedA) / \(fetchedB)"
        }
        // Without an ordering or a window, rows may come back in any order: compare as
        // multisets.
        if !a.description.requiresOrder { (left, right) = (left.sorted(), right.sorted()) }
        if left != right { return "query \(a.description): \(left) / \(right)" }
        let (countA, countB) = (Self.outcome { try a.count() }, Self.outcome { try b.count() })
        if countA != countB { return "count \(a.description): \(countA) / \(countB)" }
        let function = [AggregateFunction.sum, .average, .minimum, .maximum].randomElement(using: &random)!
        // Of a column, or of an expression (the first term of a random ordering).
        let column: QueryExpression =
            Bool.random(using: &random)
            ? .column(["name", "age", "score", "flag", "code", "note"].randomElement(using: &random)!)
            : try RandomPredicateText.parser.ordering(text.ordering())[0].expression
        // The sum of a text column is an error (text is no number): on both engines alike.
        let aggregateA = Self.outcome { try a.aggregate(function, of: column) }
        let aggregateB = Self.outcome { try b.aggregate(function, of: column) }
        if !Self.sameOutcome(aggregateA, aggregateB) {
            return "\(function.rawValue)(\(column)) of \(a.description): \(aggregateA) / \(aggregateB)"
        }
        let (agesA, agesB) = (Self.outcome { try a.distinct(\.age) }, Self.outcome { try b.distinct(\.age) })
        if agesA != agesB { return "distinct ages of \(a.description): \(agesA) / \(agesB)" }
        let (notesA, notesB) = (Self.outcome { try a.distinct(\.note) }, Self.outcome { try b.distinct(\.note) })
        return notesA == notesB ? nil : "distinct notes of \(a.description): \(notesA) / \(notesB)"
    }

    /// What a call gave: its result, or the kind of error it threw (`invalidValue`…), which
    /// both engines must agree on (not the message, which can name another row).
    static func outcome<T>(_ body: () throws -> T) -> Result<T, OutcomeError> {
        do {
            return .success(try body())
        } catch let error as SharkError {
            return .failure(OutcomeError(kind: Mirror(reflecting: error).children.first?.label ?? "\(error)"))
        } catch {
            return .failure(OutcomeError(kind: "\(error)"))
        }
    }

    struct OutcomeError: Error, Equatable {
        var kind: String
    }

    /// The same result, or the same kind of error. Sums and averages are exact on every
    /// engine, so reals must be equal to the bit, whatever order the engines add in.
    static func sameOutcome<T: Equatable>(_ a: Result<T, OutcomeError>, _ b: Result<T, OutcomeError>) -> Bool {
        // `min` and `max` of values that tie (the integer -2, the real -2.0) may give either:
        // the same number.
        if case .success(let x as Value) = a, case .success(let y as Value) = b {
            switch (x, y) {
            case (.integer(let i), .real(let r)), (.real(let r), .integer(let i)): return Double(i) == r
            default: break
            }
        }
        return a == b
    }

    /// Every stored row of both stores, compared.
    func compareAll() throws -> String? {
        let left = try Sample.query(in: sqlite).orderBy(\.id).fetch().map(Self.describe)
        let right = try Sample.query(in: memory).orderBy(\.id).fetch().map(Self.describe)
        return left == right ? nil : "contents differ: \(left) / \(right)"
    }

    static func describe(_ sample: Sample) -> String {
        let score = sample.score.map { "\($0.sign == .minus ? "-" : "+")\(abs($0))" } ?? "nil"
        // The stored parent key, without loading the parent.
        let parent = (sample._sharkRelated(column: parentColumn) as? Sample).map { "\($0.id)" } ?? "nil"
        return
            "\(sample.id):\(sample.name)|\(sample.age)|\(score)|\(sample.flag)|\(sample.code)|\(sample.note ?? "nil")|^\(parent)"
    }

    static let parentColumn = Sample._sharkColumnIndex(for: \Sample.parent)!
}

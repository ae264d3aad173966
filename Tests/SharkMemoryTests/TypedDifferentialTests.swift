import Foundation
@_spi(SharkDriver) import SharkORM
import SharkTestSupport
import Testing

@testable import SharkDriverConformance

/// A UUID-keyed model with dates, decimals, enums and Codable values: the types whose stored
/// forms (REAL seconds, TEXT, raw values, JSON) the engines must order and compare alike.
@Model
final class Event {
    var id: UUID
    var at: Date = Date(timeIntervalSinceReferenceDate: 0)
    var kind: Kind = .note
    var amount: Decimal?
    var tags: [String] = []
    var weight: Float = 0

    enum Kind: String, Codable, CaseIterable { case note, alert, audit }

    init(id: UUID) { self.id = id }
}

@Suite("Differential: typed values on memory against SQLite")
struct TypedDifferentialTests {
    @Test("random typed inserts and queries give identical results", arguments: DifferentialTests.seeds)
    func typedValues(seed: UInt64) throws {
        var random = SeededGenerator(state: seed)
        let sqlite = try TestDriver.sqlite.makeStore()
        let memory = try TestDriver.memory.makeStore()
        defer {
            sqlite.close()
            memory.close()
        }
        let dates = (0..<8).map { Date(timeIntervalSinceReferenceDate: Double($0) * 1234.567 - 3000) }
        let amounts: [Decimal?] = [nil, 0, 1, Decimal(string: "10.5"), Decimal(string: "-2"), Decimal(string: "9")]
        let tagSets: [[String]] = [[], ["a"], ["a", "b"], ["b"]]
        for _ in 0..<60 {
            var bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &random) }
            bytes[6] = 0x40 | (bytes[6] & 0x0F)
            let id = UUID(
                uuid: (
                    bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8], bytes[9],
                    bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
                ))
            let values = (
                dates.randomElement(using: &random)!, Event.Kind.allCases.randomElement(using: &random)!,
                amounts.randomElement(using: &random)!, tagSets.randomElement(using: &random)!,
                Float(Int.random(in: -3...3, using: &random)) / 2
            )
            for store in [sqlite, memory] {
                let event = Event(id: id)
                (event.at, event.kind, event.amount, event.tags, event.weight) = values
                try store.commit(event)
            }
        }
        func describe(_ events: [Event]) -> [String] {
            events.map {
                "\($0.id)|\($0.at.timeIntervalSinceReferenceDate)|\($0.kind)|\(String(describing: $0.amount))|\($0.tags)|\($0.weight)"
            }
        }
        for step in 0..<150 {
            var a = try Event.query(in: sqlite)
            var b = try Event.query(in: memory)
            let date = dates.randomElement(using: &random)!
            let kind = Event.Kind.allCases.randomElement(using: &random)!
            let predicate: QueryPredicate<Event>
            switch Int.random(in: 0..<7, using: &random) {
            case 0: predicate = \.at < date
            case 1: predicate = \.at >= date && \.kind != kind
            case 2: predicate = \.kind == kind
            case 3: predicate = \.amount > amounts.randomElement(using: &random)!.map { $0 } ?? 0
            case 4: predicate = \.tags == tagSets.randomElement(using: &random)!
            case 5: predicate = .isNil(\.amount) || \.weight <= 0
            default: predicate = .isIn(\.kind, [kind, .alert])
            }
            (a, b) = (a.where(predicate), b.where(predicate))
            switch Int.random(in: 0..<4, using: &random) {
            case 0: (a, b) = (a.orderBy(\.at), b.orderBy(\.at))
            case 1: (a, b) = (a.orderByDescending(\.amount), b.orderByDescending(\.amount))
            case 2:
                (a, b) = (a.orderBy(\.kind).orderByDescending(\.weight), b.orderBy(\.kind).orderByDescending(\.weight))
            default: break
            }
            var (left, right) = (describe(try a.fetch()), describe(try b.fetch()))
            // Unordered: any order is correct, so compare as multisets.
            if !a.description.requiresOrder { (left, right) = (left.sorted(), right.sorted()) }
            if left != right {
                Issue.record("seed \(seed), step \(step), query \(a.description): \(left) / \(right)")
                return
            }
        }
    }
}

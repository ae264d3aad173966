import Foundation
@_spi(SharkDriver) import SharkORM
import Synchronization
import Testing

/// A card on a board: sections by lane, ordered by rank.
@Model
final class Card {
    var title: String = ""
    var lane: String = ""
    var rank: Int = 0

    init(_ title: String, lane: String, rank: Int) {
        (self.title, self.lane, self.rank) = (title, lane, rank)
    }
}

/// What a test keeps of a card: enough to compare results without holding the objects.
private func label(_ card: Card) -> String { "\(card.id):\(card.title):\(card.lane):\(card.rank)" }

struct ResultsControllerTests {

    func positions(driver: ConformanceDriver) async throws {
        let store = try driver.makeStore()
        defer { store.close() }
        let a = Card("a", lane: "doing", rank: 1)
        let b = Card("b", lane: "todo", rank: 2)
        let c = Card("c", lane: "todo", rank: 3)
        try store.commit([a, b, c])
        let controller = try Card.query(in: store).orderBy(\.lane).orderBy(\.rank).resultsController(
            sectionedBy: \.lane)
        var changes = controller.makeAsyncIterator()
        let first = try #require(try await changes.next())
        #expect(first.objects.map(\.title) == ["a", "b", "c"])
        #expect(first.inserted == [0, 1, 2] && first.removed.isEmpty && first.moved.isEmpty)
        #expect(first.sections.map(\.key) == [.text("doing"), .text("todo")])
        #expect(first.indexPath(2) == (section: 1, row: 1))

        // c moves to the front of "todo", b changes title in place, d arrives, a leaves.
        func write() throws {
            try store.write { tx in
                c.rank = 0
                b.title = "b2"
                try tx.commit([c, b])
                try tx.commit(Card("d", lane: "done", rank: 9))
                try tx.remove(a)
            }
        }
        try write()
        let second = try #require(try await changes.next())
        #expect(second.objects.map(\.title) == ["d", "c", "b2"])
        #expect(second.removed == [0])
        #expect(second.inserted == [0])
        // b and c swapped places and both changed: one of them moves (the diff may pick
        // either), the other is updated in place.
        #expect(second.moved.count == 1)
        #expect(Set(second.updated + second.moved.map(\.to)) == [1, 2])
        #expect(second.sections.map(\.key) == [.text("done"), .text("todo")])
        #expect(second.oldIndexPath(0) == (section: 0, row: 0))
        // A section key must be a stored property.
        #expect(throws: SharkError.self) { try Person.query(in: store).resultsController(sectionedBy: \.scratch) }
        let before = first.objects.map(label)
        #expect(second.applied(to: before) { label(second.objects[$0]) } == second.objects.map(label))
    }

    /// Random commits against live queries and a results controller, each consumed by a task of
    /// its own. After every commit all observers are awaited until they have caught up; then
    /// each one's last value must equal a fresh fetch, and the controller's changes, applied in
    /// order, must have rebuilt the same list. Replay a failure with `SHARK_LIVE_SEED=<seed>`.

    func randomized(driver: ConformanceDriver) async throws {
        let seed = ProcessInfo.processInfo.environment["SHARK_LIVE_SEED"].flatMap(UInt64.init) ?? 20_261_123
        var random = SeededGenerator(state: seed)
        let store = try driver.makeStore()
        defer { store.close() }
        _ = try store.prepare(Card.self)
        let lanes = ["todo", "doing", "done"]

        // Observers: the controller, an unordered filter, an ordered window, a count, a sum.
        let controller = try Card.query(in: store).orderBy(\.lane).orderBy(\.rank).resultsController(
            sectionedBy: \.lane)
        let rebuilt = Mutex<[String]>([])
        let controllerTask = Task {
            for try await change in controller {
                rebuilt.withLock { list in list = change.applied(to: list) { label(change.objects[$0]) } }
                #expect(rebuilt.withLock { $0 } == change.objects.map(label))
            }
        }
        let doing = try Card.query(in: store).where(\.lane == "doing").observe()
        let top = try Card.query(in: store).orderByDescending(\.rank).limit(3).observe()
        let count = store.observe { try await Card.query(in: store).count() }
        let sum = store.observe { try await Card.query(in: store).where(\.lane != "done").sum(\.rank) }
        let doingSeen = Mutex<[String]>([])
        let topSeen = Mutex<[String]>([])
        let countSeen = Mutex<Int>(-1)
        let sumSeen = Mutex<Int?>(nil)
        let tasks = [
            Task { for try await value in doing { doingSeen.withLock { $0 = value.value.map(label) } } },
            Task { for try await value in top { topSeen.withLock { $0 = value.value.map(label) } } },
            Task { for try await value in count { countSeen.withLock { $0 = value.value } } },
            Task { for try await value in sum { sumSeen.withLock { $0 = value.value } } },
        ]

        func randomCommit(_ random: inout SeededGenerator) throws {
            let existing = try Card.query(in: store).fetch()
            try store.write { tx in
                for _ in 0..<Int.random(in: 1...3, using: &random) {
                    switch Int.random(in: 0..<10, using: &random) {
                    case 0..<4:
                        try tx.commit(
                            Card(
                                "t\(Int.random(in: 0..<1000, using: &random))",
                                lane: lanes.randomElement(using: &random)!, rank: Int.random(in: 0..<50, using: &random)
                            ))
                    case 4..<7 where !existing.isEmpty:
                        let card = existing.randomElement(using: &random)!
                        if Bool.random(using: &random) { card.rank = Int.random(in: 0..<50, using: &random) }
                        if Bool.random(using: &random) { card.lane = lanes.randomElement(using: &random)! }
                        try tx.commit(card)
                    case 7..<9 where !existing.isEmpty:
                        let card = existing.randomElement(using: &random)!
                        if card.isPersisted { try tx.remove(card) }
                    default:
                        // A nested savepoint that rolls back: nothing of it may show.
                        _ = try? tx.transaction { inner in
                            try inner.commit(Card("ghost", lane: "todo", rank: 0))
                            throw SharkError.invalidQuery("rolled back on purpose")
                        }
                    }
                }
            }
        }
        for step in 0..<300 {
            try randomCommit(&random)
            // Checked after about half the commits: the others pile up, and coalesce.
            guard Bool.random(using: &random) || step == 299 else { continue }
            let last = store.lastCommitSequence
            await controller.caughtUp(through: last)
            await doing.caughtUp(through: last)
            await top.caughtUp(through: last)
            await count.caughtUp(through: last)
            await sum.caughtUp(through: last)
            let context = "seed \(seed), step \(step)"
            let all = try await Card.query(in: store).orderBy(\.lane).orderBy(\.rank).fetch().map(label)
            #expect(rebuilt.withLock { $0 } == all, "\(context)")
            let freshDoing = try await Card.query(in: store).where(\.lane == "doing").orderBy(\.id).fetch()
            #expect(doingSeen.withLock { $0 } == freshDoing.map(label), "\(context)")
            let freshTop = try await Card.query(in: store).orderByDescending(\.rank).limit(3).fetch()
            #expect(topSeen.withLock { $0 } == freshTop.map(label), "\(context)")
            #expect(countSeen.withLock { $0 } == all.count, "\(context)")
            let freshSum = try await Card.query(in: store).where(\.lane != "done").sum(\.rank)
            #expect(sumSeen.withLock { $0 } == freshSum, "\(context)")
        }
        store.close()
        _ = await controllerTask.result
        for task in tasks { _ = await task.result }
    }
}

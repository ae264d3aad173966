import Testing

@testable import SharkDriverConformance
@testable import SharkMemory

/// An element ordered by `value`, `tag` telling equal ones apart.
private struct Entry: SortedElement, Equatable {
    var value: Int
    var tag: Int
    static func compare(_ lhs: Entry, _ rhs: Entry) -> Int {
        lhs.value < rhs.value ? -1 : lhs.value > rhs.value ? 1 : 0
    }
    /// Less than the element, as the memory engine's branches keep keys without rows: no
    /// search, iteration or `last` may hand it out as an element.
    var searchKey: Entry { Entry(value: value, tag: .min) }
}

/// The B+ tree under the memory engine's key order and indexes, against a sorted array.
@Suite("Sorted lists")
struct SortedListTests {
    private func elements(_ list: SortedList<Entry>, from start: Int = 0) -> [Entry] {
        var all: [Entry] = []
        list.forEach(from: start) {
            all.append($0); return true
        }
        return all
    }

    @Test("random inserts, removals and replacements agree with a sorted array; copies never change")
    func againstAnArray() {
        var random = SeededGenerator(state: 20_261_126)
        var list = SortedList<Entry>()
        var model: [Entry] = []
        var snapshots: [(SortedList<Entry>, [Entry])] = []
        for step in 0..<40_000 {
            let value = Int(random.next() % 5_000)
            switch random.next() % 10 {
            case 0..<5:
                let entry = Entry(value: value, tag: step)
                list.insert(entry)
                // After equal elements, as the list places it.
                let at = model.firstIndex { $0.value > value } ?? model.count
                model.insert(entry, at: at)
            case 5..<8:
                let removed = list.remove(Entry(value: value, tag: -1))
                if let at = model.firstIndex(where: { $0.value == value }) {
                    model.remove(at: at)
                    #expect(removed)
                } else {
                    #expect(!removed)
                }
            default:
                list.replace(Entry(value: value, tag: -step))
                if let at = model.firstIndex(where: { $0.value == value }) { model[at].tag = -step }
            }
            if step % 4_000 == 0 { snapshots.append((list, model)) }
        }
        #expect(list.count == model.count)
        #expect(elements(list) == model)
        for (snapshot, expected) in snapshots {
            #expect(snapshot.count == expected.count)
            #expect(elements(snapshot) == expected)
            #expect(snapshot.last == expected.last)
        }
        // Positions are ranks: a search lands where the array's would, iteration goes on from it.
        for probe in stride(from: -1, through: 5_001, by: 97) {
            let position = list.firstPosition { $0.value < probe }
            #expect(position == (model.firstIndex { $0.value >= probe } ?? model.count))
            #expect(elements(list, from: position) == Array(model[position...]))
            // A lookup finds the first equal element, or none.
            let found = list.find { $0.pointee.value < probe ? -1 : ($0.pointee.value > probe ? 1 : 0) }
            #expect(found == model.first { $0.value == probe })
        }
        for snapshot in snapshots.prefix(3) {
            let probe = snapshot.1.first?.value ?? 0
            #expect(snapshot.0.find { $0.pointee.value - probe } == snapshot.1.first { $0.value == probe })
        }
        #expect(list.last == model.last)
    }

    @Test("appends in order fill leaves; removing everything empties the list")
    func appendsAndEmptying() {
        var list = SortedList<Entry>()
        for value in 0..<100_000 { list.append(Entry(value: value, tag: 0)) }
        #expect(list.count == 100_000)
        #expect(elements(list, from: 99_990).map(\.value) == Array(99_990..<100_000))
        let copy = list
        for value in stride(from: 0, to: 100_000, by: 1) { list.remove(Entry(value: value, tag: 0)) }
        #expect(list.isEmpty && elements(list).isEmpty && list.last == nil)
        #expect(copy.count == 100_000 && copy.last?.value == 99_999)
    }
}

/// An ordered list with O(1) snapshots and cheap copy-on-write updates: the structure behind
/// the memory engine's primary-key order and its secondary indexes.
///
/// Elements live in chunks of at most ``chunkCapacity``, each a reference-counted buffer
/// inside an array of chunks. Copying the list (taking a snapshot for a reader or a
/// savepoint) copies one reference. The first write after a snapshot copies the array of
/// chunk references and the one chunk it touches; later writes in the same transaction
/// mutate in place. Search is a binary search over chunks, then within one.
struct SortedList<Element: SortedElement> {
    static var chunkCapacity: Int { 256 }

    private final class Chunk {
        // Unchecked: the list copies a chunk before mutating it when it is shared, and every
        // access is a read or a write of one element; the run-time checks cost more than
        // the comparisons of a binary search.
        @exclusivity(unchecked) var elements: [Element]
        init(_ elements: [Element]) { self.elements = elements }
    }

    private var chunks: [Chunk] = []
    private(set) var count = 0

    init() {}

    var isEmpty: Bool { count == 0 }

    var last: Element? { chunks.last?.elements.last }

    /// A position: chunk and offset within it.
    struct Position: Comparable {
        var chunk: Int
        var offset: Int
        static func < (a: Position, b: Position) -> Bool {
            (a.chunk, a.offset) < (b.chunk, b.offset)
        }
    }

    var startPosition: Position { Position(chunk: 0, offset: 0) }
    var endPosition: Position { Position(chunk: chunks.count, offset: 0) }

    /// The first position whose element is not `isBefore` (elements must be partitioned:
    /// every element for which `isBefore` holds comes first).
    func firstPosition(where isBefore: (Element) -> Bool) -> Position {
        var low = 0
        var high = chunks.count
        while low < high {
            let middle = (low + high) / 2
            if isBefore(chunks[middle].elements[chunks[middle].elements.count - 1]) {
                low = middle + 1
            } else {
                high = middle
            }
        }
        guard low < chunks.count else { return endPosition }
        let elements = chunks[low].elements
        var lo = 0
        var hi = elements.count
        while lo < hi {
            let middle = (lo + hi) / 2
            if isBefore(elements[middle]) { lo = middle + 1 } else { hi = middle }
        }
        return Position(chunk: low, offset: lo)
    }

    /// Calls `body` for each element from `start` onwards until it returns false.
    func forEach(from start: Position, _ body: (Element) throws -> Bool) rethrows {
        var chunk = start.chunk
        var offset = start.offset
        while chunk < chunks.count {
            let elements = chunks[chunk].elements
            while offset < elements.count {
                if try !body(elements[offset]) { return }
                offset += 1
            }
            chunk += 1
            offset = 0
        }
    }

    /// Calls `body` for each element before `end`, last first, until it returns false.
    func forEachReversed(before end: Position, _ body: (Element) throws -> Bool) rethrows {
        var chunk = end.chunk
        var offset = end.offset
        while true {
            if offset == 0 {
                chunk -= 1
                guard chunk >= 0 else { return }
                offset = chunks[chunk].elements.count
            }
            offset -= 1
            if try !body(chunks[chunk].elements[offset]) { return }
        }
    }

    /// Inserts `element` in order (after equal elements).
    mutating func insert(_ element: Element) {
        if chunks.isEmpty {
            count += 1
            chunks.append(Chunk([element]))
            return
        }
        // Keys and indexed values often arrive in order (auto-assigned keys, timestamps):
        // then the element goes at the end, with no search.
        if let last, Element.compare(last, element) <= 0 { return append(element) }
        count += 1
        var position = firstPosition { Element.compare($0, element) <= 0 }
        if position.chunk == chunks.count {
            position = Position(chunk: chunks.count - 1, offset: chunks[chunks.count - 1].elements.count)
        }
        let chunk = uniqueChunk(at: position.chunk)
        chunk.elements.insert(element, at: position.offset)
        if chunk.elements.count > Self.chunkCapacity {
            let half = chunk.elements.count / 2
            let tail = Chunk(Array(chunk.elements[half...]))
            chunk.elements.removeSubrange(half...)
            chunks.insert(tail, at: position.chunk + 1)
        }
    }

    /// Removes the element equal to `element` (by ``SortedElement/compare(_:_:)``), if any.
    @discardableResult
    mutating func remove(_ element: Element) -> Bool {
        let position = firstPosition { Element.compare($0, element) < 0 }
        guard position.chunk < chunks.count,
            Element.compare(chunks[position.chunk].elements[position.offset], element) == 0
        else { return false }
        count -= 1
        let chunk = uniqueChunk(at: position.chunk)
        chunk.elements.remove(at: position.offset)
        if chunk.elements.isEmpty { chunks.remove(at: position.chunk) }
        return true
    }

    /// Replaces the element equal to `element` (same order) by `element`.
    mutating func replace(_ element: Element) {
        let position = firstPosition { Element.compare($0, element) < 0 }
        guard position.chunk < chunks.count,
            Element.compare(chunks[position.chunk].elements[position.offset], element) == 0
        else { return }
        uniqueChunk(at: position.chunk).elements[position.offset] = element
    }

    /// Appends an element known to sort after every element (bulk building).
    mutating func append(_ element: Element) {
        count += 1
        if let last = chunks.indices.last, chunks[last].elements.count < Self.chunkCapacity {
            uniqueChunk(at: last).elements.append(element)
        } else {
            chunks.append(Chunk([element]))
        }
    }

    private mutating func uniqueChunk(at index: Int) -> Chunk {
        if !isKnownUniquelyReferenced(&chunks[index]) {
            chunks[index] = Chunk(chunks[index].elements)
        }
        return chunks[index]
    }
}

/// An element of a ``SortedList``: a total order defined by a three-way comparison.
protocol SortedElement {
    static func compare(_ lhs: Self, _ rhs: Self) -> Int
}

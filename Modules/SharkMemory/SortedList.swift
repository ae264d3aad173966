/// An ordered list with O(1) snapshots and copy-on-write updates whose cost does not grow
/// with the list: the structure behind the memory engine's primary-key order and its
/// secondary indexes.
///
/// It is a B+ tree of reference-counted nodes: leaves hold up to ``leafCapacity`` elements,
/// branches up to ``branchCapacity`` children with each child's element count and the search
/// key of its last element. Copying the list (a reader's snapshot, a transaction's or a
/// savepoint's copy) copies one reference. The first write after a copy copies the nodes on
/// the path to the element it touches — a leaf and one branch per level, about three at a
/// million elements — and later writes on that path mutate in place. (The list used to keep
/// its leaves in one array, which a transaction's first write copied whole: 4,000 references
/// at a million rows.)
///
/// A position is a rank: how many elements come before it.
struct SortedList<Element: SortedElement> {
    /// Elements per leaf: the element type's choice (``SortedElement/leafCapacity``).
    static var leafCapacity: Int { Element.leafCapacity }
    static var branchCapacity: Int { 64 }

    /// A leaf (no children) or a branch (no elements of its own).
    private final class Node {
        // Unchecked: a node is copied before it is mutated whenever it is shared, and every
        // access is a read or a write of one slot; the run-time checks cost more than the
        // comparisons of a binary search.
        /// A leaf's elements, in order.
        @exclusivity(unchecked) var elements: [Element]
        /// A branch's children, in order.
        @exclusivity(unchecked) var children: [Node]
        /// The number of elements under each child.
        @exclusivity(unchecked) var counts: [Int]
        /// The last element under each child, as a search needs it (``SortedElement/searchKey``):
        /// what a search compares.
        @exclusivity(unchecked) var lasts: [Element]

        init(elements: [Element]) {
            self.elements = elements
            children = []
            counts = []
            lasts = []
        }

        init(children: [Node]) {
            elements = []
            self.children = children
            counts = children.map(\.count)
            lasts = children.map { $0.lastKey! }
        }

        init(copying node: Node) {
            elements = node.elements
            children = node.children
            counts = node.counts
            lasts = node.lasts
        }

        var isLeaf: Bool { children.isEmpty }
        var count: Int { isLeaf ? elements.count : counts.reduce(0, +) }
        /// The last element under the node, as its parent's `lasts` keeps it.
        var lastKey: Element? { isLeaf ? elements.last?.searchKey : lasts.last }
        /// Slots used: elements of a leaf, children of a branch.
        var width: Int { isLeaf ? elements.count : children.count }
    }

    private var root: Node?
    private(set) var count = 0

    init() {}

    var isEmpty: Bool { count == 0 }

    var last: Element? {
        // A branch keeps search keys, not elements: the last element is in the last leaf.
        guard var node = root else { return nil }
        while !node.isLeaf { node = node.children[node.children.count - 1] }
        return node.elements.last
    }

    /// A position: the number of elements before it.
    typealias Position = Int

    var startPosition: Position { 0 }
    var endPosition: Position { count }

    // MARK: Search and iteration

    /// The first position whose element is not `isBefore` (elements must be partitioned:
    /// every element for which `isBefore` holds comes first).
    func firstPosition(where isBefore: (Element) -> Bool) -> Position {
        guard var node = root else { return 0 }
        var rank = 0
        while !node.isLeaf {
            // The first child whose last element is not before: the position is in it.
            var low = 0
            var high = node.children.count
            while low < high {
                let middle = (low + high) / 2
                if isBefore(node.lasts[middle]) { low = middle + 1 } else { high = middle }
            }
            guard low < node.children.count else { return count }
            for child in 0..<low { rank += node.counts[child] }
            node = node.children[low]
        }
        var low = 0
        var high = node.elements.count
        while low < high {
            let middle = (low + high) / 2
            if isBefore(node.elements[middle]) { low = middle + 1 } else { high = middle }
        }
        return rank + low
    }

    /// The element `order` places at 0, if there is one: `order` tells where the element at
    /// a pointer lies against the one sought (negative before it, positive after). One walk
    /// down the tree, what a lookup by key costs.
    ///
    /// Elements are compared where they lie, through a pointer, never copied: a copy would
    /// retain what an element holds (a row), costing more than the comparison.
    ///
    /// ```swift
    /// let match = list.find { SQLiteSemantics.compare($0.pointee.key, key) }
    /// ```
    func find(_ order: (UnsafePointer<Element>) -> Int) -> Element? {
        guard var node = root else { return nil }
        while !node.isLeaf {
            let child = node.lasts.withUnsafeBufferPointer { Self.firstNotBefore(in: $0, order) }
            guard child < node.children.count else { return nil }
            node = node.children[child]
        }
        return node.elements.withUnsafeBufferPointer { elements in
            let offset = Self.firstNotBefore(in: elements, order)
            guard offset < elements.count, order(elements.baseAddress! + offset) == 0 else { return nil }
            return elements[offset]
        }
    }

    /// The first position of `elements` that `order` does not place before the one sought.
    private static func firstNotBefore(
        in elements: UnsafeBufferPointer<Element>, _ order: (UnsafePointer<Element>) -> Int
    ) -> Int {
        guard let base = elements.baseAddress else { return 0 }
        var low = 0
        var high = elements.count
        while low < high {
            let middle = (low + high) / 2
            if order(base + middle) < 0 { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// Calls `body` for each element from `start` onwards until it returns false.
    func forEach(from start: Position, _ body: (Element) throws -> Bool) rethrows {
        guard let root, start < count else { return }
        // The path to the leaf holding `start`: each branch with the child taken.
        var path: [(node: Node, child: Int)] = []
        var node = root
        var offset = start
        while !node.isLeaf {
            var child = 0
            while offset >= node.counts[child] {
                offset -= node.counts[child]
                child += 1
            }
            path.append((node, child))
            node = node.children[child]
        }
        while true {
            let elements = node.elements
            while offset < elements.count {
                if try !body(elements[offset]) { return }
                offset += 1
            }
            // The next leaf: up to the first branch with a child to the right, then down
            // its leftmost path.
            while let (branch, child) = path.last, child + 1 >= branch.children.count { path.removeLast() }
            guard let (branch, child) = path.popLast() else { return }
            path.append((branch, child + 1))
            node = branch.children[child + 1]
            while !node.isLeaf {
                path.append((node, 0))
                node = node.children[0]
            }
            offset = 0
        }
    }

    /// Calls `body` for each element from the last backwards until it returns false: what a
    /// descending order over the list reads, stopping as soon as a limit is met.
    func forEachBackwards(_ body: (Element) throws -> Bool) rethrows {
        guard let root else { return }
        try Self.forEachBackwards(under: root, body)
    }

    /// Returns false once `body` has.
    @discardableResult
    private static func forEachBackwards(under node: Node, _ body: (Element) throws -> Bool) rethrows -> Bool {
        if node.isLeaf {
            for element in node.elements.reversed() where try !body(element) { return false }
            return true
        }
        for child in node.children.reversed() where try !forEachBackwards(under: child, body) { return false }
        return true
    }

    // MARK: Writes

    /// Inserts `element` in order (after equal elements).
    mutating func insert(_ element: Element) {
        count += 1
        guard let node = uniqueRoot() else {
            root = Node(elements: [element])
            return
        }
        if let split = Self.insert(element, into: node) { root = Node(children: [node, split]) }
    }

    /// Inserts into the subtree of `node` (already unique); returns the new right sibling
    /// when `node` split.
    private static func insert(_ element: Element, into node: Node) -> Node? {
        if node.isLeaf {
            // Keys and indexed values often arrive in order (auto-assigned keys, timestamps):
            // then the element goes at the end, with no search.
            var offset = node.elements.count
            if comesBefore(element, node.elements, at: offset - 1) {
                offset = partition(node.elements, comingAfter: element)
            }
            guard node.elements.count == leafCapacity else {
                node.elements.insert(element, at: offset)
                return nil
            }
            // A full leaf splits before the insert, so that no array ever grows past its
            // capacity (it would double its buffer, and a half kept that buffer: every leaf
            // twice its size). Appends split off the new element alone, leaving full leaves
            // behind them; other inserts split in half, each half in a buffer of its own size.
            if offset == leafCapacity { return Node(elements: [element]) }
            let half = leafCapacity / 2
            let right = Node(elements: Array(node.elements[half...]))
            node.elements = Array(node.elements[..<half])
            if offset <= half {
                node.elements.insert(element, at: offset)
            } else {
                right.elements.insert(element, at: offset - half)
            }
            return right
        }
        // The first child whose last element comes after the new one; the last child when none.
        var child = node.children.count - 1
        if comesBefore(element, node.lasts, at: child) {
            child = partition(node.lasts, comingAfter: element)
        }
        let target = uniqueChild(child, of: node)
        let split = insert(element, into: target)
        // One more element below, unless the child split (then counted again: a branch's
        // count sums its children's, too dear for every insert).
        if split == nil { node.counts[child] += 1 } else { node.counts[child] = target.count }
        node.lasts[child] = target.lastKey!
        guard let split else { return nil }
        guard node.children.count == branchCapacity else {
            node.children.insert(split, at: child + 1)
            node.counts.insert(split.count, at: child + 1)
            node.lasts.insert(split.lastKey!, at: child + 1)
            return nil
        }
        // Full: split first, as a leaf does.
        if child + 1 == branchCapacity { return Node(children: [split]) }
        let half = branchCapacity / 2
        let right = Node(children: Array(node.children[half...]))
        node.children = Array(node.children[..<half])
        node.counts = Array(node.counts[..<half])
        node.lasts = Array(node.lasts[..<half])
        let (parent, position) = child + 1 <= half ? (node, child + 1) : (right, child + 1 - half)
        parent.children.insert(split, at: position)
        parent.counts.insert(split.count, at: position)
        parent.lasts.insert(split.lastKey!, at: position)
        return right
    }

    /// Removes the element equal to `element` (by ``SortedElement/compare(_:_:)``), if any.
    @discardableResult
    mutating func remove(_ element: Element) -> Bool {
        // One descent, copying the path as it goes: callers remove what they know is there
        // (a row they just read, its index entries). Were it missing, the nodes copied on the
        // way would hold what they held.
        guard let node = uniqueRoot(), Self.remove(element, from: node) else { return false }
        count -= 1
        if count == 0 {
            root = nil
        } else if !node.isLeaf && node.children.count == 1 {
            root = node.children[0]  // a root with one child gives its place to it
        }
        return true
    }

    /// Removes from the subtree of `node` (already unique); children left empty go, and a
    /// small child merges with its neighbour.
    private static func remove(_ element: Element, from node: Node) -> Bool {
        if node.isLeaf {
            let offset = partition(node.elements, notBefore: element)
            guard offset < node.elements.count, Element.compare(node.elements[offset], element) == 0 else {
                return false
            }
            node.elements.remove(at: offset)
            return true
        }
        let child = partition(node.lasts, notBefore: element)
        guard child < node.children.count else { return false }
        let target = uniqueChild(child, of: node)
        guard remove(element, from: target) else { return false }
        if target.width == 0 {
            node.children.remove(at: child)
            node.counts.remove(at: child)
            node.lasts.remove(at: child)
            return true
        }
        node.counts[child] -= 1
        node.lasts[child] = target.lastKey!
        mergeIfSmall(child, of: node)
        return true
    }

    /// Merges child `index` of `branch` into a neighbour when it is under a quarter full and
    /// both fit in one node, so that removals never leave a tree of near-empty nodes.
    private static func mergeIfSmall(_ index: Int, of branch: Node) {
        let capacity = branch.children[index].isLeaf ? leafCapacity : branchCapacity
        guard branch.children[index].width < capacity / 4, branch.children.count > 1 else { return }
        let left = index > 0 ? index - 1 : index
        let right = left + 1
        guard branch.children[left].width + branch.children[right].width <= capacity else { return }
        let merged = uniqueChild(left, of: branch)
        let absorbed = branch.children[right]
        if merged.isLeaf {
            merged.elements += absorbed.elements
        } else {
            merged.children += absorbed.children
            merged.counts += absorbed.counts
            merged.lasts += absorbed.lasts
        }
        branch.children[left] = merged
        branch.counts[left] = merged.count
        branch.lasts[left] = merged.lastKey!
        branch.children.remove(at: right)
        branch.counts.remove(at: right)
        branch.lasts.remove(at: right)
    }

    /// Replaces the element equal to `element` (same order) by `element`.
    /// Replaces the element that compares equal to `element`, which the caller knows is there
    /// (a row it just read, an index entry of it): one descent, without a search first. Were
    /// it missing, the nodes copied on the way would hold what they held.
    mutating func replace(_ element: Element) {
        guard let node = uniqueRoot() else { return }
        Self.replace(element, in: node)
    }

    /// Returns whether the element replaced was the last of `node`: only then does its
    /// parent's copy of that last element change (an equal element compares the same, but
    /// the old one would keep its row alive).
    @discardableResult
    private static func replace(_ element: Element, in node: Node) -> Bool {
        if node.isLeaf {
            let offset = partition(node.elements, notBefore: element)
            guard offset < node.elements.count, Element.compare(node.elements[offset], element) == 0 else {
                return false
            }
            node.elements[offset] = element
            return offset == node.elements.count - 1
        }
        let child = partition(node.lasts, notBefore: element)
        guard child < node.children.count else { return false }
        let target = uniqueChild(child, of: node)
        guard replace(element, in: target) else { return false }
        node.lasts[child] = element.searchKey
        return child == node.children.count - 1
    }

    /// Appends an element known to sort after every element (bulk building).
    mutating func append(_ element: Element) { insert(element) }

    // MARK: Helpers

    /// The root, copied first unless this list holds the only reference to it.
    private mutating func uniqueRoot() -> Node? {
        guard root != nil else { return nil }
        if !isKnownUniquelyReferenced(&root) { root = Node(copying: root!) }
        return root
    }

    /// Child `index` of `node` (which is unique), copied first unless `node` holds the only
    /// reference to it: a copy of the list shares every node until a write copies its path.
    private static func uniqueChild(_ index: Int, of node: Node) -> Node {
        if !isKnownUniquelyReferenced(&node.children[index]) {
            node.children[index] = Node(copying: node.children[index])
        }
        return node.children[index]
    }

    /// Whether an element equal to `element` is under `node`: a write copies no path for an
    /// element that is not there.
    private static func contains(_ element: Element, under node: Node) -> Bool {
        var node = node
        while !node.isLeaf {
            let child = partition(node.lasts, notBefore: element)
            guard child < node.children.count else { return false }
            node = node.children[child]
        }
        let offset = partition(node.elements, notBefore: element)
        return offset < node.elements.count && Element.compare(node.elements[offset], element) == 0
    }

    /// The nodes a search for `element` walks, root first: a write that copies no node leaves
    /// them the same (tests check that a transaction copies a path once, not on every write).
    func pathIdentities(to element: Element) -> [ObjectIdentifier] {
        guard var node = root else { return [] }
        var path = [ObjectIdentifier(node)]
        while !node.isLeaf {
            let child = Self.partition(node.lasts, notBefore: element)
            node = node.children[min(child, node.children.count - 1)]
            path.append(ObjectIdentifier(node))
        }
        return path
    }

    /// Whether `element` comes before `elements[position]` (false when there is none),
    /// compared where it lies: reading `elements[position]` would copy it.
    private static func comesBefore(_ element: Element, _ elements: [Element], at position: Int) -> Bool {
        guard elements.indices.contains(position) else { return false }
        return elements.withUnsafeBufferPointer { buffer in
            withUnsafePointer(to: element) { Element.compare(buffer.baseAddress! + position, $0) > 0 }
        }
    }

    /// The first index of `elements` that does not come before `element`.
    private static func partition(_ elements: [Element], notBefore element: Element) -> Int {
        withUnsafePointer(to: element) { target in partition(elements) { Element.compare($0, target) < 0 } }
    }

    /// The first index of `elements` that comes after `element` (after equal ones too).
    private static func partition(_ elements: [Element], comingAfter element: Element) -> Int {
        withUnsafePointer(to: element) { target in partition(elements) { Element.compare($0, target) <= 0 } }
    }

    /// The first index of `elements` for which `isBefore` is false. Elements are compared
    /// where they lie (through pointers), never copied: a copy of an index entry retains and
    /// releases four references, and a search makes a dozen comparisons.
    private static func partition(_ elements: [Element], _ isBefore: (UnsafePointer<Element>) -> Bool) -> Int {
        elements.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return 0 }
            var low = 0
            var high = buffer.count
            while low < high {
                let middle = (low + high) / 2
                if isBefore(base + middle) { low = middle + 1 } else { high = middle }
            }
            return low
        }
    }
}

/// An element of a ``SortedList``: a total order defined by a three-way comparison.
protocol SortedElement {
    static func compare(_ lhs: Self, _ rhs: Self) -> Int
    /// The same order, of elements where they lie: what searches call, so that no element
    /// is copied to be compared (a copy passed by value through a closure was made at each
    /// step).
    static func compare(_ lhs: UnsafePointer<Self>, _ rhs: UnsafePointer<Self>) -> Int
    /// The element as a branch keeps it to guide searches (the last under each of its
    /// children): what `compare` reads, and no more. A write copies the branches on its path;
    /// a branch of full elements would retain a row for each child, and at a million rows
    /// each of those rows lies apart in memory, a cache miss for each retain.
    var searchKey: Self { get }
    /// Elements per leaf of a list of these: what a transaction's first write to a leaf
    /// copies (and retains, element by element), against the levels a search walks.
    static var leafCapacity: Int { get }
}

extension SortedElement {
    /// By value, for elements cheap to copy.
    static func compare(_ lhs: UnsafePointer<Self>, _ rhs: UnsafePointer<Self>) -> Int {
        compare(lhs.pointee, rhs.pointee)
    }

    /// The whole element, for elements that hold nothing beyond what they compare.
    var searchKey: Self { self }

    /// A table's rows in key order. In shark-bench's scale family (single runs, 10,000 to
    /// 1,000,000 rows), 256 made updates and removals 10–20% dearer at a million rows, and
    /// 64 made lookups 5–20% dearer at every size.
    static var leafCapacity: Int { 128 }
}

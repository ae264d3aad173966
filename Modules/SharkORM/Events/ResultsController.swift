/// A query's results kept in step with the store, reported as the positions that changed —
/// what a table or collection view needs to animate (BLDatabase's fetched-results controller).
///
/// ```swift
/// let controller = try Person.query(in: store).orderBy(\.team).orderBy(\.name).resultsController(sectionedBy: \.team)
/// for try await change in controller {
///     tableView.performBatchUpdates {
///         tableView.deleteRows(at: change.removed.map(change.oldIndexPath), with: .fade)
///         tableView.insertRows(at: change.inserted.map(change.indexPath), with: .fade)
///         // moves and reloads likewise
///     }
/// }
/// ```
///
/// The first change lists every object as inserted. Each later one describes how the previous
/// results became the new ones, in the order a table applies them: remove `removed` (offsets
/// in the old results) and the `moved` objects from their old offsets, then insert `inserted`
/// (offsets in the new results) and the `moved` objects at their new offsets; `updated` are
/// objects at the same place whose stored values changed (offsets in the new results). Applied
/// to the old results, a change gives exactly the new ones.
///
/// It is a ``LiveQuery`` underneath: it re-runs only for commits that touch what the query
/// reads, and delivers only when something changed.
public struct ResultsController<Root: Model>: AsyncSequence, Sendable {
    public typealias Element = ResultsChange<Root>
    public typealias Failure = any Error

    let observation: LiveQuery<[Root]>
    /// The column whose stored value groups results into sections, if any.
    let sectionColumn: Int?

    /// Starts following the results (see ``LiveQuery/makeAsyncIterator()``).
    public func makeAsyncIterator() -> Iterator {
        Iterator(base: observation.makeAsyncIterator(), sectionColumn: sectionColumn)
    }

    /// Waits until the controller has taken every commit up to `sequence` into account (see
    /// ``LiveQuery/caughtUp(through:)``).
    public func caughtUp(through sequence: UInt64) async {
        await observation.caughtUp(through: sequence)
    }

    /// Delivers the changes one by one.
    public struct Iterator: AsyncIteratorProtocol {
        var base: LiveQuery<[Root]>.Iterator
        /// The column whose stored value groups results into sections, if any.
        let sectionColumn: Int?
        /// The last results' keys and stored values, in order.
        var last: [(key: Root.Key, values: [Value])] = []
        var lastSections: [ResultsSection] = []

        /// ``next(isolation:)`` outside any actor.
        public mutating func next() async throws -> ResultsChange<Root>? {
            try await next(isolation: nil)
        }

        /// The next change of the results (the first lists every object as inserted); nil once
        /// the store has closed.
        public mutating func next(isolation actor: isolated (any Actor)?) async throws -> ResultsChange<Root>? {
            guard let result = try await base.next(isolation: actor) else { return nil }
            let objects = result.value
            let rows = objects.map { (key: $0.id, values: storedValues(of: $0)) }
            let difference = rows.map(\.key).difference(from: last.map(\.key)).inferringMoves()
            var removed: [Int] = []
            var inserted: [Int] = []
            var moved: [(from: Int, to: Int)] = []
            for change in difference {
                switch change {
                case .remove(let offset, _, let associated):
                    if associated == nil { removed.append(offset) }
                case .insert(let offset, _, let associated):
                    if let associated { moved.append((from: associated, to: offset)) } else { inserted.append(offset) }
                }
            }
            // Objects present before and after whose stored values changed. A moved object
            // is reported as a move (its cell is reloaded where it lands).
            var previous: [Root.Key: [Value]] = [:]
            for row in last { previous[row.key] = row.values }
            let movedTo = Set(moved.map(\.to))
            var updated: [Int] = []
            for (offset, row) in rows.enumerated() where !movedTo.contains(offset) {
                if let old = previous[row.key], old != row.values { updated.append(offset) }
            }
            let sections =
                sectionColumn.map { column in ResultsSection.sections(of: rows.map { $0.values[column] }) } ?? []
            let change = ResultsChange(
                objects: objects, sections: sections, oldSections: lastSections, removed: removed.sorted(),
                inserted: inserted.sorted(), moved: moved.sorted { $0.to < $1.to }, updated: updated,
                sequence: result.sequence)
            last = rows
            lastSections = sections
            return change
        }
    }
}

/// How a controller's results changed with one commit (see ``ResultsController``).
///
/// ```swift
/// var titles = oldTitles
/// for offset in change.removed.reversed() { titles.remove(at: offset) }
/// ```
public struct ResultsChange<Root: Model> {
    /// The results after the commit.
    public let objects: [Root]
    /// The sections of `objects`, when the controller has a section key.
    public let sections: [ResultsSection]
    /// The sections of the previous results.
    public let oldSections: [ResultsSection]
    /// Offsets, in the previous results, of the objects no longer there; ascending.
    public let removed: [Int]
    /// Offsets, in the new results, of the objects that were not there; ascending.
    public let inserted: [Int]
    /// Objects still there at another place: from their offset in the previous results to
    /// their offset in the new ones; by new offset.
    public let moved: [(from: Int, to: Int)]
    /// Offsets, in the new results, of objects in place whose stored values changed.
    public let updated: [Int]
    /// The commit the new results reflect (see ``ObservedValue/sequence``).
    public let sequence: UInt64

    /// `(section, row)` of an offset in the new results (section 0 without sections).
    public func indexPath(_ offset: Int) -> (section: Int, row: Int) {
        ResultsSection.indexPath(of: offset, in: sections)
    }

    /// `(section, row)` of an offset in the previous results.
    public func oldIndexPath(_ offset: Int) -> (section: Int, row: Int) {
        ResultsSection.indexPath(of: offset, in: oldSections)
    }

    /// `old` (the previous results, or anything in step with them) changed as this change says:
    /// the new results' order, with `element` giving what to insert at each new offset.
    ///
    /// ```swift
    /// names = change.applied(to: names) { change.objects[$0].name }
    /// ```
    public func applied<T>(to old: [T], element: (Int) -> T) -> [T] {
        var result = old
        let leaving = Set(removed).union(moved.map(\.from))
        for offset in leaving.sorted(by: >) { result.remove(at: offset) }
        let arriving = (inserted + moved.map(\.to)).sorted()
        for offset in arriving { result.insert(element(offset), at: offset) }
        for offset in updated { result[offset] = element(offset) }
        return result
    }
}

/// A run of consecutive results that share a section key.
public struct ResultsSection: Sendable, Hashable {
    /// The stored value of the section's property.
    public let key: Value
    /// The offsets of the section's objects in the results.
    public let range: Range<Int>

    /// The runs of equal keys in `keys`, the section key of each result in order.
    static func sections(of keys: [Value]) -> [ResultsSection] {
        var sections: [ResultsSection] = []
        var start = 0
        for offset in keys.indices {
            let current = keys[offset]
            if offset + 1 == keys.count || keys[offset + 1] != current {
                sections.append(ResultsSection(key: current, range: start..<(offset + 1)))
                start = offset + 1
            }
        }
        return sections
    }

    static func indexPath(of offset: Int, in sections: [ResultsSection]) -> (section: Int, row: Int) {
        for (index, section) in sections.enumerated() where section.range.contains(offset) {
            return (index, offset - section.range.lowerBound)
        }
        return (0, offset)
    }
}

extension Query {
    /// A results controller over this query (see ``ResultsController``), optionally with
    /// sections: consecutive results with the same value of `section` (order the query by it).
    ///
    /// ```swift
    /// let controller = try Person.query(in: store).orderBy(\.name).resultsController()
    /// ```
    public func resultsController() -> ResultsController<Root> {
        ResultsController(observation: observe(), sectionColumn: nil)
    }

    /// A results controller whose results are grouped in sections by `section`.
    public func resultsController<V>(sectionedBy section: KeyPath<Root, V>) throws -> ResultsController<Root> {
        guard let column = Root.columnIndex(of: section) else {
            throw SharkError.invalidQuery(
                .notPersisted, "a section key of \(Root._sharkEntityName) must be a stored property")
        }
        return ResultsController(observation: observe(), sectionColumn: Int(column))
    }
}

@_spi(SharkDriver) import SharkORM

extension MemoryTable {
    /// What is inconsistent between the table's parts: its rows in key order and every
    /// index. Empty when the table is intact.
    ///
    /// The parts are updated together by every write, so a problem here is a bug in the
    /// engine, never bad input: this is the memory engine's `PRAGMA integrity_check`.
    func integrityProblems() -> [String] {
        var problems: [String] = []
        let entity = schema.name
        var previous: Value?
        ordered.forEach(from: ordered.startPosition) { keyed in
            if let previous, SQLiteSemantics.compare(previous, keyed.key) >= 0 {
                problems.append("\(entity): keys out of order at \(keyed.key)")
            }
            previous = keyed.key
            if row(forKey: keyed.key) != keyed.row {
                problems.append("\(entity): the row with key \(keyed.key) cannot be found by its key")
            }
            return problems.count < 100
        }
        for index in indexes {
            problems += integrityProblems(of: index)
        }
        return problems
    }

    private func integrityProblems(of index: MemoryIndex) -> [String] {
        var problems: [String] = []
        let name = index.schema.name
        if index.entries.count != ordered.count {
            problems.append("\(name): \(index.entries.count) entries for \(ordered.count) rows")
        }
        var previous: IndexEntry?
        index.entries.forEach(from: index.entries.startPosition) { entry in
            if let previous {
                if IndexEntry.compare(previous, entry) >= 0 {
                    problems.append("\(name): entries out of order at key \(entry.key)")
                }
                let sameValues = Self.compareValues(previous.values, entry.values) == 0
                if index.schema.isUnique, sameValues, !entry.values.contains(where: \.isNull) {
                    problems.append("\(name): the unique values \(entry.values) appear twice")
                }
            }
            previous = entry
            guard let stored = row(forKey: entry.key) else {
                problems.append("\(name): an entry for key \(entry.key), which has no row")
                return problems.count < 100
            }
            if stored != entry.row || Self.compareValues(index.entry(for: stored).values, entry.values) != 0 {
                problems.append("\(name): the entry for key \(entry.key) does not match its row")
            }
            return problems.count < 100
        }
        return problems
    }
}

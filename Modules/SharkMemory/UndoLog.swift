@_spi(SharkDriver) import SharkORM

/// How to take back one change of a transaction that works in place (see ``MemoryVersions``).
enum UndoStep {
    /// A change to the rows of the table at a position.
    case table(Int, TableUndo)
    /// A change to the database's shape (a table created or migrated): the whole state from
    /// before it, an O(1) copy.
    case database(MemoryDatabaseState)
}

/// How to take back one change to a table's rows.
enum TableUndo {
    /// A row was inserted: remove the row with this key.
    case inserted(key: Value)
    /// A row was replaced: put this one back.
    case replaced(old: Row)
    /// A row was deleted: insert it again.
    case deleted(old: Row)
}

extension MemoryDatabaseState {
    /// Takes back `step`, the last change not yet taken back.
    mutating func undo(_ step: UndoStep) {
        switch step {
        case .table(let position, let change): modify(at: position) { $0.undo(change) }
        case .database(let before): self = before
        }
    }
}

extension MemoryTable {
    /// Takes back `change`. Nothing is checked: undone in reverse order, each step returns the
    /// table to a state it was in, which passed every check then.
    mutating func undo(_ change: TableUndo) {
        switch change {
        case .inserted(let key):
            _ = delete(key: key)
        case .replaced(let old):
            guard let current = row(forKey: old[0]) else { return }
            ordered.replace(KeyedRow(old))
            for index in indexes.indices { indexes[index].replace(current, with: old) }
        case .deleted(let old):
            ordered.insert(KeyedRow(old))
            for index in indexes.indices { indexes[index].insert(old) }
        }
    }
}

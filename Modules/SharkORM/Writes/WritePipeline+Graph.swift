/// Committing an object that refers to others: the new or changed objects its to-one
/// relationships hold are committed first, in the same transaction, so that the keys it
/// stores exist.
///
/// The objects reachable through loaded relationships are visited depth first (faults are
/// never loaded for this: an unloaded object has no changes) and written in post-order, each
/// after the objects it refers to. A cycle of new objects with store-assigned keys (A refers
/// to B, B to A) has no such order: the object written first stores 0 for the other's key,
/// and is updated with the real key once the other is written — all inside the one
/// transaction, so nothing else ever sees the 0.
///
/// Every object write goes through ``writeGraph(from:as:)``: `commit` of one object or of a
/// sequence, and `upsert`, new key or stored one, and their `WriteTransaction` forms. An
/// upsert applies to every object of the graph that is not stored yet, so a graph received
/// from elsewhere (its objects' keys already stored, some of them) lands whole.
extension WriteTransaction {
    /// How the objects of a graph are written.
    enum GraphWrite {
        /// Inserted when new, their changed columns written when stored.
        case commit
        /// As ``commit``, except that a new object whose key is already stored overwrites
        /// that row (see ``Store/upsert(_:)``).
        case upsert
    }

    func writeGraph(from root: some Model, as mode: GraphWrite) throws {
        var visited = Set<ObjectIdentifier>()
        var order: [any Model] = []
        // An explicit stack rather than recursion: a long chain of new objects must not
        // overflow the thread's stack.
        var pending: [(object: any Model, expanded: Bool)] = [(root, false)]
        while let (object, expanded) = pending.popLast() {
            if expanded {
                order.append(object)
                continue
            }
            guard visited.insert(ObjectIdentifier(object)).inserted else { continue }
            pending.append((object, true))
            for column in Self.relationshipColumns(of: object) {
                guard let related = object._sharkRelated(column: column), !related.isFault else { continue }
                pending.append((related, false))
            }
        }
        var deferred: [(object: any Model, column: Int32)] = []
        for object in order {
            for column in Self.relationshipColumns(of: object) {
                if let related = object._sharkRelated(column: column), !related.isFault, !hasKey(related) {
                    deferred.append((object, column))
                }
            }
            try writeOpened(object, as: mode)
        }
        for (object, column) in deferred {
            object._$shark.markDirty(column)
            try writeOpened(object, as: .commit)
        }
    }

    /// The relationship columns of the object's model.
    private static func relationshipColumns(of object: any Model) -> [Int32] {
        let columns = type(of: object)._sharkSchemaColumns
        var positions: [Int32] = []
        for position in columns.indices where columns[position].relationship != nil {
            positions.append(Int32(position))
        }
        return positions
    }

    /// Whether the object's key is known: an app-assigned key always is; a store-assigned one
    /// once the object is inserted.
    private func hasKey(_ object: some Model) -> Bool {
        object._$shark.isPersisted || type(of: object)._sharkKeyKind != .autoIncrement
            || object.id.columnValue != .integer(0)
    }

    /// Writes one object of the graph, unless it is stored here and unchanged.
    private func writeOpened<M: Model>(_ object: M, as mode: GraphWrite) throws {
        let state = object._$shark
        if state.isPersisted && state.store === store && state.dirty.isEmpty { return }
        let schema = try store.preparedSchema(for: M.self)
        switch mode {
        case .commit: try writeObject(object, schema: schema)
        case .upsert: try upsertObject(object, schema: schema)
        }
    }
}

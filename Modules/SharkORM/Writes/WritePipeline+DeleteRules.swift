/// Delete rules: what removing an object does to the objects whose to-one relationships
/// refer to it (see ``DeleteRule``).
///
/// They run here, in the write pipeline, rather than as SQL foreign keys: every change they
/// make is a write like any other, seen by observers, events and sync, and a key whose object
/// is missing stays legal. The referring rows are found through the recorded schemas of every
/// entity in the store, by the index each relationship column has.
///
/// A removal with rules runs in a savepoint, and works through a list rather than by
/// recursion (a long chain of cascades must not overflow the stack):
///
/// 1. `deny`: any referring row stops everything with ``SharkError/deleteDenied(entity:referencedBy:)``;
/// 2. `nullify`: the referring rows get NULL in that column;
/// 3. `cascade`: the referring objects are removed in turn, with their own rules. When this
///    process knows their model class, they are read as objects, so their `willDelete` may
///    veto and their `didDelete` runs after the commit; otherwise their rows are removed.
///
/// Any failure rolls the savepoint back: nothing is removed or changed.
extension WriteTransaction {
    /// One removal still to do.
    private enum Doomed {
        /// The object the app asked to remove (its hook has run).
        case object(any Model, EntitySchema)
        /// A row a cascade reached.
        case row(EntitySchema, key: Value)

        var target: (EntitySchema, Value) {
            switch self {
            case .object(let object, let schema): return (schema, object.id.columnValue)
            case .row(let schema, let key): return (schema, key)
            }
        }
    }

    func deleteApplyingRules<M: Model>(_ object: M, schema: EntitySchema) throws {
        var pending: [Doomed] = [.object(object, schema)]
        var seen = Set<RowIdentity>()
        while let doomed = pending.popLast() {
            let (entity, key) = doomed.target
            guard seen.insert(RowIdentity(entity: entity.name, key: key)).inserted else { continue }
            for referrer in try store.referrers(of: entity.name, in: self) {
                let keys = try keys(of: referrer, referringTo: key)
                if keys.isEmpty { continue }
                switch referrer.rule {
                case .deny:
                    // A row that refers to itself does not keep itself alive.
                    if referrer.schema.name == entity.name && keys == [key] { continue }
                    throw SharkError.deleteDenied(entity: entity.name, referencedBy: referrer.name)
                case .nullify:
                    // The referrer's recorded schema, as the catalog holds it: no lookup per row.
                    let row = [Value](repeating: .null, count: referrer.schema.columns.count)
                    var columns = ColumnSet()
                    columns.insert(Int32(referrer.column))
                    for referring in keys {
                        try updateRow(withKey: referring, row: row, columns: columns, schema: referrer.schema)
                    }
                case .cascade:
                    for referring in keys { pending.append(.row(referrer.schema, key: referring)) }
                }
            }
            switch doomed {
            case .object(let object, let schema):
                try removeOpened(object, schema: schema)
            case .row(let schema, let key):
                try removeCascaded(schema, key: key)
            }
        }
    }

    /// The keys of the rows whose relationship column holds `key`.
    private func keys(of referrer: Referrer, referringTo key: Value) throws -> [Value] {
        var query = EntityQuery(entity: referrer.schema.name)
        query.predicate = .comparison(.equal, .column(referrer.schema.columns[referrer.column].name), .value(key))
        var keys: [Value] = []
        try writer.read(.query(query), schema: referrer.schema) { row in keys.append(row.value(at: 0)) }
        return keys
    }

    private func removeOpened<M: Model>(_ object: M, schema: EntitySchema) throws {
        try removeRow(of: object, state: object._$shark, schema: schema)
    }

    /// Removes a row a cascade reached: as an object of its model class when this process
    /// knows it (hooks and all), as a row otherwise.
    private func removeCascaded(_ schema: EntitySchema, key: Value) throws {
        if let type = store.modelTypes.withLock({ $0[schema.name] }) {
            try removeCascadedObject(of: type, key: key)
        } else {
            try deleteRow(withKey: key, schema: schema)
        }
    }

    private func removeCascadedObject<M: Model>(of type: M.Type, key: Value) throws {
        let schema = try store.preparedSchema(for: M.self)
        var found: M?
        try writer.read(.key(key), schema: schema) { row in
            let object = try M(_sharkRow: row)
            object._$shark = ModelState(readFrom: store)
            found = object
        }
        guard let object = found else { return }
        guard object.willDelete() else { throw SharkError.vetoed(entity: schema.name, operation: .delete) }
        try removeRow(of: object, state: object._$shark, schema: schema)
    }
}

/// A row, by entity and key: each is removed once however many paths reach it.
private struct RowIdentity: Hashable {
    let entity: String
    let key: Value
}

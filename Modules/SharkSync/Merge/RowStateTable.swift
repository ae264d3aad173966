import Foundation
@_spi(SharkReplication) import SharkORM

/// Where the row states (``RowState``) of one synced entity live: an entity of its own,
/// `SharkSyncState_<Entity>`, keyed like the entity (a 16-byte UUID, or the String key), with
/// two columns: the encoded state, and the arrival of the transaction that wrote it last
/// (indexed; see ``ArrivalLog``). Capture, import and export touch one state per changed row,
/// thousands per transaction, so they read and write these as plain rows, in bulk (one IN
/// query per 500 keys), never as model objects.
struct RowStateTable: Sendable {
    /// The synced entity.
    let entity: EntitySchema
    /// The entity of its states.
    let schema: EntitySchema

    static let prefix = "SharkSyncState_"

    /// `stampsArrivals` false: the states as a store written before arrivals records them,
    /// read as they are on a read-only store (which cannot add the column).
    init(for entity: EntitySchema, stampsArrivals: Bool = true) {
        self.entity = entity
        let key = entity.key
        let name = Self.prefix + entity.name
        var columns = [
            ColumnSchema(name: "id", type: key.type, isNullable: false, logicalType: key.logicalType),
            ColumnSchema(name: "state", type: .blob, isNullable: false),
        ]
        if stampsArrivals { columns.append(ColumnSchema(name: "arrival", type: .integer, isNullable: false)) }
        schema = EntitySchema(
            name: name, keyKind: entity.keyKind, columns: columns,
            indexes: stampsArrivals ? [IndexSchema(entity: name, columns: ["arrival"], isUnique: false)] : [],
            isClusteredByKey: true)
    }

    /// Whether the states carry their arrival.
    var stampsArrivals: Bool { schema.columns.count == 3 }

    /// A stored state, its columns named as the entity names them now: a column renamed
    /// since the state was written (`@Renamed(from:)`) keeps its version.
    func decode(_ data: Data, sites: SiteTable) throws -> RowState {
        var state = try sites.decode(data)
        guard !state.overrides.isEmpty else { return state }
        for column in entity.columns.dropFirst() {
            for previous in column.previousNames ?? [] {
                if let version = state.overrides.removeValue(forKey: previous), state.overrides[column.name] == nil {
                    state.overrides[column.name] = version
                }
            }
        }
        return state
    }

    /// The stored states of `keys` that have one, by key.
    func states(_ keys: some Collection<Value>, in store: Store) throws -> [RowKey: Data] {
        var found: [RowKey: Data] = [:]
        for row in try store.storedRows(of: schema, withKeys: keys) {
            found[RowKey(row[0])] = try Self.state(row)
        }
        return found
    }

    /// Every state, in no particular order.
    func allStates(in store: Store) throws -> [(key: Value, state: Data)] {
        try store.storedRows(of: schema, inKeyOrder: false).map { ($0[0], try Self.state($0)) }
    }

    private static func state(_ row: [Value]) throws -> Data {
        guard case .blob(let data) = row[1] else {
            throw SyncError.corrupt(.damagedMetadata, "a row state of the sync metadata is not a blob")
        }
        return data
    }

    /// Writes states, stamped with `arrival`: inserted for keys without one yet (`isNew`),
    /// else replaced.
    func write(_ states: [(key: Value, state: Data, isNew: Bool)], at arrival: Arrival, in tx: WriteTransaction)
        throws
    {
        var inserts: [[Value]] = []
        inserts.reserveCapacity(states.count)
        var column = ColumnSet()
        column.insert(1)
        column.insert(2)
        let stamp = Value.integer(arrival.number)
        for written in states {
            let row = [written.key, Value.blob(written.state), stamp]
            if written.isNew {
                inserts.append(row)
            } else {
                try tx.updateRow(withKey: written.key, row: row, columns: column, schema: schema)
            }
        }
        try tx.insertRows(inserts, schema: schema)
    }
}

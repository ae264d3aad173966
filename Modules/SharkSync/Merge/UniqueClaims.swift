import Foundation
@_spi(SharkReplication) import SharkORM

/// How sync keeps a synced model's unique indexes on every replica, by a rule that depends on
/// the merged rows alone, never on the order files arrive in.
///
/// Two replicas can each give a different row the same value of a unique index (the same
/// handle, the same one-to-one target). Once both rows are everywhere, each row still
/// *claims* its value (its merged columns say so), but only one can hold it:
///
/// - among the live rows claiming one value, the one whose claim is latest holds it. A claim's
///   version is the latest version among the row's values of the index's columns, compared by
///   timestamp, then site, then sequence (the causal length is left out: it counts one row's
///   removals, which says nothing against another row); equal claims go to the greater key;
/// - every other claimant keeps its row and its claim (in its sync state, exported as it is),
///   and holds a **stand-in** in one column of the index instead: NULL in the first optional
///   column, otherwise, in the first `String` (or `Data`) column, the claimed value followed
///   by U+001F and the row's key as text (for `Data`, those bytes). The stand-in is not a
///   write: it has no version and is never exported;
/// - when the holder lets the value go (changes it, or is removed) the next claimant takes
///   it back, on every replica, whether the holder changed here or elsewhere.
///
/// A local write always holds what it writes: its timestamp is later than any version this
/// replica has seen. And a local write that breaks the index still throws, as without sync.
struct UniqueClaims {
    /// One unique index of a synced entity, and where its stand-in goes.
    struct Index {
        let name: String
        /// The index's columns' positions in the entity's rows.
        let positions: [Int]
        /// The column that takes the stand-in, by its position in the rows.
        let standInPosition: Int
        let standIn: StandInKind
    }

    /// What a stand-in is for a column.
    enum StandInKind {
        case null
        case text
        case blob
    }

    let entity: EntitySchema
    let indexes: [Index]

    /// The unique indexes sync keeps for `entity` (nil when it has none), or the reason it
    /// cannot keep them.
    static func plan(for entity: EntitySchema) throws(SyncError) -> UniqueClaims? {
        var indexes: [Index] = []
        var used = Set<String>()
        for index in entity.indexes where index.isUnique {
            // An index over the key is unique whatever else it holds: nothing to contest.
            guard !index.columns.contains(entity.key.name) else { continue }
            if let shared = index.columns.first(where: used.contains) {
                throw SyncError.unsupportedModel(
                    entity: entity.name,
                    reason: "two of its unique indexes share the column \(shared); sync keeps each unique index "
                        + "by giving a losing row a stand-in in one column, which needs the indexes apart")
            }
            used.formUnion(index.columns)
            let columns = index.columns.map { name in entity.columns.firstIndex { $0.name == name }! }
            guard let (position, kind) = standIn(among: columns, of: entity) else {
                throw SyncError.unsupportedModel(
                    entity: entity.name,
                    reason: "its unique index on \(index.columns.joined(separator: ", ")) has no column that can hold "
                        + "a stand-in when two replicas claim the same value: make one of them optional, or add a "
                        + "String column to the index")
            }
            indexes.append(Index(name: index.name, positions: columns, standInPosition: position, standIn: kind))
        }
        return indexes.isEmpty ? nil : UniqueClaims(entity: entity, indexes: indexes)
    }

    /// The first optional column of the index; else its first plain `String`, else `Data`.
    private static func standIn(among positions: [Int], of entity: EntitySchema) -> (Int, StandInKind)? {
        if let optional = positions.first(where: { entity.columns[$0].isNullable }) { return (optional, .null) }
        func plain(_ type: StorageType, _ logical: LogicalType) -> Int? {
            positions.first { position in
                let column = entity.columns[position]
                return column.type == type && column.relationship == nil
                    && (column.logicalType == nil || column.logicalType == logical)
            }
        }
        if let text = plain(.text, .string) { return (text, .text) }
        if let blob = plain(.blob, .data) { return (blob, .blob) }
        return nil
    }

    /// The stand-in a row whose key is `key` holds in place of `claimed` in `index`.
    static func standIn(for claimed: Value, of index: Index, key: Value) -> Value {
        let keyText: String
        switch key {
        case .text(let text): keyText = text
        case .integer(let number): keyText = String(number)
        case .blob(let bytes) where bytes.count == 16:
            keyText = UUID(uuid: bytes.withUnsafeBytes { $0.loadUnaligned(as: uuid_t.self) }).uuidString
        case .blob(let bytes): keyText = hexadecimal(bytes)
        case .real(let number): keyText = String(number)
        case .null: keyText = ""
        }
        switch (index.standIn, claimed) {
        case (.text, .text(let text)): return .text(text + "\u{1F}" + keyText)
        case (.blob, .blob(let bytes)): return .blob(bytes + [0x1F] + Data(keyText.utf8))
        default: return .null
        }
    }

    /// The version of a row's claim on `index`: the latest of its columns' versions.
    func claimVersion(of state: RowState, on index: Index) -> ColumnVersion {
        index.positions.map { state.version(of: entity.columns[$0].name) }.max(by: { Self.precedes($0, $1) })!
    }

    /// The claim order: timestamp, then site, then sequence.
    static func precedes(_ a: ColumnVersion, _ b: ColumnVersion) -> Bool {
        if a.timestamp != b.timestamp { return a.timestamp < b.timestamp }
        if a.site != b.site { return SiteOrder.precedes(a.site, b.site) }
        return a.sequence < b.sequence
    }

    /// Whether the claim (`a`, of the row keyed `aKey`) loses to (`b`, `bKey`).
    static func loses(_ a: ColumnVersion, key aKey: Value, to b: ColumnVersion, key bKey: Value) -> Bool {
        if a.timestamp != b.timestamp || a.site != b.site || a.sequence != b.sequence { return precedes(a, b) }
        return aKey.encodedKey.lexicographicallyPrecedes(bKey.encodedKey)
    }
}

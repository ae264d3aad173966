import Foundation
@_spi(SharkReplication) import SharkORM

/// Values a file carried for an entity or a column this store does not have yet (a replica
/// a migration ahead wrote them), kept until a migration here adds it. One record per row,
/// merged by the same rule as rows, so replaying a file keeps nothing twice.
@Model(entity: "SharkSyncPending")
final class SyncPendingRecord {
    /// The entity and the key's tagged encoding, in hexadecimal.
    var id: String
    var entity: String = ""
    var key: Data = Data()
    /// The ``PendingRow``, encoded with site ids (it must outlive any site numbering).
    var change: Data = Data()

    init(id: String, entity: String, key: Data) {
        self.id = id
        self.entity = entity
        self.key = key
    }

    static func identifier(entity: String, key: Value) -> String {
        entity + "\u{1F}" + hexadecimal(key.encodedKey)
    }
}

/// What a pending record holds of one row: its causal length, the version of its removal
/// (for a removed row), and each kept column's value with its version and storage class.
struct PendingRow: Sendable {
    var causalLength: UInt64
    var removal: ColumnVersion?
    var values: [String: (version: ColumnVersion, value: Value)] = [:]
    /// The merge rule each kept value was written under, where it is not last-writer-wins:
    /// a value waits for a column of the same rule here (see ``MergePolicy``).
    var rules: [String: MergeRule] = [:]
    /// Every site whose changes of the row were kept here, whether their values still are or
    /// a later one superseded them: none is claimed while the record waits (``KeptThrough``).
    var origins = Set<UUID>()
    /// Sites whose kept value a merge dropped without joining it (two concurrent values of a
    /// resolver this store cannot join, a counter's totals replaced): claimed only when a
    /// peer sends them again, never from what was kept.
    var lost = Set<UUID>()

    /// Takes in another change of the same row: the higher causal length, each column's winner.
    mutating func merge(_ other: PendingRow) {
        if let theirs = other.removal, removal.map({ theirs.wins(over: $0) }) ?? true { removal = theirs }
        causalLength = max(causalLength, other.causalLength)
        origins.formUnion(other.origins)
        lost.formUnion(other.lost)
        for (column, incoming) in other.values {
            let rule = other.rules[column] ?? .lastWriterWins
            if let mine = values[column], rule != .lastWriterWins, (rules[column] ?? .lastWriterWins) == rule,
                let merged = Self.merge(incoming, into: mine, rule: rule)
            {
                if Self.areConcurrentResolutions(incoming.value, mine.value, rule: rule) {
                    lost.formUnion(Self.sites(of: incoming, rule: rule))
                    lost.formUnion(Self.sites(of: mine, rule: rule))
                }
                values[column] = merged
                continue
            }
            if let mine = values[column], !incoming.version.wins(over: mine.version) {
                lost.formUnion(Self.sites(of: incoming, rule: rule))
                continue
            }
            if let mine = values[column] {
                lost.formUnion(Self.sites(of: mine, rule: rules[column] ?? .lastWriterWins))
            }
            values[column] = incoming
            rules[column] = other.rules[column]
        }
    }

    /// The sites a value of a column with a policy that joins values holds (its writer's, a
    /// counter's totals, a resolver's contributions): what is lost when it is dropped
    /// instead of joined. None for a register (last writer, maximum, minimum), whose loser
    /// the winner makes obsolete everywhere.
    static func sites(of entry: (version: ColumnVersion, value: Value), rule: MergeRule) -> Set<UUID> {
        guard rule.namesSites else { return [] }
        var sites: Set<UUID> = [entry.version.site]
        switch rule {
        case .counter:
            for total in (try? CounterEntries.decode(entry.value)) ?? [] { sites.insert(total.site) }
        case .resolver(_):
            for contribution in (try? ResolvedValue.decode(entry.value))?.contributions ?? [] {
                sites.insert(contribution.site)
            }
        default:
            break
        }
        return sites
    }

    /// Whether two values of a resolver's column are concurrent (neither includes the
    /// other's writes): only the app's resolver joins them, so keeping one drops the other.
    private static func areConcurrentResolutions(_ one: Value, _ other: Value, rule: MergeRule) -> Bool {
        guard rule.isResolver, let first = try? ResolvedValue.decode(one), let second = try? ResolvedValue.decode(other)
        else { return false }
        return !ResolvedValue.covers(first.contributions, second.contributions)
            && !ResolvedValue.covers(second.contributions, first.contributions)
    }

    /// Two kept values of a column with a merge policy, merged by it as the store would
    /// merge them (a counter's totals site by site, the extreme of a maximum or minimum):
    /// keeping only the later would lose what the other holds. Nil when a counter's blob does
    /// not decode (the later one is kept, and its merge will say what is wrong).
    private static func merge(
        _ incoming: (version: ColumnVersion, value: Value), into mine: (version: ColumnVersion, value: Value),
        rule: MergeRule
    ) -> (version: ColumnVersion, value: Value)? {
        if incoming.version.causalLength != mine.version.causalLength {
            return incoming.version.causalLength > mine.version.causalLength ? incoming : mine
        }
        let later = incoming.version.wins(over: mine.version) ? incoming.version : mine.version
        switch rule {
        case .counter:
            guard let theirs = try? CounterEntries.decode(incoming.value),
                let ours = try? CounterEntries.decode(mine.value)
            else { return nil }
            return (later, CounterEntries.encode(CounterEntries.merge(ours, theirs)))
        case .maximum, .minimum:
            return RegisterOrder.wins(
                incoming.value, at: incoming.version, over: mine.value, at: mine.version, rule: rule)
                ? incoming : mine
        case .resolver:
            // The value that includes the other's writes; for concurrent ones (which only the
            // app's resolver could join, and this store may not have it) the later; the sites
            // of both are then noted as lost (``merge(_:)``), never claimed from what was
            // kept, so peers send the other again once the column merges here.
            guard let theirs = try? ResolvedValue.decode(incoming.value),
                let ours = try? ResolvedValue.decode(mine.value)
            else { return nil }
            if ResolvedValue.covers(ours.contributions, theirs.contributions) { return mine }
            if ResolvedValue.covers(theirs.contributions, ours.contributions) { return incoming }
            return incoming.version.wins(over: mine.version) ? incoming : mine
        case .lastWriterWins:
            return nil
        }
    }

    /// The row as a change of a log whose columns are `columns`.
    func rowChange(key: Value, columns: [String]) -> RowChange {
        var versions: [ColumnVersion] = [removal ?? values.values.first?.version ?? RowMerge.unknown]
        var changes: [ColumnChange] = []
        if causalLength % 2 == 1 {
            for (index, column) in columns.enumerated() {
                guard let (version, value) = values[column] else { continue }
                var position = versions.firstIndex(of: version)
                if position == nil {
                    versions.append(version)
                    position = versions.count - 1
                }
                changes.append(ColumnChange(column: index, version: position!, value: value))
            }
        }
        return RowChange(key: key, causalLength: causalLength, versions: versions, values: changes)
    }

    func encoded() -> Data {
        var writer = ByteWriter()
        writer.append(varint: causalLength)
        func append(_ version: ColumnVersion) {
            writer.append(varint: version.causalLength)
            writer.append(varint: version.timestamp)
            writer.append(uuid: version.site)
            writer.append(varint: version.sequence)
        }
        writer.append(byte: removal == nil ? 0 : 1)
        if let removal { append(removal) }
        writer.append(varint: values.count)
        for (column, entry) in values.sorted(by: { $0.key < $1.key }) {
            writer.append(string: column)
            append(entry.version)
            writer.append(value: entry.value)
        }
        // Only when some value has a rule: records kept before rules existed end here.
        let ruled = rules.filter { values[$0.key] != nil && $0.value != .lastWriterWins }
        guard !ruled.isEmpty || !origins.isEmpty || !lost.isEmpty else { return Data(writer.bytes) }
        writer.append(varint: ruled.count)
        for (column, rule) in ruled.sorted(by: { $0.key < $1.key }) {
            writer.append(string: column)
            writer.append(string: rule.rawValue)
        }
        // Then the sites, in records kept since sites were (``KeptThrough``).
        guard !origins.isEmpty || !lost.isEmpty else { return Data(writer.bytes) }
        for sites in [origins, lost] {
            writer.append(varint: sites.count)
            for site in sites.sorted(by: { $0.uuidString < $1.uuidString }) { writer.append(uuid: site) }
        }
        return Data(writer.bytes)
    }

    init(causalLength: UInt64, removal: ColumnVersion?) {
        self.causalLength = causalLength
        self.removal = removal
    }

    init(decoding data: Data) throws(SyncError) {
        var reader = ByteReader(Array(data), context: "pending sync values", isMetadata: true)
        func version() throws(SyncError) -> ColumnVersion {
            ColumnVersion(
                causalLength: try reader.varint(), timestamp: try reader.varint(), site: try reader.uuid(),
                sequence: try reader.varint())
        }
        causalLength = try reader.varint()
        removal = try reader.byte() == 1 ? try version() : nil
        for _ in 0..<(try reader.count(limit: reader.remaining)) {
            let column = try reader.string()
            let columnVersion = try version()
            values[column] = (columnVersion, try reader.value())
        }
        guard !reader.isAtEnd else { return }
        for _ in 0..<(try reader.count(limit: reader.remaining)) {
            let column = try reader.string()
            // A rule this release does not know stays unknown: the value never fits here.
            let name = try reader.string()
            guard let rule = MergeRule(rawValue: name) else {
                throw reader.corrupt("pending values name an unknown merge rule \(name)", kind: .damagedMetadata)
            }
            rules[column] = rule
        }
        guard !reader.isAtEnd else { return }
        for _ in 0..<(try reader.count(limit: reader.remaining)) { origins.insert(try reader.uuid()) }
        for _ in 0..<(try reader.count(limit: reader.remaining)) { lost.insert(try reader.uuid()) }
    }

    /// The part of `row` (whose columns are named `names`, merged by `columnRules`) at the
    /// columns `keep` selects.
    init(_ row: RowChange, names: [String], columnRules: [MergeRule], keeping keep: (Int) -> Bool) {
        causalLength = row.causalLength
        removal = row.isRemoval ? row.versions[0] : nil
        // Every version of the row, kept or applied: a row of an entity not here keeps no
        // version when it has no column but its key.
        origins = Set(row.versions.map(\.site))
        for change in row.values where keep(change.column) {
            values[names[change.column]] = (row.versions[change.version], change.value)
            if columnRules[change.column] != .lastWriterWins {
                rules[names[change.column]] = columnRules[change.column]
            }
            origins.formUnion(
                Self.sites(of: (row.versions[change.version], change.value), rule: columnRules[change.column]))
        }
        origins.remove(RowMerge.unknown.site)
    }
}

extension SyncEngine {
    /// Whether the store keeps values it cannot apply yet (an entity or a column a migration
    /// will add): its content is then not what its vector says, so it compares no digest,
    /// and a hub client neither uploads nor verifies a snapshot from it.
    package func keepsPendingValues() async throws -> Bool {
        try await store.read { snapshot in
            !(try snapshot.fetch(SyncPendingRecord.query(in: self.store).limit(1)).isEmpty)
        }
    }

    /// Keeps `rows` of `entity` (named by `names`) for later, merged into what is kept already.
    /// Returns the sites whose values the merges dropped (``PendingRow/lost``): the import
    /// must not note them as received.
    @discardableResult
    func keepPending(_ rows: [(key: Value, row: PendingRow)], entity: String, in tx: WriteTransaction) throws
        -> Set<UUID>
    {
        var lost = Set<UUID>()
        var records: [SyncPendingRecord] = []
        for (key, row) in rows {
            let id = SyncPendingRecord.identifier(entity: entity, key: key)
            var merged = row
            let record: SyncPendingRecord
            if let stored = try tx.find(SyncPendingRecord.self, id: id) {
                var kept = try PendingRow(decoding: stored.change)
                kept.merge(row)
                merged = kept
                record = stored
            } else {
                record = SyncPendingRecord(id: id, entity: entity, key: Data(key.encodedKey))
            }
            record.change = merged.encoded()
            records.append(record)
            lost.formUnion(merged.lost)
        }
        try tx.writingBookkeeping { try tx.commit(records) }
        return lost
    }

    /// Applies what was kept for entities and columns this store now has (a migration added
    /// them since), as an import: with origin "imported", merged by the usual rule. Then
    /// claims in the vector the sites received beyond it whose values are all applied now
    /// (``KeptThrough``).
    func applyPending() throws {
        try store.write { tx in
            let records = try tx.fetch(SyncPendingRecord.query(in: store).orderBy(\.id))
            let keptThrough = try KeptThrough.records(in: tx, of: self)
            // The sites of what stays kept: their changes are not all applied.
            var stillKept = Set<UUID>()
            var byEntity: [String: [(record: SyncPendingRecord, key: Value, row: PendingRow)]] = [:]
            for record in records {
                guard let table = tables[record.entity] else {
                    if !keptThrough.isEmpty { stillKept.formUnion(try PendingRow(decoding: record.change).sites) }
                    continue
                }
                var reader = ByteReader(Array(record.key), context: "pending sync values", isMetadata: true)
                byEntity[table.entity.name, default: []].append(
                    (record, try reader.value(), try PendingRow(decoding: record.change)))
            }
            // The sites of values a merge dropped from what was applied: never claimed from it.
            var lost = Set<UUID>()
            if !byEntity.isEmpty {
                let applied = try applyPending(byEntity, in: tx)
                stillKept.formUnion(applied.stillKept)
                lost = applied.lost
            }
            guard !keptThrough.isEmpty else { return }
            var sites = SiteTable(try tx.fetch(SyncSiteRecord.query(in: store)))
            try KeptThrough.claim(keptThrough, except: stillKept, forgetting: lost, into: &sites, in: tx)
        }
    }

    /// Applies the values of `byEntity` that fit this store now, and keeps the rest; returns
    /// the sites of what it kept, and the sites whose values the rows it applied had lost.
    private func applyPending(
        _ byEntity: [String: [(record: SyncPendingRecord, key: Value, row: PendingRow)]], in tx: WriteTransaction
    ) throws -> (stillKept: Set<UUID>, lost: Set<UUID>) {
        var entities: [ChangeLogEntity] = []
        var stillKept = Set<UUID>()
        var lost = Set<UUID>()
        var finished: [SyncPendingRecord] = []
        var kept: [SyncPendingRecord] = []
        for (name, rows) in byEntity.sorted(by: { $0.key < $1.key }) {
            let schema = tables[name]!.entity
            let rules = mergeRules[name] ?? [:]
            let columns = schema.columns.dropFirst().map {
                ChangeLogColumn(name: $0.name, type: $0.type, rule: rules[$0.name] ?? .lastWriterWins)
            }
            let names = columns.map(\.name)
            // The column a kept value goes to here: of its name, or renamed from it since (a
            // migration that added the column and one that renamed it, both after the file).
            func local(_ column: String) -> ColumnSchema? {
                let here = schema.columns.dropFirst()
                return here.first { $0.name == column } ?? here.first { $0.previousNames?.contains(column) == true }
            }
            var changes: [RowChange] = []
            for (record, key, row) in rows {
                // What still does not fit (a column not here, of another storage class, or
                // merged by another rule) stays kept.
                func fits(_ column: String, _ value: Value) -> Bool {
                    guard let here = local(column) else { return false }
                    let rule = row.rules[column] ?? .lastWriterWins
                    guard rule == (rules[here.name] ?? .lastWriterWins) else { return false }
                    // A counter's totals, a resolver's envelope: decoded when merged; a resolver's
                    // only by an engine that has the app's function, and when its value fits.
                    if rule.namesSites {
                        if let resolver = rule.resolver, resolver.join == nil { return false }
                        return ChangeLogImport.envelopeFits(value, rule: rule, column: here)
                    }
                    return here.fitting(value) != nil
                }
                var applicable = row
                applicable.values = [:]
                applicable.rules = [:]
                for (column, entry) in row.values where fits(column, entry.value) {
                    let name = local(column)!.name
                    applicable.values[name] = entry
                    applicable.rules[name] = row.rules[column]
                }
                changes.append(applicable.rowChange(key: key, columns: names))
                var rest = row
                rest.values = row.values.filter { !fits($0.key, $0.value.value) }
                rest.rules = row.rules.filter { rest.values[$0.key] != nil }
                if rest.values.isEmpty {
                    finished.append(record)
                    lost.formUnion(row.lost)
                } else {
                    record.change = rest.encoded()
                    kept.append(record)
                    stillKept.formUnion(rest.sites)
                }
            }
            entities.append(ChangeLogEntity(name: name, keyKind: schema.keyKind, columns: columns, rows: changes))
        }
        let log = ChangeLog(
            fileID: UUID(), source: site, lineage: lineage, since: VersionVector(), vector: VersionVector(),
            entities: entities)
        _ = try apply(log, in: tx, takingEqual: true)
        try tx.writingBookkeeping {
            for record in finished { try tx.remove(record) }
            try tx.commit(kept)
        }
        return (stillKept, lost)
    }
}

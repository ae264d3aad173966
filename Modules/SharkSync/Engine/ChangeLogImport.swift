import Foundation
@_spi(SharkReplication) import SharkORM

/// One change log applied to a store, inside the import's transaction, frame by frame so that
/// a file of millions of rows is never held whole: for each frame, its rows fitted to this
/// store's columns (what does not fit kept for later), what this store has of them looked
/// up, then merged and written with their row states (as bookkeeping); finally the source's
/// vector claimed where the file was complete, and the sites written.
struct ChangeLogImport {
    let engine: SyncEngine
    /// The file's header: its entities (without rows), vectors and source.
    let log: ChangeLog
    /// How many rows the file holds of each entity.
    let expectedRows: [Int]
    let tx: WriteTransaction
    /// Whether an incoming value whose version equals the stored one replaces it (a replay
    /// that must rewrite values, as after a migration).
    let takingEqual: Bool
    private var sites: SiteTable
    /// The arrival the import's states are stamped with: its cover takes every version of the
    /// file, applied or kept for later.
    private let arrival: Arrival
    private let local: SyncSiteRecord
    private var clock: HybridLogicalClock
    private var summary = SyncImportSummary()
    /// Sites with changes in the file this store could not apply: its vector must not claim them.
    private var incomplete = Set<UUID>()
    /// How far this store received the sites whose changes it keeps for a migration, by site
    /// (see ``KeptThrough``); the records this import changed.
    private var kept: [UUID: SyncKeptRecord]
    private var keptChanged: [SyncKeptRecord] = []
    /// Sites whose kept values a merge with what was kept before dropped (``PendingRow/lost``):
    /// not noted as received, and their records forgotten.
    private var lost = Set<UUID>()
    /// This replica's vector before the import: what it had seen (see ``ConflictDetector``).
    private let vectorBefore: VersionVector
    /// What the first frame of each entity of the file settled, by the entity's index.
    private var started: [Int: EntityStart] = [:]
    /// The unique values of the entities written so far, by entity (see ``ClaimResolver``).
    private var resolvers: [String: ClaimResolver] = [:]

    /// How an entity's frames are applied, settled at its first frame.
    private struct EntityStart {
        let mapping: ColumnMapping
        /// The store held no row of the entity (a new device): nothing to look up.
        let isFirst: Bool
        /// The entity's batched states were all folded at its first frame (a file of many
        /// frames of it); otherwise each frame moves only its own keys out of their batches.
        let foldedWhole: Bool
        /// The file's columns whose values were kept for later.
        var skipped = Set<Int>()
    }

    init(
        _ log: ChangeLog, expectedRows: [Int], into engine: SyncEngine, in tx: WriteTransaction, takingEqual: Bool
    ) throws {
        self.engine = engine
        self.log = log
        self.expectedRows = expectedRows
        self.tx = tx
        self.takingEqual = takingEqual
        try tx.attributeChanges(to: .imported(log.source.uuidString))
        sites = SiteTable(try tx.fetch(SyncSiteRecord.query(in: engine.store)))
        guard let local = sites.local else {
            throw SyncError.misuse(.noLocalSite, "the store's sync metadata has no local site")
        }
        self.local = local
        kept = Dictionary(
            try KeptThrough.records(in: tx, of: engine).map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        vectorBefore = engine.onConflict == nil ? VersionVector() : sites.vector
        clock = HybridLogicalClock(last: UInt64(local.clock))
        arrival = try ArrivalLog.begin(in: tx, sites: sites, filters: engine.filters)
    }

    /// Applies the rows of one frame, of the file's entity number `entityIndex`.
    mutating func apply(_ rows: [RowChange], ofEntity entityIndex: Int) throws {
        var entity = log.entities[entityIndex]
        entity.rows = rows
        for row in rows {
            for version in row.versions {
                clock.receive(version.timestamp)
                arrival.note(version)
            }
        }
        // A counter's totals and a resolver's contributions name sites of their own (the
        // other sites' earlier writes): the arrival covers them too, or an export since a
        // vector that covers it could skip a total the peer lacks.
        if entity.columns.contains(where: { $0.rule.namesSites }) {
            for row in rows {
                for site in Self.policySites(of: row, in: entity) {
                    arrival.note(site: site.site, sequence: site.sequence)
                }
            }
        }
        // An entity this store does not sync (yet), or whose key kind differs here.
        guard let table = engine.tables[entity.name], table.entity.keyKind == entity.keyKind else {
            if started[entityIndex] == nil {
                summary.skippedEntities.append(entity.name)
                started[entityIndex] = EntityStart(
                    mapping: ColumnMapping(entity, in: nil, rules: [:]), isFirst: false, foldedWhole: false)
            }
            try keepUnsynced(entity)
            return
        }
        var start = try started[entityIndex] ?? self.start(entity, of: table, index: entityIndex)
        let applicable = try fitted(entity, schema: table.entity, start: &start)
        started[entityIndex] = start
        try mergeAndWrite(applicable, of: table, start: start)
    }

    /// What an entity's first frame settles: where the file's columns are here, whether the
    /// store holds any of it, and whether its batched states are folded now, all at once.
    private func start(_ entity: ChangeLogEntity, of table: RowStateTable, index: Int) throws -> EntityStart {
        let store = engine.store
        let isFirst = try !store.hasRows(of: table.schema) && !store.hasRows(of: table.entity)
        // A file of many frames of the entity folds its batches once; one of a single frame
        // moves only its keys out of them (see `foldBatches(holding:at:in:)`).
        let foldsWhole = !isFirst && expectedRows[index] > ChangeLogFormat.rowsPerFrame
        if foldsWhole { _ = try tx.writingBookkeeping { try table.foldBatches(at: arrival, in: tx) } }
        return EntityStart(
            mapping: ColumnMapping(entity, in: table.entity, rules: engine.mergeRules[table.entity.name] ?? [:]),
            isFirst: isFirst, foldedWhole: foldsWhole)
    }

    /// Claims the source's vector where the file was complete, writes the sites, and tells
    /// what the import did.
    mutating func finish() throws -> SyncImportSummary {
        for name in resolvers.keys.sorted() { try resolvers[name]!.resolveContested(sites: sites) }
        for index in log.entities.indices {
            guard let start = started[index], !start.skipped.isEmpty else { continue }
            summary.skippedColumns += start.skipped.sorted().map {
                "\(log.entities[index].name).\(start.mapping.names[$0])"
            }
        }
        claimSourceVector()
        try ArrivalLog.record(arrival, sites: &sites, in: tx)
        let forgotten = lost.compactMap { kept[$0] }
        try tx.writingBookkeeping {
            try tx.commit(sites.records)
            if !keptChanged.isEmpty { try tx.commit(keptChanged) }
            for record in forgotten { try tx.remove(record) }
        }
        return summary
    }

    /// The sites (and sequences) a row's counter totals and resolver contributions name,
    /// with `only` the columns to look at (all by default). A blob that does not decode names
    /// none: merging it throws.
    private static func policySites(of row: RowChange, in entity: ChangeLogEntity, only: ((Int) -> Bool)? = nil)
        -> [(site: UUID, sequence: UInt64)]
    {
        var sites: [(site: UUID, sequence: UInt64)] = []
        for change in row.values where only?(change.column) != false {
            switch entity.columns[change.column].rule {
            case .counter:
                guard let entries = try? CounterEntries.decode(change.value) else { continue }
                for entry in entries { sites.append((entry.site, entry.sequence)) }
            case .resolver:
                guard let resolved = try? ResolvedValue.decode(change.value) else { continue }
                for entry in resolved.contributions { sites.append((entry.site, entry.sequence)) }
            default:
                continue
            }
        }
        return sites
    }

    /// Whether a value of a column with a policy fits its column here as it is: a counter's
    /// totals always do (their sum is an integer); a resolver's value must, as any value must
    /// (kept for later otherwise, never converted). A blob that does not decode is left to the
    /// merge, which says what is wrong.
    static func envelopeFits(_ value: Value, rule: MergeRule, column: ColumnSchema?) -> Bool {
        guard rule.isResolver, let column, let inner = try? ResolvedValue.decode(value).value else { return true }
        guard let fitted = column.fitting(inner) else { return false }
        return fitted.storageType == inner.storageType
    }

    /// Keeps the rows of an entity this store does not sync until a migration makes it
    /// match; this store does not claim their sites meanwhile.
    private mutating func keepUnsynced(_ entity: ChangeLogEntity) throws {
        for row in entity.rows {
            for version in row.versions { incomplete.insert(version.site) }
            for site in Self.policySites(of: row, in: entity) { incomplete.insert(site.site) }
        }
        let names = entity.columns.map(\.name)
        let rows = entity.rows.map {
            ($0.key, PendingRow($0, names: names, columnRules: entity.columns.map(\.rule), keeping: { _ in true }))
        }
        lost.formUnion(try engine.keepPending(rows, entity: entity.name, in: tx))
    }

    /// Where the file's columns sit in this store's rows.
    private struct ColumnMapping {
        /// This store's name of each of the file's columns.
        let names: [String]
        /// Each of the file's columns' position in this store's rows (nil: not here).
        let positions: [Int?]
        let columns: [ColumnSchema?]
        /// Whether each of the file's columns merges here by a policy whose file value is an
        /// envelope (a counter's totals, a resolver's contributions and value), not a value of
        /// the column's storage class.
        let isEnvelope: [Bool]
        /// The names of this store's columns, the key left out.
        let here: Set<String>

        /// `schema` nil: an entity this store does not sync (its columns are nowhere here). A
        /// column whose merge rule here (`rules`) is not the file's is nowhere here either: its
        /// values are kept, never merged by another rule (a policy change is a new column).
        init(_ entity: ChangeLogEntity, in schema: EntitySchema?, rules: [String: MergeRule]) {
            guard let schema else {
                here = []
                names = entity.columns.map(\.name)
                positions = names.map { _ in nil }
                columns = positions.map { _ in nil }
                isEnvelope = positions.map { _ in false }
                return
            }
            here = Set(schema.columns.dropFirst().map(\.name))
            let names = entity.columns.map { SyncEngine.localName(of: $0, in: schema) ?? $0.name }
            let positions = names.map { name in
                schema.columns.indices.dropFirst().first { schema.columns[$0].name == name }
            }
            self.names = names
            self.positions = positions
            columns = zip(positions, zip(names, entity.columns)).map { position, column in
                guard let position, (rules[column.0] ?? .lastWriterWins) == column.1.rule else { return nil }
                return schema.columns[position]
            }
            isEnvelope = zip(columns, entity.columns).map { $0 != nil && $1.rule.namesSites }
        }
    }

    /// The file's rows as this store can hold them. Values it cannot hold as they are (a
    /// column it does not have, one whose storage class differs here, a NULL where it allows
    /// none: a migration elsewhere changed it) are kept for later, never converted (a
    /// converted value re-exported under its original version would make replicas
    /// disagree); the rest merges now. The file's rows are used as they are until one needs
    /// changing: then a copy with the changed ones.
    private mutating func fitted(_ entity: ChangeLogEntity, schema: EntitySchema, start: inout EntityStart) throws
        -> ArraySlice<RowChange>
    {
        let mapping = start.mapping
        var adjusted: [RowChange]?
        var kept: [(key: Value, row: PendingRow)] = []
        var skipped = Set<Int>()
        for (index, row) in entity.rows.enumerated() {
            // Most rows fit as they are: they are used without a copy.
            let fitsAsItIs = row.values.allSatisfy { change in
                // A counter's totals, a resolver's envelope: decoded when merged.
                if mapping.isEnvelope[change.column] {
                    return Self.envelopeFits(
                        change.value, rule: entity.columns[change.column].rule, column: mapping.columns[change.column])
                }
                // Spelled out: `storageType` is nil for NULL, so a NULL that does not fit
                // (nil) must not compare equal to a NULL as it is.
                guard let fitted = mapping.columns[change.column]?.fitting(change.value) else { return false }
                return fitted.storageType == change.value.storageType
            }
            guard !fitsAsItIs else {
                adjusted?.append(row)
                continue
            }
            if adjusted == nil { adjusted = Array(entity.rows[..<index]) }
            var usable = row
            usable.values.removeAll(keepingCapacity: true)
            var keptColumns = Set<Int>()
            for change in row.values {
                if mapping.isEnvelope[change.column],
                    Self.envelopeFits(
                        change.value, rule: entity.columns[change.column].rule, column: mapping.columns[change.column])
                {
                    usable.values.append(change)
                } else if !mapping.isEnvelope[change.column], let column = mapping.columns[change.column],
                    let value = column.fitting(change.value)
                {
                    usable.values.append(ColumnChange(column: change.column, version: change.version, value: value))
                } else {
                    keptColumns.insert(change.column)
                    incomplete.insert(row.versions[change.version].site)
                }
            }
            if !keptColumns.isEmpty {
                // A kept counter's totals (resolver's contributions) name sites of their own:
                // not claimed either.
                for site in Self.policySites(of: row, in: entity, only: keptColumns.contains) {
                    incomplete.insert(site.site)
                }
                skipped.formUnion(keptColumns)
                kept.append(
                    (
                        row.key,
                        PendingRow(
                            row, names: mapping.names, columnRules: entity.columns.map(\.rule),
                            keeping: keptColumns.contains)
                    ))
            }
            adjusted?.append(usable)
        }
        start.skipped.formUnion(skipped)
        if !kept.isEmpty { lost.formUnion(try engine.keepPending(kept, entity: schema.name, in: tx)) }
        return adjusted.map { $0[...] } ?? entity.rows[...]
    }

    /// Merges every incoming row with what this store has of it and writes the outcome. A
    /// damaged or crafted file may name a row twice (the second merges into the first's
    /// outcome): then rows are matched by key and written once all are merged.
    private mutating func mergeAndWrite(
        _ applicable: ArraySlice<RowChange>, of table: RowStateTable, start: EntityStart
    ) throws {
        let schema = table.entity
        let mapping = start.mapping
        let isFirst = start.isFirst
        // What this store has of these rows: their states and whether they are stored. A
        // replica's first import of an entity (a new device) has nothing to look up.
        let store = engine.store
        let keys = isFirst ? [] : applicable.map(\.key)
        if !isFirst, !start.foldedWhole {
            _ = try tx.writingBookkeeping { try table.foldBatches(holding: keys, at: arrival, in: tx) }
        }
        let stored = isFirst ? [:] : try table.states(keys, in: store)
        // Rows the store has, by key: their values only where unique values are kept or
        // conflicts are looked for.
        var storedRows: [RowKey: [Value]] = [:]
        let resolver = try self.resolver(of: table)
        let detector = isFirst ? nil : conflictDetector(for: schema)
        if !isFirst {
            let readsValues = resolver != nil || detector != nil
            for row in try store.storedRows(of: schema, withKeys: keys) {
                storedRows[RowKey(row[0])] = readsValues ? row : []
            }
        }

        let merger = ImportedRows(
            schema: schema, names: mapping.names, positions: mapping.positions, here: mapping.here,
            rules: engine.mergeRules[schema.name] ?? [:])
        var writer = ImportedRowWriter(schema: schema, expectedRows: applicable.count)
        var rowOf: [RowKey: Int]? = RowKey.areDistinct(applicable.lazy.map(\.key)) ? nil : [:]
        var held: [ImportedRow] = []
        for row in applicable {
            let rowKey = rowOf == nil && isFirst ? nil : RowKey(row.key)
            if let rowKey, let index = rowOf?[rowKey] {
                if try merger.merge(row, into: &held[index], takingEqual: takingEqual) {
                    summary.rowsApplied += 1
                } else {
                    summary.rowsUnchanged += 1
                }
                continue
            }
            let isPresent = rowKey.map { storedRows[$0] != nil } ?? false
            var storedState: RowState?
            if let rowKey, let data = stored[rowKey] { storedState = try table.decode(data, sites: sites) }
            let merged = try merger.row(row, storedState: storedState, isPresent: isPresent, takingEqual: takingEqual)
            if let detector, let storedState {
                detector.detect(
                    row, names: mapping.names, before: storedState, stored: rowKey.flatMap { storedRows[$0] },
                    after: merged?.state ?? storedState)
            }
            guard var imported = merged else {
                summary.rowsUnchanged += 1
                continue
            }
            summary.rowsApplied += 1
            if let rowKey, rowOf != nil {
                rowOf![rowKey] = held.count
                held.append(imported)
            } else {
                if let resolver { try settle(&imported, by: resolver, stored: rowKey.flatMap { storedRows[$0] }) }
                try writer.write(imported, sites: &sites, in: tx)
            }
        }
        for var row in held {
            if let resolver { try settle(&row, by: resolver, stored: storedRows[RowKey(row.key)]) }
            try writer.write(row, sites: &sites, in: tx)
        }
        if writer.removes { try SyncEngine.noteTombstones(of: table.entity.name, in: tx) }
        do {
            try tx.insertRows(writer.inserts, schema: schema)
        } catch SharkError.uniqueConstraint where isFirst {
            // Into an entity that was empty, only a key the file names in two frames collides.
            throw SyncError.corrupt(.malformedContent, "the change log names a row of \(schema.name) in two frames")
        }
        resolver?.rowsWritten()
        let (states, batches) = writer.metadata(smallestBatch: RowStateTable.smallestBatch)
        try tx.writingBookkeeping {
            try table.write(states, at: arrival, in: tx)
            for batch in batches { try table.writeBatch(batch.keys, state: batch.state, at: arrival, in: tx) }
        }
    }

    /// The resolver of `table`'s entity's unique values, made on first use; nil when it has none.
    private mutating func resolver(of table: RowStateTable) throws -> ClaimResolver? {
        let name = table.entity.name
        if let known = resolvers[name] { return known }
        guard let claims = engine.uniqueClaims[name] else { return nil }
        let resolver = try ClaimResolver(claims, table: table, arrival: arrival, in: tx)
        if let report = engine.onConflict {
            resolver.onLoss = { key, columns, values, holder in
                report(
                    SyncConflict(
                        kind: .uniqueValueLost, entity: name, key: key, column: columns.joined(separator: ","),
                        localValue: values.count == 1 ? values[0] : nil, holder: holder, uniqueValues: values))
            }
        }
        resolvers[name] = resolver
        return resolver
    }

    /// What looks for conflicts in the rows of `schema`, when the app asked for them.
    private func conflictDetector(for schema: EntitySchema) -> ConflictDetector? {
        guard let report = engine.onConflict else { return nil }
        return ConflictDetector(
            entity: schema.name, schema: schema, rules: engine.mergeRules[schema.name] ?? [:],
            senderVector: log.vector, localVector: vectorBefore, report: report)
    }

    /// Gives `row` the values its unique indexes leave it (see ``ClaimResolver/settle``):
    /// `stored` is the row the store has (nil: none).
    private func settle(_ row: inout ImportedRow, by resolver: ClaimResolver, stored: [Value]?) throws {
        var after = row.values
        if let stored, row.isPresent {
            after = stored
            for column in 0..<after.count where row.written.contains(Int32(column)) {
                after[column] = row.values[column]
            }
        }
        let overrides = try resolver.settle(
            key: row.key, exists: row.state.exists, written: row.isPresent ? row.written : nil, after: after,
            stored: row.isPresent ? stored : nil)
        for (column, value) in overrides {
            row.values[column] = value
            row.written.insert(Int32(column))
        }
    }

    /// Claims the source's vector only for sites whose every change beyond what this store
    /// had is in the file: the file holds all of a site's changes past `since`, so a store
    /// that had at least `since` of it has them all now. A site the file continues but this
    /// store cannot claim (some of its changes kept for a migration, here or by an earlier
    /// file) is noted as received that far instead (``KeptThrough``).
    private mutating func claimSourceVector() {
        let had = sites.vector
        for (site, sequence) in log.vector.entries where site != engine.site {
            let keptThrough = UInt64(max(0, kept[site]?.through ?? 0))
            if !incomplete.contains(site), had[site] >= log.since[site] {
                guard sequence > had[site] else { continue }
                _ = sites.number(of: site)
                sites.record(of: site)?.seen = Int64(clamping: sequence)
            } else if !lost.contains(site), max(had[site], keptThrough) >= log.since[site],
                sequence > max(had[site], keptThrough)
            {
                let record = kept[site] ?? SyncKeptRecord(id: site, through: 0)
                record.through = Int64(clamping: sequence)
                kept[site] = record
                keptChanged.append(record)
            }
        }
        local.clock = Int64(clamping: clock.last)
    }
}

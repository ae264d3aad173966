import Foundation
@_spi(SharkReplication) import SharkORM

/// Sync for one store: captures every change to the synced models inside its transaction,
/// exports what changed as a compressed change-log file, and imports files from other
/// replicas, which converge whatever the order, duplicates or gaps of the files they get.
///
/// Create it right after opening the store, before writing: changes made while no engine is
/// attached are not captured. One engine per store.
///
/// ```swift
/// let store = try Store(.sqlite(path: "notes.sqlite"))
/// let sync = try SyncEngine(store: store, lineage: "com.example.notes", models: [Note.self, Folder.self])
/// try store.commit(Note(text: "hello"))
///
/// let file = try sync.exportChanges()                 // everything, or since a peer's vector
/// try file.write(to: URL(fileURLWithPath: "notes.sharklog"))
/// try otherSync.importChanges(from: file)              // on the other machine
/// ```
///
/// The merge rules (docs/sync.md): each column of each row is last-writer-wins on a hybrid
/// logical clock, with the site id as tie-break; removals are tombstones with a causal length,
/// so a removal, a re-insertion and updates of either incarnation merge the same way in any
/// order; imports are atomic and idempotent.
public final class SyncEngine: Sendable {
    /// The store whose changes this engine captures and applies.
    public let store: Store
    /// The name of the app database this store belongs to: only files of the same lineage
    /// import. Replicas a migration apart share it.
    public let lineage: String
    /// This replica's id.
    public let site: UUID
    /// The synced entities here, by name.
    let schemas: [String: EntitySchema]
    let capture: ChangeCapture
    /// The batch index's filters, kept between commits (see ``BatchFilterCache``).
    let filters = BatchFilterCache()
    /// Where each synced entity's row states live, by entity name.
    let tables: [String: RowStateTable]
    /// Whether the store has a tombstone horizon table (see ``TombstoneHorizon``): always,
    /// but on a read-only store that synced before horizons existed.
    let recordsHorizon: Bool
    /// The unique indexes sync keeps, by entity name (see ``UniqueClaims``).
    let uniqueClaims: [String: UniqueClaims]
    /// The columns that merge by a policy other than last-writer-wins (``MergePolicy``), by
    /// entity then column: declared by the models, or as the store recorded them.
    let mergeRules: [String: [String: MergeRule]]
    /// Whether the store has a stand-in table (see ``SyncStandInRecord``): always, but on a
    /// read-only store that synced before unique indexes could.
    let recordsStandIns: Bool
    /// Whether the store has a table of sites received beyond its vector (see
    /// ``KeptThrough``): always, but on a read-only store that synced before it existed.
    let recordsKept: Bool
    /// Where imports report conflicts (``SyncOptions/onConflict``); nil: they look for none.
    let onConflict: (@Sendable (SyncConflict) -> Void)?

    /// The entity of the sites and the version vector.
    static let siteEntity = "SharkSyncSite"
    /// The entity of values kept for entities and columns this store does not have yet.
    static let pendingEntity = "SharkSyncPending"

    /// Enables sync of `models` on `store`. Throws ``SyncError/unsupportedModel(entity:reason:)``
    /// for a model that cannot converge: an `Int64` key whose assignment the options do not
    /// name (see ``IntegerKeyAssignment``), a relationship to a model that is not synced, a
    /// unique index with no column that can hold a stand-in (no optional, `String` or `Data`
    /// column; see docs/sync.md, "Unique values"), or two unique indexes sharing a column.
    ///
    /// ```swift
    /// let sync = try SyncEngine(store: store, lineage: "com.example.notes", models: [Note.self])
    /// ```
    public convenience init(
        store: Store, lineage: String, models: [any Model.Type], options: SyncOptions = SyncOptions()
    ) throws {
        guard !lineage.isEmpty else { throw SyncError.misuse(.emptyLineage, "a sync lineage needs a name") }
        var schemas: [EntitySchema] = []
        var rules: [String: [String: MergeRule]] = [:]
        for model in models {
            let schema = try store.prepare(model)
            try Self.check(schema)
            if !schemas.contains(where: { $0.name == schema.name }) { schemas.append(schema) }
            if let merging = model as? any SyncMerging.Type {
                let declared = try merging.mergeRules()
                try Self.checkRules(declared, of: schema)
                if !declared.isEmpty { rules[schema.name] = declared }
            }
        }
        try Self.checkReferences(schemas)
        try Self.checkIntegerKeys(schemas, of: store, options: options)
        try self.init(store: store, lineage: lineage, schemas: schemas, options: options, rules: rules)
    }

    /// Opens sync on a store where it was enabled before, from what the store recorded alone:
    /// its lineage, its site, the synced entities and their schemas. No model type is needed:
    /// the command line imports and exports this way. Throws ``SyncError/misuse(_:)`` for a
    /// store that never synced.
    ///
    /// ```swift
    /// let store = try Store(.sqlite(path: "notes.sqlite"))
    /// let sync = try SyncEngine(recordedIn: store)
    /// try sync.importChanges(from: file)
    /// ```
    public convenience init(recordedIn store: Store, options: SyncOptions = SyncOptions()) throws {
        let recorded = try store.recordedSchemas()
        let names = Set(recorded.map(\.name))
        guard names.contains(Self.siteEntity) else {
            throw SyncError.misuse(.neverSynced, "this store has never synced: open it with the models to sync")
        }
        let local = SiteTable(try SyncSiteRecord.query(in: store).fetch()).local
        guard let lineage = local?.lineage, !lineage.isEmpty else {
            throw SyncError.misuse(.noLocalSite, "this store's sync metadata has no local site")
        }
        let synced = recorded.filter { names.contains(RowStateTable.prefix + $0.name) }
        try self.init(store: store, lineage: lineage, schemas: synced, options: options, rules: nil)
    }

    /// On a read-only store (`.sqlite(path:readOnly: true)`) nothing is written: the engine
    /// exports and reports its vector from the metadata as it is, and refuses to open when that
    /// metadata would first need bringing up to date (a migration added columns since it last
    /// opened writable). Importing into it fails with `SharkError.readOnly`.
    ///
    /// `rules` nil: the merge rules the store recorded (an engine opened without models).
    private init(
        store: Store, lineage: String, schemas: [EntitySchema], options: SyncOptions,
        rules: [String: [String: MergeRule]]?
    ) throws {
        // State tables as recorded: one without arrivals (written before them) gets the column
        // now on a writable store, and is read as it is on a read-only one.
        let recorded = Dictionary(
            try store.recordedSchemas().map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let unstamped = Set(
            schemas.filter { schema in
                recorded[RowStateTable.prefix + schema.name].map { $0.columns.count < 3 } ?? false
            }.map(\.name))
        let tables = Dictionary(
            uniqueKeysWithValues: schemas.map {
                ($0.name, RowStateTable(for: $0, stampsArrivals: !store.isReadOnly || !unstamped.contains($0.name)))
            })
        let site: UUID
        if store.isReadOnly {
            site = try Self.recordedLocalSite(of: store, lineage: lineage, requested: options.site)
        } else {
            // Every transaction of sync reads and rewrites the same metadata (the site's
            // sequence and clock, the arrival log): on a database other stores write, the
            // synced ones take turns, so that sequence numbers follow commit order and a
            // version vector never claims a transaction that has not committed.
            store.serializeWritesWithOtherStores()
            for table in tables.values { try store.prepareInternal(table.schema) }
            try store.prepare(SyncSiteRecord.self)
            try store.prepare(SyncPendingRecord.self)
            try store.prepare(SyncStateColumnsRecord.self)
            try store.prepare(SyncStateBatchRecord.self)
            try store.prepare(SyncHorizonRecord.self)
            try store.prepare(SyncStandInRecord.self)
            try store.prepare(SyncKeptRecord.self)
            try store.prepareInternal(StateBatchIndex.schema)
            try store.prepareInternal(ArrivalLog.schema)
            site = try Self.localSite(of: store, lineage: lineage, requested: options.site)
        }
        self.store = store
        self.lineage = lineage
        self.site = site
        self.onConflict = options.onConflict
        self.schemas = tables.mapValues(\.entity)
        self.tables = tables
        recordsHorizon = !store.isReadOnly || recorded["SharkSyncHorizon"] != nil
        recordsStandIns = !store.isReadOnly || recorded["SharkSyncStandIn"] != nil
        recordsKept = !store.isReadOnly || recorded["SharkSyncKept"] != nil
        var uniqueClaims: [String: UniqueClaims] = [:]
        for schema in schemas { uniqueClaims[schema.name] = try UniqueClaims.plan(for: schema) }
        self.uniqueClaims = uniqueClaims
        let mergeRules = try rules ?? Self.recordedRules(in: store).filter { tables[$0.key] != nil }
        self.mergeRules = mergeRules
        capture = ChangeCapture(
            tables: tables, uniqueClaims: uniqueClaims, mergeRules: mergeRules, site: site, filters: filters,
            now: options.now)
        if store.isReadOnly {
            guard try stateColumnsAreCurrent() else {
                throw SyncError.misuse(
                    .readOnlyMetadata,
                    "this store's sync metadata predates its last migration; open it writable once to bring it up to date"
                )
            }
            return
        }
        store.addTransactionObserver(capture)
        do {
            try Self.installKeyAllocators(schemas, tables: tables, on: store, options: options)
            try indexUnindexedBatches()
            try startArrivals(restamped: !unstamped.isEmpty)
            try startFilters()
            try catchUpStateColumns()
            try applyPending()
        } catch {
            store.removeTransactionObserver(capture)
            for schema in schemas where schema.keyKind == .autoIncrement {
                store.setKeyAllocator(nil, for: schema.name)
            }
            throw error
        }
    }

    /// The site recorded as this store's, read without writing (a read-only store).
    private static func recordedLocalSite(of store: Store, lineage: String, requested: UUID?) throws -> UUID {
        guard let local = SiteTable(try SyncSiteRecord.query(in: store).fetch()).local, local.lineage == lineage else {
            throw SyncError.misuse(.readOnlyMetadata, "this read-only store has no local site in lineage \(lineage)")
        }
        if let requested, requested != local.id {
            throw SyncError.misuse(.siteMismatch, "this store's site is \(local.id), not \(requested)")
        }
        return local.id
    }

    /// What this replica has seen, per site: send it to a peer, whose
    /// `exportChanges(since:key:)` then holds only what is missing here.
    ///
    /// ```swift
    /// let file = try phone.exportChanges(since: try laptop.versionVector())
    /// ```
    public func versionVector() throws -> VersionVector {
        SiteTable(try SyncSiteRecord.query(in: store).fetch()).vector
    }

    /// `versionVector()` read on one of the store's reader threads.
    ///
    /// ```swift
    /// let mine = try await sync.versionVector()
    /// ```
    public func versionVector() async throws -> VersionVector {
        SiteTable(try await SyncSiteRecord.query(in: store).fetch()).vector
    }

    /// What this replica has received: its `versionVector()`, joined with the changes it
    /// holds but cannot apply yet, whose values wait for a migration (an entity or a column
    /// this app version does not have; see docs/sync.md, "Replicas a migration apart"). The
    /// vector claims those changes only once the migration applies them, when the engine
    /// opens after it; meanwhile a peer that exports since this vector, or a hub client
    /// that skips files it covers, sends nothing twice.
    ///
    /// Use `versionVector()` for what the replica *applied*: to compare digests, and to
    /// acknowledge what tombstones it has seen.
    ///
    /// ```swift
    /// let file = try phone.exportChanges(since: try laptop.receivedVector())
    /// ```
    public func receivedVector() throws -> VersionVector {
        try store.read { snapshot in try self.receivedVector(in: snapshot) }
    }

    /// `receivedVector()` read on one of the store's reader threads.
    ///
    /// ```swift
    /// let received = try await sync.receivedVector()
    /// ```
    public func receivedVector() async throws -> VersionVector {
        try await store.read { snapshot in try self.receivedVector(in: snapshot) }
    }

    /// The vector and the sites kept through, read in one snapshot.
    private func receivedVector(in snapshot: ReadTransaction) throws -> VersionVector {
        var vector = SiteTable(try snapshot.fetch(SyncSiteRecord.query(in: store))).vector
        if recordsKept { vector.formJoin(KeptThrough.vector(of: try snapshot.fetch(SyncKeptRecord.query(in: store)))) }
        return vector
    }

    private static func check(_ schema: EntitySchema) throws {
        _ = try UniqueClaims.plan(for: schema)
    }

    /// A merge policy needs a column whose values it can merge: a non-optional integer for a
    /// counter, a non-optional number for a maximum or minimum; never a relationship, nor a
    /// column of a unique index (whose stand-ins are no values to merge).
    private static func checkRules(_ rules: [String: MergeRule], of schema: EntitySchema) throws {
        for (name, rule) in rules.sorted(by: { $0.key < $1.key }) {
            guard let column = schema.columns.dropFirst().first(where: { $0.name == name }) else { continue }
            let fits: Bool
            switch rule {
            case .counter: fits = column.type == .integer && !column.isNullable
            case .maximum, .minimum: fits = (column.type == .integer || column.type == .real) && !column.isNullable
            case .lastWriterWins: fits = true
            case .resolver(let resolver):
                // A resolver of Codable values decodes JSON: an enum stored as its raw value
                // (or an optional one) would not read back.
                fits = !resolver.decodesJSON || column.logicalType == .json
                if !fits {
                    throw SyncError.unsupportedModel(
                        entity: schema.name,
                        reason:
                            "the resolver of \(name) decodes JSON, but the property is stored as its raw value: declare the resolver over a non-optional enum, or store the property as Codable"
                    )
                }
            }
            guard fits, column.relationship == nil else {
                throw SyncError.unsupportedModel(
                    entity: schema.name,
                    reason: rule.isResolver
                        ? "\(name) is a relationship: it cannot merge by a resolver"
                        : rule == .counter
                            ? "the counter \(name) must be a non-optional integer property"
                            : "the \(rule.rawValue) \(name) must be a non-optional number (or Date) property")
            }
            if schema.indexes.contains(where: { $0.isUnique && $0.columns.contains(name) }) {
                throw SyncError.unsupportedModel(
                    entity: schema.name, reason: "\(name) is in a unique index: it cannot also have a merge policy")
            }
        }
    }

    /// A relationship travels as its target's key: a target that is not synced would leave
    /// every replica but the writer's with a key that names nothing.
    private static func checkReferences(_ schemas: [EntitySchema]) throws {
        let synced = Set(schemas.map(\.name))
        for schema in schemas {
            for column in schema.columns.dropFirst() {
                guard let target = column.relationship?.target, !synced.contains(target) else { continue }
                throw SyncError.unsupportedModel(
                    entity: schema.name,
                    reason: "\(column.name) refers to \(target), which is not synced; sync \(target) with it")
            }
        }
    }

    /// An `Int64` key needs an assignment the options name; a model whose rows the store
    /// numbered before sync knew of it can only take keys the app assigns (the store's
    /// numbers are the same on every replica).
    private static func checkIntegerKeys(_ schemas: [EntitySchema], of store: Store, options: SyncOptions) throws {
        let recorded = Set(try store.recordedSchemas().map(\.name))
        for schema in schemas where schema.keyKind == .autoIncrement {
            guard let assignment = options.integerKeys[schema.name] else {
                throw SyncError.unsupportedModel(
                    entity: schema.name,
                    reason: "its key is an Int64, which two replicas would number alike; say who assigns it with "
                        + "options.assignKeys(of:_:): .appAssigned, .slot(n) or .random")
            }
            if case .slot(let slot) = assignment, !(0..<IntegerKeyAssignment.slotCount).contains(slot) {
                throw SyncError.unsupportedModel(
                    entity: schema.name,
                    reason: "its key slot \(slot) is outside 0..<\(IntegerKeyAssignment.slotCount)")
            }
            let syncedBefore = recorded.contains(RowStateTable.prefix + schema.name)
            if assignment != .appAssigned, !syncedBefore, try store.hasRows(of: schema) {
                throw SyncError.unsupportedModel(
                    entity: schema.name,
                    reason: "it already holds rows the store numbered, which other replicas number alike; "
                        + "sync it with .appAssigned keys, or start it empty")
            }
        }
    }

    /// Makes the store choose new `Int64` keys as the options say (an entity the options do
    /// not name takes app-assigned keys: a store opened from its records alone).
    private static func installKeyAllocators(
        _ schemas: [EntitySchema], tables: [String: RowStateTable], on store: Store, options: SyncOptions
    ) throws {
        for schema in schemas where schema.keyKind == .autoIncrement {
            let allocator: any KeyAllocator
            switch options.integerKeys[schema.name] ?? .appAssigned {
            case .appAssigned: allocator = AppAssignedKeys()
            case .random: allocator = RandomKeys()
            case .slot(let slot):
                // Weak: the store holds the allocator.
                let states = tables[schema.name]?.schema
                let largest: @Sendable () throws -> Int64? = { [weak store] in
                    guard let store else { return nil }
                    return try SlotKeys.largestUsed(in: slot, of: schema, states: states, in: store)
                }
                allocator = SlotKeys(slot: slot, largest: try largest(), refreshedBy: largest)
            }
            store.setKeyAllocator(allocator, for: schema.name)
        }
    }

    /// This store's site, recorded on first use (with the lineage) and the same ever after.
    private static func localSite(of store: Store, lineage: String, requested: UUID?) throws -> UUID {
        try store.write { tx in
            let sites = SiteTable(try tx.fetch(SyncSiteRecord.query(in: store)))
            if let local = sites.local {
                guard local.lineage == lineage else {
                    throw SyncError.misuse(
                        .lineageMismatch, "this store syncs in lineage \(local.lineage), not \(lineage)")
                }
                if let requested, requested != local.id {
                    throw SyncError.misuse(.siteMismatch, "this store's site is \(local.id), not \(requested)")
                }
                return local.id
            }
            let site = requested ?? UUID()
            let record = sites.record(of: site) ?? SyncSiteRecord(id: site, number: sites.records.count + 1)
            record.isLocal = true
            record.lineage = lineage
            try tx.writingBookkeeping { try tx.commit(record) }
            return site
        }
    }
}

/// How a ``SyncEngine`` stamps changes: for tests and tools, the site id and the clock can be
/// set, so that a seeded history replays exactly.
///
/// ```swift
/// var options = SyncOptions()
/// options.site = UUID(uuidString: "00000000-0000-0000-0000-000000000001")!
/// options.now = { 1_700_000_000_000 }   // a fixed clock: the logical counter still orders
/// ```
public struct SyncOptions: Sendable {
    /// This replica's id, on first use of the store; nil for a random one. A store keeps its
    /// site: asking for another later throws.
    public var site: UUID?
    /// How new rows of each synced model with an `Int64` key get their keys, by entity name:
    /// set with ``assignKeys(of:_:)``.
    public var integerKeys: [String: IntegerKeyAssignment] = [:]
    /// Wall-clock milliseconds since 1970, read for every transaction that changes synced rows.
    public var now: @Sendable () -> UInt64 = { UInt64(max(0, Date().timeIntervalSince1970 * 1000)) }
    /// Called for each conflict an import finds (``SyncConflict``): a value of this replica
    /// that a concurrent one from the file replaced, merged or erased, a value of the file that
    /// lost, a unique value lost. Nil (the default): imports look for none, and cost nothing
    /// more.
    ///
    /// It is called as the import merges each row, on the thread running the import (the
    /// store's writer), before the import commits: keep it short, do not use the store from
    /// it, and note that when the import throws it applied nothing, so what it reported did
    /// not happen. Nothing is kept for it: memory stays bounded whatever the file's size.
    ///
    /// ```swift
    /// var options = SyncOptions()
    /// options.onConflict = { conflict in
    ///     print("\(conflict.entity) \(conflict.key): \(conflict.column) was \(conflict.kind)")
    /// }
    /// ```
    public var onConflict: (@Sendable (SyncConflict) -> Void)?

    public init(site: UUID? = nil) { self.site = site }
}

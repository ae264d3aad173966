import Foundation

/// Lightweight objects: fetched with only some properties read (Shark's `fetchLightweight`),
/// the others loaded from the store on first access.
///
/// The first access to a property left out reads the object's row — a blocking read, as a
/// fault's — and fills every property still left out, except those the app has set since (its
/// changes win). If the row cannot be read (removed, the store closed), those properties
/// keep their initial values; ``Model/load()`` says why. Async code calls `try await
/// object.load()` first.
extension Model {
    /// Whether some properties of this object were left out by a lightweight fetch and not
    /// loaded yet.
    public var isPartiallyLoaded: Bool { !_$shark.unloaded.isEmpty }

    /// Loads the properties a lightweight fetch left out, now; nothing when there are none.
    ///
    /// ```swift
    /// let people = try Person.query(in: store).fetchLightweight(\.name)
    /// try people[0].load()          // the other properties, read now
    /// ```
    public func load() throws {
        guard !_$shark.unloaded.isEmpty else { return }
        guard let store = _$shark.store else { throw SharkError.notPersisted(entity: Self._sharkEntityName) }
        guard let stored = try store.storedValues(of: Self.self, key: id.columnValue) else {
            throw SharkError.notFound(entity: Self._sharkEntityName, key: "\(id)")
        }
        try fillUnloaded(from: stored)
    }

    /// ``load()`` without blocking: the row is read on one of the store's reader threads.
    public func load() async throws {
        guard !_$shark.unloaded.isEmpty else { return }
        guard let store = _$shark.store else { throw SharkError.notPersisted(entity: Self._sharkEntityName) }
        let key = id.columnValue
        let stored = try await store.readerThreads.run { try store.storedValues(of: Self.self, key: key) }
        guard let stored else { throw SharkError.notFound(entity: Self._sharkEntityName, key: "\(id)") }
        try fillUnloaded(from: stored)
    }

    /// Sets the properties still left out (and not changed by the app since) from `stored`,
    /// keeping every other property as it is.
    private func fillUnloaded(from stored: [Value]) throws {
        let current = ValueCollector(count: stored.count)
        try _sharkWriteColumns(from: 0, to: current, offset: 0)
        var merged = current.values
        let unloaded = _$shark.unloaded
        let changed = _$shark.dirty
        for column in unloaded where !changed.contains(column) && Int(column) < merged.count {
            merged[Int(column)] = stored[Int(column)]
        }
        try _sharkRestore(from: ValueRowReader(merged))
        _$shark.unloaded = ColumnSet()
    }
}

extension _SharkCoding {
    /// Called by the getter of a property of a partially loaded object: loads the properties
    /// left out when this one is among them. A failure leaves them at their initial values.
    public static func loadIfLeftOut<Owner: Model>(column: Int32, of owner: Owner) {
        guard owner._$shark.unloaded.contains(column) else { return }
        try? owner.load()
    }
}

extension Query {
    /// The matching objects with only `properties` (and the key) read; every other property
    /// is loaded on first access (see ``Model/isPartiallyLoaded``). For lists that show a few
    /// properties of many objects.
    ///
    /// ```swift
    /// let names = try Person.query(in: store).orderBy(\.name).fetchLightweight(\.name)
    /// print(names.map(\.name))     // no other column was read
    /// print(names[0].age)          // reads the rest of this one object's row
    /// ```
    public func fetchLightweight(_ properties: PartialKeyPath<Root>...) throws -> [Root] {
        try fetchLightweight(columns: try Self.columns(of: properties))
    }

    /// ``fetchLightweight(_:)`` on one of the store's reader threads.
    public func fetchLightweight(_ properties: PartialKeyPath<Root>...) async throws -> sending [Root] {
        let query = self
        let columns = try Self.columns(of: properties)
        return try await store.readerThreads.run { try query.fetchLightweight(columns: columns) }
    }

    private static func columns(of properties: [PartialKeyPath<Root>]) throws -> ColumnSet {
        var columns = ColumnSet()
        for property in properties {
            guard let column = Root.columnIndex(of: property) else {
                throw SharkError.invalidQuery(
                    .notPersisted,
                    "fetchLightweight on \(Root._sharkEntityName) names a property that is not persisted")
            }
            columns.insert(column)
        }
        return columns
    }

    private func fetchLightweight(columns: ColumnSet) throws -> [Root] {
        if let problem { throw problem }
        var unloaded = ColumnSet()
        for column in 1..<Int32(Root._sharkSchemaColumns.count) where !columns.contains(column) {
            unloaded.insert(column)
        }
        var query = self
        query.description.columns = columns
        guard !unloaded.isEmpty else { return try store.fetchObjects(query, firstOnly: false) }
        // The columns left out come back NULL: the objects get their properties' initial
        // values there instead (what a fault holds), until loaded.
        var objects: [Root] = []
        let template = FaultRowReader.template(of: Root.self)
        try store.readRows(of: query, firstOnly: false) { row in
            let object = try Root(_sharkRow: PartialRowReader(row, unloaded: unloaded, template: template))
            object._$shark = ModelState(readFrom: store)
            object._$shark.unloaded = unloaded
            objects.append(object)
        }
        return objects
    }
}

/// A row of a lightweight fetch: the columns it read, and for the others the values a fault
/// starts from.
final class PartialRowReader: RowReader {
    let base: any RowReader
    let unloaded: ColumnSet
    let template: ValueRowReader

    init(_ base: any RowReader, unloaded: ColumnSet, template: [Value]) {
        self.base = base
        self.unloaded = unloaded
        self.template = ValueRowReader(template)
    }

    private func source(_ index: Int32) -> any RowReader { unloaded.contains(index) ? template : base }

    func isNull(at index: Int32) -> Bool { source(index).isNull(at: index) }
    func int64(at index: Int32) -> Int64 { source(index).int64(at: index) }
    func double(at index: Int32) -> Double { source(index).double(at: index) }
    func text(at index: Int32) -> String { source(index).text(at: index) }
    func blob(at index: Int32) -> Data { source(index).blob(at: index) }
    func value(at index: Int32) -> Value { source(index).value(at: index) }
    func integer(at index: Int32) throws(SharkError) -> Int64 { try source(index).integer(at: index) }
    func real(at index: Int32) throws(SharkError) -> Double { try source(index).real(at: index) }
    func string(at index: Int32) throws(SharkError) -> String { try source(index).string(at: index) }
    func bytes(at index: Int32) throws(SharkError) -> Data { try source(index).bytes(at: index) }
    func columnDescription(at index: Int32) -> String { base.columnDescription(at: index) }
}

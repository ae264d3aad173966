import Foundation
import Synchronization

/// Faults: the objects a to-one relationship holds before they are loaded.
///
/// Reading an `Employee` does not read its `Department`: the property gets a fault, a
/// `Department` object holding only the stored key, its other properties at their initial
/// values. The first access to the property loads the row into that same object, in place —
/// a blocking read on the calling thread, as a Core Data fault is. Async code loads ahead
/// instead: ``Model/load(_:)-(KeyPath<Self,M?>)`` in its async form, or `including`.
///
/// A load can fail: the store was closed, the related object was removed, or it was never
/// stored here (a key from a sync that has not delivered the object yet). The property then
/// reads as nil (a non-optional one as the unloaded fault, ``Model/isFault`` true); the
/// stored key is kept, and `load` throws the reason.
extension Model {
    /// Whether this object is an unloaded fault: a related object whose row has not been
    /// read (or could not be), holding only its key.
    ///
    /// ```swift
    /// let employee = try Employee.query(in: store).first()!
    /// if let manager = employee.manager {
    ///     print(manager.isFault)   // false: reading `manager` loaded it
    /// }
    /// ```
    public var isFault: Bool { _$shark.isFault }

    /// A fault for the object of this model with `key`, its other properties at their
    /// initial values. `row` is the row being read, so that faults made while making a fault
    /// (a non-optional relationship of the related model) can tell how deep they are: a cycle
    /// of non-optional relationships has no end, and is refused.
    static func _sharkFault(key: Value, readFrom row: any RowReader) throws(SharkError) -> Self {
        let depth = ((row as? FaultRowReader)?.depth ?? 0) + 1
        guard depth <= FaultRowReader.maximumDepth else {
            throw SharkError.decoding(
                .relationshipCycle,
                "\(_sharkEntityName) is reached again and again through non-optional relationships "
                    + "(a cycle, such as a non-optional relationship of a model to itself); make one of them optional")
        }
        let fault = try Self(
            _sharkRow: FaultRowReader(key: key, values: FaultRowReader.template(of: Self.self), depth: depth))
        fault._$shark.isFault = true
        return fault
    }

    /// Loads this fault's row into it, from `store` (or the store it already knows).
    func _sharkResolveFault(in store: Store?) throws {
        guard _$shark.isFault else { return }
        guard let store = _$shark.store ?? store else {
            throw SharkError.notPersisted(entity: Self._sharkEntityName)
        }
        try resolveFault(in: store)
    }

    /// What reading a relationship property does: loads the fault, unless its row was found
    /// missing since the store last committed. Only a commit can bring the row (this
    /// process's, or a sync import's), so until then a miss is remembered, and reading the
    /// property again costs no query. An explicit `load` always asks again.
    func _sharkResolveFaultOnAccess(in store: Store?) -> Bool {
        guard _$shark.isFault else { return true }
        guard let store = _$shark.store ?? store else { return false }
        if _$shark.missedBeforeCommit == store.eventHub.lastSequence &+ 1 { return false }
        do {
            try resolveFault(in: store)
            return true
        } catch {
            return false
        }
    }

    /// Remembers that this fault's row was not found in `store` as of `commits` commits.
    func rememberMissingRow(in store: Store, asOf commits: UInt64) {
        _$shark.store = store
        _$shark.missedBeforeCommit = commits &+ 1
    }

    private func resolveFault(in store: Store) throws {
        let commits = store.eventHub.lastSequence
        let schema = try store.preparedSchema(for: Self.self)
        var found = false
        try store.withReader { connection in
            try connection.read(.key(id.columnValue), schema: schema) { row in
                try self._sharkRestore(from: row)
                found = true
            }
        }
        guard found else {
            rememberMissingRow(in: store, asOf: commits)
            throw SharkError.notFound(entity: Self._sharkEntityName, key: "\(id)")
        }
        _$shark = ModelState(readFrom: store)
    }

    /// Loads the row of this fault from values read elsewhere (an async load).
    func _sharkResolveFault(with values: [Value], from store: Store) throws {
        try _sharkRestore(from: ValueRowReader(values))
        _$shark = ModelState(readFrom: store)
    }

    /// The object an optional to-one relationship refers to, loaded now if it was not: nil
    /// when nothing is related. Unlike reading the property, it says why a load fails: the
    /// related object is not stored (``SharkError/notFound(entity:key:)``), the store is
    /// closed, this object has no store.
    ///
    /// ```swift
    /// do {
    ///     let department = try employee.load(\.department)
    /// } catch SharkError.notFound(let entity, let key) {
    ///     print("\(entity) \(key) is not here (yet)")
    /// }
    /// ```
    @discardableResult
    public func load<M: Model>(_ relationship: KeyPath<Self, M?>) throws -> M? {
        guard let related = try relatedObject(relationship, as: M.self) else { return nil }
        try related._sharkResolveFault(in: _$shark.store)
        return related
    }

    /// The object a non-optional to-one relationship refers to, loaded now if it was not.
    @discardableResult
    public func load<M: Model>(_ relationship: KeyPath<Self, M>) throws -> M {
        guard let related = try relatedObject(relationship, as: M.self) else {
            throw SharkError.invalidQuery(
                .notARelationship, "\(relationship) is not a to-one relationship of \(Self._sharkEntityName)")
        }
        try related._sharkResolveFault(in: _$shark.store)
        return related
    }

    /// ``load(_:)-(KeyPath<Self,M?>)`` without blocking: the row is read on one of the
    /// store's reader threads, then loaded into the object on the caller's.
    ///
    /// ```swift
    /// @MainActor func show(_ employee: Employee) async throws {
    ///     let department = try await employee.load(\.department)
    ///     title = department?.name ?? "—"
    /// }
    /// ```
    @discardableResult
    public func load<M: Model>(
        _ relationship: KeyPath<Self, M?>, isolation: isolated (any Actor)? = #isolation
    ) async throws -> M? {
        guard let related = try relatedObject(relationship, as: M.self) else { return nil }
        try await related._sharkResolveFaultAsync(in: _$shark.store)
        return related
    }

    /// ``load(_:)-(KeyPath<Self,M>)`` without blocking.
    @discardableResult
    public func load<M: Model>(
        _ relationship: KeyPath<Self, M>, isolation: isolated (any Actor)? = #isolation
    ) async throws -> M {
        guard let related = try relatedObject(relationship, as: M.self) else {
            throw SharkError.invalidQuery(
                .notARelationship, "\(relationship) is not a to-one relationship of \(Self._sharkEntityName)")
        }
        try await related._sharkResolveFaultAsync(in: _$shark.store)
        return related
    }

    /// The object held by the relationship at `keyPath`, without loading it.
    private func relatedObject<M: Model>(_ keyPath: AnyKeyPath, as: M.Type) throws -> M? {
        guard let column = Self.columnIndex(of: keyPath) else {
            throw SharkError.invalidQuery(
                .notPersisted, "\(keyPath) is not a persisted property of \(Self._sharkEntityName)")
        }
        return _sharkRelated(column: column) as? M
    }

    /// Reads this fault's row on a reader thread and loads it here.
    /// Runs on the caller's actor (the object never leaves it); only the row is read on a
    /// reader thread of the store's.
    private func _sharkResolveFaultAsync(in store: Store?, isolation: isolated (any Actor)? = #isolation) async throws {
        guard _$shark.isFault else { return }
        guard let store = _$shark.store ?? store else {
            throw SharkError.notPersisted(entity: Self._sharkEntityName)
        }
        let key = id.columnValue
        let values = try await store.readerThreads.run { try store.storedValues(of: Self.self, key: key) }
        guard let values else { throw SharkError.notFound(entity: Self._sharkEntityName, key: "\(id)") }
        try _sharkResolveFault(with: values, from: store)
    }
}

extension Store {
    /// The values of the row of `M` whose key is `key`, in schema order; nil when there is none.
    func storedValues<M: Model>(of type: M.Type, key: Value) throws -> [Value]? {
        let schema = try preparedSchema(for: M.self)
        var values: [Value]?
        try withReader { connection in
            try connection.read(.key(key), schema: schema) { row in
                values = (0..<Int32(schema.columns.count)).map { row.value(at: $0) }
            }
        }
        return values
    }
}

/// The row a fault is made from: its key, and the initial values of everything else (one
/// shared array per model, made once), with how many faults deep it is (see
/// ``Model/_sharkFault(key:readFrom:)``).
final class FaultRowReader: RowReader {
    /// Deeper than this, a chain of non-optional relationships is taken for a cycle.
    static let maximumDepth = 32

    let key: Value
    let values: [Value]
    let depth: Int

    init(key: Value, values: [Value], depth: Int) {
        self.key = key
        self.values = values
        self.depth = depth
    }

    private func value(_ index: Int32) -> Value { index == 0 ? key : values[Int(index)] }

    func isNull(at index: Int32) -> Bool { value(index).isNull }
    func int64(at index: Int32) -> Int64 { value(index).coercedToInt64() }
    func double(at index: Int32) -> Double { value(index).coercedToDouble() }
    func text(at index: Int32) -> String { value(index).coercedToText() }
    func blob(at index: Int32) -> Data { value(index).coercedToBlob() }
    func value(at index: Int32) -> Value { value(index) }

    private static let templates = Mutex<[ObjectIdentifier: [Value]]>([:])

    /// The values a fault of `M` starts from: each property's initial value where it has one,
    /// so that an enum reads back as one of its cases; nil for other optionals (no
    /// relationship is followed further).
    static func template<M: Model>(of type: M.Type) -> [Value] {
        if let template = templates.withLock({ $0[ObjectIdentifier(type)] }) { return template }
        let template = M._sharkSchemaColumns.map { $0.defaultValue ?? ($0.isNullable ? .null : $0.backfillValue) }
        templates.withLock { $0[ObjectIdentifier(type)] = template }
        return template
    }
}

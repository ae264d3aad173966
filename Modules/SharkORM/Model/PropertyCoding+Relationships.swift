import Synchronization

/// To-one relationships: a property whose type is another model (or an optional of one) is
/// stored as the related object's key, and read back as a *fault* — an object of the related
/// model holding only that key, loaded from the store on first access (see
/// `Model+Faults.swift`).
///
/// `@Model` cannot tell from the syntax which properties are relationships, so it routes every
/// property through these functions; for other types the generic overloads are identities the
/// compiler inlines away.
extension _SharkCoding {
    // MARK: Schema

    public static func storageType<M: Model>(_: M.Type) -> StorageType { M.Key.storageType }
    public static func storageType<M: Model>(_: M?.Type) -> StorageType { M.Key.storageType }
    public static func logicalType<M: Model>(_: M.Type) -> LogicalType { M.Key.logicalType }
    public static func logicalType<M: Model>(_: M?.Type) -> LogicalType { M.Key.logicalType }
    public static func isNullable<M: Model>(_: M.Type) -> Bool { false }
    public static func isNullable<M: Model>(_: M?.Type) -> Bool { true }

    /// Not a relationship.
    public static func relationship<T>(_: T.Type) -> RelationshipSchema? { nil }
    /// A non-optional relationship: removing the related object is denied by default.
    public static func relationship<M: Model>(_: M.Type) -> RelationshipSchema? {
        relationship(M.self, deleteRule: .deny)
    }
    /// An optional relationship: removing the related object nullifies it by default.
    public static func relationship<M: Model>(_: M?.Type) -> RelationshipSchema? {
        relationship(M.self, deleteRule: .nullify)
    }
    public static func relationship<M: Model>(_: M?.Type, deleteRule: DeleteRule) -> RelationshipSchema? {
        relationship(M.self, deleteRule: deleteRule)
    }
    /// The relationship's schema; the related model becomes known by its entity name, so that
    /// paths through it (`department.name`) resolve before any store has used it.
    public static func relationship<M: Model>(_: M.Type, deleteRule: DeleteRule) -> RelationshipSchema? {
        ModelTypes.register(M.self)
        return RelationshipSchema(target: M._sharkEntityName, deleteRule: deleteRule)
    }
    @available(
        *, unavailable,
        message: "@Relationship applies to a property whose type is a @Model class, or an optional of one"
    )
    public static func relationship<T>(_: T.Type, deleteRule: DeleteRule) -> RelationshipSchema? { nil }

    // MARK: Rows

    public static func read<M: Model>(_: M?.Type, from row: any RowReader, at index: Int32) throws(SharkError) -> M? {
        if row.isNull(at: index) { return nil }
        return try M._sharkFault(key: row.value(at: index), readFrom: row)
    }
    public static func read<M: Model>(_: M.Type, from row: any RowReader, at index: Int32) throws(SharkError) -> M {
        try M._sharkFault(key: row.value(at: index), readFrom: row)
    }
    public static func write<M: Model>(_ value: M?, to row: any RowWriter, at index: Int32) throws(SharkError) {
        guard let value else { return row.writeNull(at: index) }
        try value.id.write(to: row, at: index)
    }
    public static func write<M: Model>(_ value: M, to row: any RowWriter, at index: Int32) throws(SharkError) {
        try value.id.write(to: row, at: index)
    }

    // MARK: Accessors

    /// The getter of a persisted property: its stored value.
    @inlinable @inline(__always)
    public static func get<T, Owner: Model>(_ value: T, owner: Owner) -> T { value }
    /// The getter of an optional to-one relationship: the related object, loaded on first
    /// access (a blocking read); nil when nothing is related or the related object cannot be
    /// loaded (``Model/load(_:)-(KeyPath<Self,M?>)`` says why).
    public static func get<M: Model, Owner: Model>(_ value: M?, owner: Owner) -> M? {
        guard let value else { return nil }
        if value._$shark.isFault, !value._sharkResolveFaultOnAccess(in: owner._$shark.store) { return nil }
        return value
    }
    /// The getter of a non-optional to-one relationship: the related object, loaded on first
    /// access; when it cannot be loaded, the unloaded placeholder (its key set, every other
    /// property at its initial value, ``Model/isFault`` true).
    public static func get<M: Model, Owner: Model>(_ value: M, owner: Owner) -> M {
        if value._$shark.isFault { _ = value._sharkResolveFaultOnAccess(in: owner._$shark.store) }
        return value
    }

    /// The related object a property holds, loaded or not; nil for other properties.
    @inlinable @inline(__always)
    public static func related<T>(_ value: T) -> (any Model)? { nil }
    public static func related<M: Model>(_ value: M?) -> (any Model)? { value }
    public static func related<M: Model>(_ value: M) -> (any Model)? { value }

    /// What a restore (a refresh, a rollback) assigns: the value read from the row, except that
    /// a related object the row still refers to is kept rather than replaced by a new fault.
    @inlinable @inline(__always)
    public static func keep<T>(_ current: T, orRead read: T) -> T { read }
    public static func keep<M: Model>(_ current: M?, orRead read: M?) -> M? {
        guard let current, let read, current.id == read.id else { return read }
        return current
    }
    public static func keep<M: Model>(_ current: M, orRead read: M) -> M {
        current.id == read.id ? current : read
    }
}

/// The model classes known by entity name: those relationships refer to. What a string
/// predicate's dotted path needs when no store has prepared or recorded the related entity yet.
enum ModelTypes {
    private static let known = Mutex<[String: any Model.Type]>([:])

    static func register<M: Model>(_ type: M.Type) {
        known.withLock { $0[M._sharkEntityName] = type }
    }

    static func type(named entity: String) -> (any Model.Type)? {
        known.withLock { $0[entity] }
    }
}

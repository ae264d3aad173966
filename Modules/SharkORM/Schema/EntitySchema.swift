import Foundation

/// The stored shape of a model: its entity (table) name, key, columns and indexes.
///
/// `@Model` generates it from the class declaration; drivers create and migrate storage from
/// it, and the SQL drivers record the applied one in their metadata table. Column 0 is always
/// the key.
///
/// ```swift
/// let schema = Person.schema
/// print(schema.name, schema.columns.map(\.name))   // Person ["id", "name", "age"]
/// ```
public struct EntitySchema: Sendable, Hashable, Codable {
    /// The entity (table) name.
    public var name: String
    /// How the key (column 0) is assigned.
    public var keyKind: KeyKind
    /// Every persisted column, the key first, then the properties in declaration order.
    public var columns: [ColumnSchema]
    /// The declared indexes.
    public var indexes: [IndexSchema]
    /// A storage hint: whether a driver that can should keep the rows in key order in one
    /// structure, with no separate key index — one tree write per insert instead of two. For
    /// small rows with a `UUID` or `String` key, written in bulk (sync's metadata); nil (no)
    /// for models. A hint only: it changes no result, and a driver without the distinction
    /// ignores it (the SQLite drivers make such a table `WITHOUT ROWID`; the memory engine
    /// always keeps rows in key order).
    public var isClusteredByKey: Bool?

    public init(
        name: String, keyKind: KeyKind, columns: [ColumnSchema], indexes: [IndexSchema] = [],
        isClusteredByKey: Bool? = nil
    ) {
        self.name = name
        self.keyKind = keyKind
        self.columns = columns
        self.indexes = indexes
        self.isClusteredByKey = isClusteredByKey
    }

    /// The key column.
    public var key: ColumnSchema { columns[0] }

    /// `declared` plus an index on every relationship column that no declared index starts
    /// with: finding the objects that refer to one (an inverse, a delete rule) must not scan.
    static func indexingRelationships(_ columns: [ColumnSchema], entity: String, _ declared: [IndexSchema])
        -> [IndexSchema]
    {
        var indexes = declared
        for column in columns where column.relationship != nil {
            if !indexes.contains(where: { $0.columns.first == column.name }) {
                indexes.append(IndexSchema(entity: entity, columns: [column.name], isUnique: false))
            }
        }
        return indexes
    }

    /// For each column of this schema, the column of `stored` its values come from: the one
    /// of the same name, or else one it was renamed from (``ColumnSchema/previousNames``) that
    /// this schema no longer has; nil for a new column.
    public func sources(in stored: EntitySchema) -> [Int?] {
        let current = Set(columns.map(\.name))
        return columns.map { column in
            if let position = stored.columnIndex(named: column.name) { return position }
            for previous in column.previousNames ?? [] where !current.contains(previous) {
                if let position = stored.columnIndex(named: previous) { return position }
            }
            return nil
        }
    }

    /// Whether `other` is this schema but for what its columns say of their values (their
    /// ``ColumnSchema/bitWidth``): the same table, needing no migration.
    package func differsOnlyInDescription(from other: EntitySchema) -> Bool {
        func plain(_ schema: EntitySchema) -> EntitySchema {
            var copy = schema
            for index in copy.columns.indices { copy.columns[index].bitWidth = nil }
            return copy
        }
        return plain(self) == plain(other)
    }

    /// Whether any column is a to-one relationship.
    public var hasRelationships: Bool { columns.contains { $0.relationship != nil } }

    /// The position of the column named `name`.
    public func columnIndex(named name: String) -> Int? {
        columns.firstIndex { $0.name == name }
    }
}

/// How a model's key is assigned.
public enum KeyKind: String, Sendable, Hashable, Codable {
    /// An `Int64` the store assigns on first commit (SQLite's rowid).
    case autoIncrement
    /// A `UUID` the app assigns (new ones are time-ordered v7).
    case uuid
    /// A `String` the app assigns.
    case string
}

/// One persisted column.
public struct ColumnSchema: Sendable, Hashable, Codable {
    /// The column name: the property name.
    public var name: String
    /// The storage class.
    public var type: StorageType
    /// Whether NULL may be stored (optional properties).
    public var isNullable: Bool
    /// The value new columns are back-filled with: the property's initial value, when it has one.
    public var defaultValue: Value?
    /// What the column holds beyond its storage class (a UUID, a date…); nil for columns of
    /// tables SharkORM adopted or recorded before it kept logical types.
    public var logicalType: LogicalType?
    /// How many bits the property's type has, for integers (8, 16, 32 or 64, with
    /// ``logicalType`` telling signed from unsigned), `Bool` (1) and floating point (32 for
    /// `Float`, 64 for `Double`); nil for other types, and for columns recorded before widths
    /// were. It bounds what the column accepts: see ``integerRange``.
    public var bitWidth: Int?
    /// For a to-one relationship: the related entity, whose keys the column holds, and the
    /// delete rule.
    public var relationship: RelationshipSchema?
    /// Names the column had before (`@Renamed(from:)`): a migration finding a stored column by
    /// one of them, and none by `name`, renames it, keeping its values.
    public var previousNames: [String]?

    public init(
        name: String, type: StorageType, isNullable: Bool, defaultValue: Value? = nil, logicalType: LogicalType? = nil,
        bitWidth: Int? = nil, relationship: RelationshipSchema? = nil, previousNames: [String]? = nil
    ) {
        self.name = name
        self.type = type
        self.isNullable = isNullable
        self.defaultValue = defaultValue
        self.logicalType = logicalType
        self.bitWidth = bitWidth
        self.relationship = relationship
        self.previousNames = previousNames
    }

    /// What existing rows get when this column is added, or made non-optional: the
    /// property's initial value, or the zero of the storage class when it has none. Every
    /// driver back-fills with it, so migrations agree.
    public var backfillValue: Value {
        if let defaultValue, !defaultValue.isNull { return defaultValue }
        switch type {
        case .integer: return .integer(0)
        case .real: return .real(0)
        case .text: return .text("")
        case .blob: return .blob(Data())
        }
    }
}

/// One declared index.
public struct IndexSchema: Sendable, Hashable, Codable {
    /// The index name, derived from the entity and columns.
    public var name: String
    /// The indexed columns, in order.
    public var columns: [String]
    /// Whether two rows may not share the indexed values.
    public var isUnique: Bool

    public init(entity: String, columns: [String], isUnique: Bool) {
        self.columns = columns
        self.isUnique = isUnique
        self.name = Self.name(entity: entity, columns: columns, isUnique: isUnique)
    }

    /// `shark_index_Person_name_age`. Index names share one namespace per database, so the
    /// name must never be the same for two different indexes: when a part holds `_` or `:`
    /// (entity `a_b` on `c` against entity `a` on `b_c`), each part is written with its
    /// length instead, `shark_index:3:a_b:1:c`, a form the plain names never take.
    static func name(entity: String, columns: [String], isUnique: Bool) -> String {
        let kind = isUnique ? "unique" : "index"
        let parts = [entity] + columns
        if parts.allSatisfy({ !$0.contains("_") && !$0.contains(":") }) {
            return "shark_" + kind + "_" + parts.joined(separator: "_")
        }
        return "shark_" + kind + parts.map { ":\($0.utf8.count):\($0)" }.joined()
    }
}

extension Value {
    /// Whether this is a real NaN.
    package var isNaN: Bool {
        if case .real(let number) = self { return number.isNaN }
        return false
    }
}

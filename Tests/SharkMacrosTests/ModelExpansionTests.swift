import SharkMacroExpansions
import SwiftSyntaxMacrosGenericTestSupport
import Testing

@Suite("@Model expansion")
struct ModelExpansionTests {
    @Test("a minimal model: synthesized Int64 key, schema, decoder, writer, conformance")
    func minimal() {
        expectExpansion(
            """
            @Model
            final class Tag {
                var name: String = ""
            }
            """,
            expandedSource: """
                final class Tag {
                    @SharkORM._SharkPersisted(column: 1)
                    var name: String = ""

                    @exclusivity(unchecked) public private(set) var id: Int64 = 0

                    @exclusivity(unchecked) public var _$shark = SharkORM.ModelState()

                    public static var _sharkEntityName: String {
                        "Tag"
                    }

                    public static var _sharkKeyKind: SharkORM.KeyKind {
                        SharkORM._SharkCoding.keyKind((Int64).self)
                    }

                    public static let _sharkSchemaColumns: [SharkORM.ColumnSchema] = [
                        SharkORM.ColumnSchema(
                            name: "id",
                            type: SharkORM._SharkCoding.storageType((Int64).self),
                            isNullable: SharkORM._SharkCoding.isNullable((Int64).self),
                            defaultValue: nil,
                            logicalType: SharkORM._SharkCoding.logicalType((Int64).self),
                            bitWidth: SharkORM._SharkCoding.bitWidth((Int64).self),
                            relationship: SharkORM._SharkCoding.relationship((Int64).self)
                        ),
                        SharkORM.ColumnSchema(
                            name: "name",
                            type: SharkORM._SharkCoding.storageType((String).self),
                            isNullable: SharkORM._SharkCoding.isNullable((String).self),
                            defaultValue: try? SharkORM._SharkCoding.value(("") as String),
                            logicalType: SharkORM._SharkCoding.logicalType((String).self),
                            bitWidth: SharkORM._SharkCoding.bitWidth((String).self),
                            relationship: SharkORM._SharkCoding.relationship((String).self)
                        )
                    ]

                    public static var _sharkPropertyKeyPaths: [AnyKeyPath] {
                        [\\Tag.id, \\Tag.name]
                    }

                    public static var _sharkOptionalPropertyKeyPaths: [AnyKeyPath] {
                        [\\Tag?.?.id, \\Tag?.?.name]
                    }

                    public static func _sharkColumnIndex(for keyPath: AnyKeyPath) -> Int32? {
                        if keyPath == \\Tag.id as AnyKeyPath {
                            return 0
                        }
                        if keyPath == \\Tag.name as AnyKeyPath {
                            return 1
                        }
                        return nil
                    }

                    public required init(_sharkRow row: borrowing any SharkORM.RowReader) throws(SharkORM.SharkError) {
                        self.id = try SharkORM._SharkCoding.read((Int64).self, from: row, at: 0)
                        self._name = try SharkORM._SharkCoding.read((String).self, from: row, at: 1)
                    }

                    public init() {
                    }

                    public func _sharkWrite(column: Int32, to row: any SharkORM.RowWriter, at position: Int32) throws(SharkORM.SharkError) {
                        switch column {
                        case 0:
                            try SharkORM._SharkCoding.write(self.id, to: row, at: position)
                        case 1:
                            try SharkORM._SharkCoding.write(self._name, to: row, at: position)
                        default:
                            break
                        }
                    }

                    public func _sharkWriteColumns(from first: Int32, to row: any SharkORM.RowWriter, offset: Int32) throws(SharkORM.SharkError) {
                        if first <= 0 {
                            try SharkORM._SharkCoding.write(self.id, to: row, at: 0 + offset)
                        }
                        if first <= 1 {
                            try SharkORM._SharkCoding.write(self._name, to: row, at: 1 + offset)
                        }
                    }

                    public func _sharkRestore(from row: any SharkORM.RowReader) throws(SharkORM.SharkError) {
                        self.id = SharkORM._SharkCoding.keep(self.id, orRead: try SharkORM._SharkCoding.read((Int64).self, from: row, at: 0))
                        self._name = SharkORM._SharkCoding.keep(self._name, orRead: try SharkORM._SharkCoding.read((String).self, from: row, at: 1))
                    }

                    public func _sharkRelated(column: Int32) -> (any SharkORM.Model)? {
                        switch column {
                        case 1:
                            return SharkORM._SharkCoding.related(self._name)
                        default:
                            return nil
                        }
                    }

                    public func _sharkAssignKey(_ key: Int64) {
                        SharkORM._SharkCoding.assignKey(key, to: &self.id)
                    }
                }

                extension Tag: SharkORM.Model {
                }
                """)
    }

    @Test("a persisted property gets change-tracking accessors and private backing storage")
    func persistedProperty() {
        expectExpansion(
            """
            final class Tag {
                @_SharkPersisted(column: 2)
                var name: String = ""
            }
            """,
            expandedSource: """
                final class Tag {
                    var name: String {
                        @storageRestrictions(initializes: _name)
                        init(initialValue) {
                            _name = initialValue
                        }
                        get {
                            if !_$shark.unloaded.isEmpty {
                                SharkORM._SharkCoding.loadIfLeftOut(column: 2, of: self)
                            }
                            return SharkORM._SharkCoding.get(_name, owner: self)
                        }
                        set {
                            _name = newValue
                            _$shark.markDirty(2)
                        }
                    }

                    private var _name: String = ""
                }
                """)
    }

    @Test("@Renamed and @Relationship reach the schema")
    func renamedAndRelationship() {
        var expanded = ""
        assertMacroExpansion(
            """
            @Model
            final class Person {
                @Renamed(from: "surname") var familyName: String = ""
                @Relationship(deleteRule: .cascade) var badge: Badge?
            }
            """,
            expandedSource: "", macroSpecs: sharkMacros,
            failureHandler: { failure in expanded = failure.message })
        #expect(expanded.contains("previousNames: [\"surname\"]"))
        #expect(
            expanded.contains("relationship: SharkORM._SharkCoding.relationship((Badge?).self, deleteRule: .cascade)"))
        #expect(expanded.contains("SharkORM._SharkCoding.related(self._badge)"))
    }

    @Test("backticked names: the column is the plain name, generated code keeps the backticks")
    func backtickedNames() {
        expectExpansion(
            """
            final class Clause {
                @_SharkPersisted(column: 1)
                var `where`: String = ""
            }
            """,
            expandedSource: """
                final class Clause {
                    var `where`: String {
                        @storageRestrictions(initializes: _where)
                        init(initialValue) {
                            _where = initialValue
                        }
                        get {
                            if !_$shark.unloaded.isEmpty {
                                SharkORM._SharkCoding.loadIfLeftOut(column: 1, of: self)
                            }
                            return SharkORM._SharkCoding.get(_where, owner: self)
                        }
                        set {
                            _where = newValue
                            _$shark.markDirty(1)
                        }
                    }

                    private var _where: String = ""
                }
                """)
        // The model's own members: column names without backticks, references with them.
        var expanded = ""
        assertMacroExpansion(
            """
            @Model
            final class Clause {
                var `where`: String = ""
                var `default`: Int = 0
            }
            """,
            expandedSource: "", macroSpecs: sharkMacros,
            failureHandler: { failure in expanded = failure.message })
        #expect(expanded.contains("name: \"where\""))
        #expect(expanded.contains("name: \"default\""))
        #expect(expanded.contains("keyPath == \\Clause.`where` as AnyKeyPath"))
        #expect(expanded.contains("self._default, to: row"))
        #expect(expanded.contains("self._default = try"))
        #expect(expanded.contains("@SharkORM._SharkPersisted(column: 2)"))
        #expect(!expanded.contains("\"`"))
    }
}

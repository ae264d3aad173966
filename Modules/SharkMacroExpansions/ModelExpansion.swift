import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@Model`: turns a class into a persisted model.
///
/// - member role: the schema, the row decoder (`init(_sharkRow:)`), the column writer,
///   the restore used by rollback and refresh, the key-path → column table, and an `id` when
///   the class declares none;
/// - member-attribute role: `@_SharkPersisted(column:)` on every persisted property, which
///   adds change tracking;
/// - extension role: the `Model` conformance.
///
/// The expansion is this protocol's default implementation, so that the compiler plugin's
/// `ModelMacro` (the type `#externalMacro` names) and the tests' own type share it: the
/// tests link this library, never the plugin, and so build like any other test target.
public protocol ModelExpansion: MemberMacro, MemberAttributeMacro, ExtensionMacro {}

// The member role.
extension ModelExpansion {
    public static func expansion(
        of node: AttributeSyntax,
        providingMembersOf declaration: some DeclGroupSyntax,
        conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard declaration.is(ClassDeclSyntax.self) else {
            context.diagnose(Diagnostic(node: node, message: ModelDiagnostic.notAClass))
            return []
        }
        let model = ModelAnalysis(declaration)
        for diagnostic in model.diagnostics { context.diagnose(diagnostic) }
        if !model.diagnostics.isEmpty { return [] }

        let typeName = model.typeName
        let entity = entityName(from: node) ?? typeName
        var members: [DeclSyntax] = []

        // `@exclusivity(unchecked)`: the store reads and writes these for every object it
        // commits, through protocol witnesses that would otherwise check each access at run
        // time (about a tenth of a bulk insert). Only generated code and the store touch
        // them, never with overlapping accesses.
        if model.key.isSynthesized {
            members.append("@exclusivity(unchecked) public private(set) var id: Int64 = 0")
        }
        members.append("@exclusivity(unchecked) public var _$shark = SharkORM.ModelState()")
        members.append("public static var _sharkEntityName: String { \(literal: entity) }")
        members.append(
            "public static var _sharkKeyKind: SharkORM.KeyKind { SharkORM._SharkCoding.keyKind((\(raw: model.key.type.trimmedDescription)).self) }"
        )

        let columns = model.properties.map { property -> String in
            let type = property.type.trimmedDescription
            var defaultValue = "nil"
            if let initializer = property.initializer, property.column != 0 {
                defaultValue = "try? SharkORM._SharkCoding.value((\(initializer.trimmedDescription)) as \(type))"
            }
            let deleteRule = property.deleteRule.map { ", deleteRule: \($0.trimmedDescription)" } ?? ""
            let previousNames = property.previousName.map { ",\npreviousNames: [\($0.trimmedDescription)]" } ?? ""
            return """
                SharkORM.ColumnSchema(
                    name: \(StringLiteralExprSyntax(content: property.name).description),
                    type: SharkORM._SharkCoding.storageType((\(type)).self),
                    isNullable: SharkORM._SharkCoding.isNullable((\(type)).self),
                    defaultValue: \(defaultValue),
                    logicalType: SharkORM._SharkCoding.logicalType((\(type)).self),
                    bitWidth: SharkORM._SharkCoding.bitWidth((\(type)).self),
                    relationship: SharkORM._SharkCoding.relationship((\(type)).self\(deleteRule))\(previousNames)
                )
                """
        }
        members.append(
            """
            public static let _sharkSchemaColumns: [SharkORM.ColumnSchema] = [
            \(raw: columns.joined(separator: ",\n"))
            ]
            """)

        let keyPathCases = model.properties.map {
            "if keyPath == \\\(typeName).\(ModelAnalysis.reference($0.name)) as AnyKeyPath { return \($0.column) }"
        }
        let keyPaths = model.properties.sorted { $0.column < $1.column }.map {
            "\\\(typeName).\(ModelAnalysis.reference($0.name))"
        }
        let optionalKeyPaths = model.properties.sorted { $0.column < $1.column }.map {
            "\\\(typeName)?.?.\(ModelAnalysis.reference($0.name))"
        }
        members.append(
            """
            public static var _sharkPropertyKeyPaths: [AnyKeyPath] { [\(raw: keyPaths.joined(separator: ", "))] }
            """)
        members.append(
            """
            public static var _sharkOptionalPropertyKeyPaths: [AnyKeyPath] { [\(raw: optionalKeyPaths.joined(separator: ", "))] }
            """)
        members.append(
            """
            public static func _sharkColumnIndex(for keyPath: AnyKeyPath) -> Int32? {
            \(raw: keyPathCases.joined(separator: "\n"))
            return nil
            }
            """)

        // Reads assign the backing storage directly: going through the setters would mark
        // every column of a freshly read object as changed.
        let reads = model.properties.map {
            "self.\($0.storage) = try SharkORM._SharkCoding.read((\($0.type.trimmedDescription)).self, from: row, at: \($0.column))"
        }
        members.append(
            """
            public required init(_sharkRow row: borrowing any SharkORM.RowReader) throws(SharkORM.SharkError) {
            \(raw: reads.joined(separator: "\n"))
            }
            """)
        if !model.hasInitializer && model.allStoredHaveValues {
            members.append("public init() {}")
        }

        // Writes read the backing storage, not the getter: a relationship writes the key it
        // holds without loading the related object.
        let writes = model.properties.map {
            "case \($0.column): try SharkORM._SharkCoding.write(self.\($0.storage), to: row, at: position)"
        }
        members.append(
            """
            public func _sharkWrite(column: Int32, to row: any SharkORM.RowWriter, at position: Int32) throws(SharkORM.SharkError) {
            switch column {
            \(raw: writes.joined(separator: "\n"))
            default: break
            }
            }
            """)

        // The whole row at once, straight-line: what an insert calls.
        let bulkWrites = model.properties.map {
            "if first <= \($0.column) { try SharkORM._SharkCoding.write(self.\($0.storage), to: row, at: \($0.column) + offset) }"
        }
        members.append(
            """
            public func _sharkWriteColumns(from first: Int32, to row: any SharkORM.RowWriter, offset: Int32) throws(SharkORM.SharkError) {
            \(raw: bulkWrites.joined(separator: "\n"))
            }
            """)

        // A restore keeps a related object the row still refers to (see `_SharkCoding.keep`).
        let restores = model.properties.map {
            "self.\($0.storage) = SharkORM._SharkCoding.keep(self.\($0.storage), orRead: try SharkORM._SharkCoding.read((\($0.type.trimmedDescription)).self, from: row, at: \($0.column)))"
        }
        members.append(
            """
            public func _sharkRestore(from row: any SharkORM.RowReader) throws(SharkORM.SharkError) {
            \(raw: restores.joined(separator: "\n"))
            }
            """)

        let related = model.properties.filter { !$0.isSynthesized }.map {
            "case \($0.column): return SharkORM._SharkCoding.related(self.\($0.storage))"
        }
        members.append(
            """
            public func _sharkRelated(column: Int32) -> (any SharkORM.Model)? {
            switch column {
            \(raw: related.joined(separator: "\n"))
            default: return nil
            }
            }
            """)

        let assign = "SharkORM._SharkCoding.assignKey(key, to: &self.id)"
        members.append(
            """
            public func _sharkAssignKey(_ key: Int64) {
            \(raw: assign)
            }
            """)
        return members
    }

    private static func entityName(from node: AttributeSyntax) -> String? {
        guard case .argumentList(let arguments) = node.arguments else { return nil }
        for argument in arguments where argument.label?.text == "entity" {
            if let literal = argument.expression.as(StringLiteralExprSyntax.self),
                let segment = literal.segments.first?.as(StringSegmentSyntax.self)
            {
                return segment.content.text
            }
        }
        return nil
    }
}

// The member-attribute role.
extension ModelExpansion {
    public static func expansion(
        of node: AttributeSyntax,
        attachedTo declaration: some DeclGroupSyntax,
        providingAttributesFor member: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [AttributeSyntax] {
        guard declaration.is(ClassDeclSyntax.self),
            let variable = member.as(VariableDeclSyntax.self),
            let name = variable.bindings.first?.pattern.as(IdentifierPatternSyntax.self).map({
                ModelAnalysis.name(of: $0.identifier)
            })
        else { return [] }
        let model = ModelAnalysis(declaration)
        guard model.diagnostics.isEmpty,
            let property = model.properties.first(where: { $0.name == name && !$0.isSynthesized })
        else { return [] }
        return ["@SharkORM._SharkPersisted(column: \(raw: property.column))"]
    }
}

// The extension role.
extension ModelExpansion {
    public static func expansion(
        of node: AttributeSyntax,
        attachedTo declaration: some DeclGroupSyntax,
        providingExtensionsOf type: some TypeSyntaxProtocol,
        conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [ExtensionDeclSyntax] {
        // No conformance for a declaration with errors: its missing members would only add
        // confusing follow-on errors to the ones the member role reported.
        guard declaration.is(ClassDeclSyntax.self), !protocols.isEmpty, ModelAnalysis(declaration).diagnostics.isEmpty
        else { return [] }
        return [try ExtensionDeclSyntax("extension \(type.trimmed): SharkORM.Model {}")]
    }
}

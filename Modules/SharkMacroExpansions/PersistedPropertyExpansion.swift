import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@_SharkPersisted(column:)`, added by `@Model` to each persisted property: moves the value
/// into a private `_name` backing property and routes every write through a setter that
/// marks the column changed, so a commit writes only changed columns.
///
/// The `init` accessor lets the class's own initializers assign the property as if it were
/// stored.
public protocol PersistedPropertyExpansion: AccessorMacro, PeerMacro {}

// The accessor role.
extension PersistedPropertyExpansion {
    public static func expansion(
        of node: AttributeSyntax,
        providingAccessorsOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [AccessorDeclSyntax] {
        guard let (name, _) = nameAndBinding(declaration), let column = column(of: node) else { return [] }
        let storage = ModelAnalysis.reference("_" + name)
        return [
            """
            @storageRestrictions(initializes: \(raw: storage))
            init(initialValue) {
                \(raw: storage) = initialValue
            }
            """,
            // Through `_SharkCoding.get`, an identity for every type but models: a to-one
            // relationship loads its object there on first access.
            // A property a lightweight fetch left out is loaded first (a check of one empty
            // set for every other object).
            """
            get {
                if !_$shark.unloaded.isEmpty {
                    SharkORM._SharkCoding.loadIfLeftOut(column: \(raw: column), of: self)
                }
                return SharkORM._SharkCoding.get(\(raw: storage), owner: self)
            }
            """,
            """
            set {
                \(raw: storage) = newValue
                _$shark.markDirty(\(raw: column))
            }
            """,
        ]
    }

    private static func column(of node: AttributeSyntax) -> String? {
        guard case .argumentList(let arguments) = node.arguments else { return nil }
        return arguments.first?.expression.trimmedDescription
    }

    static func nameAndBinding(_ declaration: some DeclSyntaxProtocol) -> (String, PatternBindingSyntax)? {
        guard let variable = declaration.as(VariableDeclSyntax.self),
            let binding = variable.bindings.first,
            let pattern = binding.pattern.as(IdentifierPatternSyntax.self)
        else { return nil }
        let name = ModelAnalysis.name(of: pattern.identifier)
        return (name, binding)
    }
}

// The peer role.
extension PersistedPropertyExpansion {
    public static func expansion(
        of node: AttributeSyntax,
        providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard let (name, binding) = nameAndBinding(declaration) else { return [] }
        var initializer = binding.initializer.map { " = " + $0.value.trimmedDescription } ?? ""
        let type = binding.typeAnnotation?.type.trimmedDescription
        // A UUID key with no initial value gets a new time-ordered one.
        if name == "id", initializer.isEmpty, let written = binding.typeAnnotation?.type, ModelAnalysis.isUUID(written)
        {
            initializer = " = UUID.v7()"
        }
        let annotation = type.map { ": " + $0 } ?? ""
        return ["private var \(raw: ModelAnalysis.reference("_" + name))\(raw: annotation)\(raw: initializer)"]
    }
}

/// `@Relationship(deleteRule:)`, `@Renamed(from:)` and `@Transient`: attributes `@Model`
/// reads (a to-one relationship's delete rule, a property's previous name, a property kept
/// out of storage). The macros themselves generate nothing.
public protocol MarkerAttributeExpansion: PeerMacro {}

extension MarkerAttributeExpansion {
    public static func expansion(
        of node: AttributeSyntax,
        providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        []
    }
}

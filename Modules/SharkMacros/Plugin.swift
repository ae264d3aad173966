import SharkMacroExpansions
import SwiftCompilerPlugin
import SwiftSyntaxMacros

/// The compiler plugin behind `@Model`. The compiler finds each macro by the module and type
/// names `#externalMacro` gives, so the types live here; their expansions are
/// SharkMacroExpansions', a library the tests link instead of this plugin. (A test target
/// that depends on a macro target is built for the host, and with it every module the tests
/// import: SharkORM, its drivers and all their dependencies would compile twice.)
@main
struct SharkMacrosPlugin: CompilerPlugin {
    let providingMacros: [any Macro.Type] = [
        ModelMacro.self,
        PersistedPropertyMacro.self,
        TransientMacro.self,
        RelationshipMacro.self,
        RenamedMacro.self,
    ]
}

/// `@Model`.
public enum ModelMacro: ModelExpansion {}

/// `@_SharkPersisted(column:)`, which `@Model` adds to each persisted property.
public enum PersistedPropertyMacro: PersistedPropertyExpansion {}

/// `@Transient`.
public enum TransientMacro: MarkerAttributeExpansion {}

/// `@Relationship(deleteRule:)`.
public enum RelationshipMacro: MarkerAttributeExpansion {}

/// `@Renamed(from:)`.
public enum RenamedMacro: MarkerAttributeExpansion {}

import SwiftCompilerPlugin
import SwiftSyntaxMacros

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

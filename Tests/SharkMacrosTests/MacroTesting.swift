import SharkMacroExpansions
import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacrosGenericTestSupport
import Testing

/// The macros under test: the expansions the compiler plugin's types share.
enum ModelMacro: ModelExpansion {}
enum TransientMacro: MarkerAttributeExpansion {}
enum PersistedPropertyMacro: PersistedPropertyExpansion {}

/// The macros under test, by the names source code uses.
let sharkMacros: [String: MacroSpec] = [
    "Model": MacroSpec(type: ModelMacro.self, conformances: ["Model"]),
    "Transient": MacroSpec(type: TransientMacro.self),
    "_SharkPersisted": MacroSpec(type: PersistedPropertyMacro.self),
]

/// `assertMacroExpansion`, reporting mismatches as Swift Testing issues.
func expectExpansion(
    _ source: String, expandedSource: String, diagnostics: [DiagnosticSpec] = [],
    sourceLocation: SourceLocation = #_sourceLocation
) {
    assertMacroExpansion(
        source, expandedSource: expandedSource, diagnostics: diagnostics, macroSpecs: sharkMacros,
        indentationWidth: .spaces(4),
        failureHandler: { failure in
            Issue.record(Comment(rawValue: failure.message), sourceLocation: sourceLocation)
        })
}

/// Expands `source` expecting exactly the given error messages, in order.
func expectDiagnostics(
    _ source: String, messages: [String], sourceLocation: SourceLocation = #_sourceLocation
) {
    var diagnostics: [String] = []
    assertMacroExpansion(
        source, expandedSource: "", macroSpecs: sharkMacros,
        failureHandler: { failure in diagnostics.append(failure.message) })
    for message in messages {
        #expect(
            diagnostics.contains { $0.contains(message) }, "missing diagnostic: \(message)",
            sourceLocation: sourceLocation)
    }
}

/// Expands `source` and reports any diagnostic it produces.
func expectNoDiagnostics(_ source: String, _ report: (String) -> Void) {
    assertMacroExpansion(
        source, expandedSource: "", macroSpecs: sharkMacros,
        failureHandler: { failure in
            // The only acceptable failure is the expanded-source mismatch itself.
            if !failure.message.hasPrefix("Macro expansion did not produce the expected expanded source") {
                report(failure.message)
            }
        })
}

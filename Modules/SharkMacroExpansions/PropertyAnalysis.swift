import SwiftDiagnostics
import SwiftSyntax

/// One persisted property of a model class, as the macros see it.
struct PersistedProperty {
    let name: String
    /// The declared (or literal-inferred) type, as written.
    let type: TypeSyntax
    let initializer: ExprSyntax?
    /// The column position: 0 for the key, then declaration order.
    var column: Int32
    /// Whether the declaration is the macro's own (`id` added when the class has none).
    let isSynthesized: Bool
    /// The `deleteRule:` argument of a `@Relationship` attribute, as written (`.cascade`).
    var deleteRule: ExprSyntax? = nil
    /// The `from:` argument of a `@Renamed` attribute, as written (a string literal).
    var previousName: ExprSyntax? = nil

    /// The Swift expression that reads or writes the property's value without running its
    /// accessors: the backing storage `@_SharkPersisted` adds, or the synthesized `id`.
    var storage: String { ModelAnalysis.reference(isSynthesized ? name : "_" + name) }
}

/// What `@Model` learns from a class declaration. Every macro role runs the same analysis so
/// that column positions always agree.
struct ModelAnalysis {
    var typeName: String
    var properties: [PersistedProperty] = []
    var diagnostics: [Diagnostic] = []
    /// Whether the class declares a designated initializer.
    var hasInitializer = false
    var allStoredHaveValues = true

    var key: PersistedProperty { properties[0] }

    /// Whether `type` is spelt as `UUID`: such a key without an initial value gets a new
    /// time-ordered one. (Which key types are allowed at all is the type checker's call, through
    /// `_SharkCoding.keyKind`, so a `typealias`ed key works; only this default needs the name.)
    static func isUUID(_ type: TypeSyntax) -> Bool {
        ["UUID", "Foundation.UUID"].contains(type.trimmedDescription)
    }

    init(_ declaration: some DeclGroupSyntax) {
        typeName = declaration.as(ClassDeclSyntax.self)?.name.trimmedDescription ?? "Self"
        var key: PersistedProperty?
        var others: [PersistedProperty] = []
        for member in declaration.memberBlock.members {
            // Only designated initializers suppress the generated `init()`, as in Swift itself.
            if let initializer = member.decl.as(InitializerDeclSyntax.self),
                !initializer.modifiers.contains(where: { $0.name.text == "convenience" })
            {
                hasInitializer = true
            }
            guard let variable = member.decl.as(VariableDeclSyntax.self) else { continue }
            guard let property = analyse(variable) else { continue }
            if property.name == "id" { key = property } else { others.append(property) }
        }
        let persistedNames = Set(([key].compactMap { $0 } + others).map(\.name))
        var memberNames: [(String, Syntax)] = []
        for member in declaration.memberBlock.members {
            guard let variable = member.decl.as(VariableDeclSyntax.self) else { continue }
            for binding in variable.bindings {
                if let pattern = binding.pattern.as(IdentifierPatternSyntax.self) {
                    memberNames.append((Self.name(of: pattern.identifier), Syntax(pattern)))
                }
            }
        }
        for (name, node) in memberNames {
            if let problem = Self.reservedProblem(name, siblings: persistedNames) {
                diagnostics.append(
                    Diagnostic(node: node, message: ModelDiagnostic.reservedName(property: name, why: problem)))
            }
        }
        let keyProperty =
            key
            ?? PersistedProperty(
                name: "id", type: TypeSyntax("Int64"), initializer: ExprSyntax("0"), column: 0, isSynthesized: true)
        properties = [keyProperty] + others
        for index in properties.indices { properties[index].column = Int32(index) }
    }

    /// The persisted property a variable declares, or nil when it is not persisted.
    private mutating func analyse(_ variable: VariableDeclSyntax) -> PersistedProperty? {
        let modifiers = Set(variable.modifiers.map(\.name.text))
        if modifiers.contains("static") || modifiers.contains("class") { return nil }
        let isTransient = variable.attributes.contains { attribute in
            guard case .attribute(let attribute) = attribute else { return false }
            let name = attribute.attributeName.trimmedDescription
            return name == "Transient" || name == "SharkORM.Transient"
        }
        guard let binding = variable.bindings.first,
            let identifier = binding.pattern.as(IdentifierPatternSyntax.self).map({ Self.name(of: $0.identifier) })
        else { return nil }
        if let accessors = binding.accessorBlock {
            switch accessors.accessors {
            case .getter: return nil
            case .accessors(let list):
                let kinds = Set(list.map(\.accessorSpecifier.text))
                if kinds.contains("get") || kinds.contains("_read") { return nil }
                if !isTransient {
                    diagnostics.append(
                        Diagnostic(node: variable, message: ModelDiagnostic.observers(property: identifier)))
                }
                return nil
            }
        }
        if isTransient {
            if binding.initializer == nil && binding.typeAnnotation?.type.is(OptionalTypeSyntax.self) != true {
                allStoredHaveValues = false
                diagnostics.append(
                    Diagnostic(node: variable, message: ModelDiagnostic.transientWithoutValue(property: identifier)))
            }
            return nil
        }
        if modifiers.contains("lazy") {
            diagnostics.append(Diagnostic(node: variable, message: ModelDiagnostic.lazyProperty(property: identifier)))
            return nil
        }
        if variable.bindings.count > 1 {
            diagnostics.append(Diagnostic(node: variable, message: ModelDiagnostic.multipleBindings))
            return nil
        }
        if variable.bindingSpecifier.tokenKind == .keyword(.let) {
            diagnostics.append(Diagnostic(node: variable, message: ModelDiagnostic.letProperty(property: identifier)))
            return nil
        }
        guard let type = binding.typeAnnotation?.type ?? Self.inferType(of: binding.initializer?.value) else {
            diagnostics.append(Diagnostic(node: variable, message: ModelDiagnostic.missingType(property: identifier)))
            return nil
        }
        if let reason = Self.unsupported(type) {
            diagnostics.append(
                Diagnostic(node: type, message: ModelDiagnostic.unsupportedType(property: identifier, type: reason)))
            return nil
        }
        let deleteRule = Self.argument("deleteRule", of: "Relationship", in: variable)
        if let deleteRule, deleteRule.trimmedDescription.hasSuffix("nullify"), !type.is(OptionalTypeSyntax.self) {
            diagnostics.append(
                Diagnostic(node: deleteRule, message: ModelDiagnostic.nullifyNonOptional(property: identifier)))
        }
        if type.trimmedDescription == typeName {
            diagnostics.append(
                Diagnostic(
                    node: type, message: ModelDiagnostic.nonOptionalSelfReference(property: identifier, type: typeName))
            )
            return nil
        }
        // A UUID key without an initial value gets a new v7 UUID (see PersistedPropertyExpansion),
        // so it does not stop the macro from generating `init()`.
        let isDefaultedKey = identifier == "id" && Self.isUUID(type)
        if binding.initializer == nil && !type.is(OptionalTypeSyntax.self) && !isDefaultedKey {
            allStoredHaveValues = false
        }
        return PersistedProperty(
            name: identifier, type: type.trimmed, initializer: binding.initializer?.value.trimmed, column: 0,
            isSynthesized: false, deleteRule: deleteRule,
            previousName: Self.argument("from", of: "Renamed", in: variable))
    }

    /// The argument labelled `label` of the property's attribute `name`, if it has one.
    private static func argument(_ label: String, of name: String, in variable: VariableDeclSyntax) -> ExprSyntax? {
        for attribute in variable.attributes {
            guard case .attribute(let attribute) = attribute,
                [name, "SharkORM." + name].contains(attribute.attributeName.trimmedDescription),
                case .argumentList(let arguments) = attribute.arguments
            else { continue }
            return arguments.first { $0.label?.text == label }?.expression.trimmed
        }
        return nil
    }

    /// An identifier as the compiler sees it: `` `where` `` is the property `where`.
    static func name(of token: TokenSyntax) -> String {
        let text = token.text
        guard text.count >= 2, text.hasPrefix("`"), text.hasSuffix("`") else { return text }
        return String(text.dropFirst().dropLast())
    }

    /// `name` as Swift source that refers to it whatever it is: in backticks when it is a
    /// keyword (`where`) or a raw identifier (`first name`), as written otherwise.
    static func reference(_ name: String) -> String {
        let isPlain =
            name.first.map { $0 == "_" || $0.isLetter } == true
            && name.allSatisfy { $0 == "_" || $0.isLetter || $0.isNumber }
        return isPlain && !keywords.contains(name) ? name : "`" + name + "`"
    }

    /// Swift's keywords, which need backticks to be used as names.
    static let keywords: Set<String> = [
        "associatedtype", "class", "deinit", "enum", "extension", "fileprivate", "func", "import", "init",
        "inout", "internal", "let", "open", "operator", "private", "precedencegroup", "protocol", "public",
        "rethrows", "static", "struct", "subscript", "typealias", "var", "break", "case", "catch", "continue",
        "default", "defer", "do", "else", "fallthrough", "for", "guard", "if", "in", "repeat", "return", "throw",
        "switch", "where", "while", "Any", "as", "await", "false", "is", "nil", "self", "Self", "super", "throws",
        "true", "try", "_",
    ]

    /// Names @Model generates members under, which a property must not take.
    static func reservedProblem(_ name: String, siblings: Set<String>) -> String? {
        if name.hasPrefix("_$shark") || name.hasPrefix("_shark") {
            return "names starting with '_shark' or '_$shark' are reserved for the members @Model generates"
        }
        if name.hasPrefix("_"), siblings.contains(String(name.dropFirst())) {
            return "@Model stores property '\(name.dropFirst())' in a generated '\(name)'"
        }
        return nil
    }

    /// The type of a literal initializer, for properties declared without an annotation.
    static func inferType(of expression: ExprSyntax?) -> TypeSyntax? {
        guard var expression else { return nil }
        if let prefix = expression.as(PrefixOperatorExprSyntax.self), prefix.operator.text == "-" {
            expression = prefix.expression
        }
        if expression.is(IntegerLiteralExprSyntax.self) { return "Int" }
        if expression.is(FloatLiteralExprSyntax.self) { return "Double" }
        if expression.is(StringLiteralExprSyntax.self) { return "String" }
        if expression.is(BooleanLiteralExprSyntax.self) { return "Bool" }
        if let call = expression.as(FunctionCallExprSyntax.self) {
            // `Date()`, `UUID()`, `UUID.v7()`, `Data(count: 4)`: the type named by the call.
            if let reference = call.calledExpression.as(DeclReferenceExprSyntax.self),
                reference.baseName.text.first?.isUppercase == true
            {
                return TypeSyntax(IdentifierTypeSyntax(name: reference.baseName.trimmed))
            }
            if let member = call.calledExpression.as(MemberAccessExprSyntax.self),
                let base = member.base?.as(DeclReferenceExprSyntax.self),
                base.baseName.text.first?.isUppercase == true,
                ["v7", "init", "now"].contains(member.declName.baseName.text)
            {
                return TypeSyntax(IdentifierTypeSyntax(name: base.baseName.trimmed))
            }
        }
        return nil
    }

    /// Why `type` can never be stored, or nil when it may be (the compiler checks the rest).
    static func unsupported(_ type: TypeSyntax) -> String? {
        if let optional = type.as(OptionalTypeSyntax.self) {
            if optional.wrappedType.is(OptionalTypeSyntax.self) { return type.trimmedDescription }
            return unsupported(optional.wrappedType).map { _ in type.trimmedDescription }
        }
        if type.is(TupleTypeSyntax.self) || type.is(FunctionTypeSyntax.self) || type.is(SomeOrAnyTypeSyntax.self)
            || type.is(MetatypeTypeSyntax.self) || type.is(CompositionTypeSyntax.self)
            || type.is(ImplicitlyUnwrappedOptionalTypeSyntax.self) || type.is(AttributedTypeSyntax.self)
        {
            return type.trimmedDescription
        }
        if let identifier = type.as(IdentifierTypeSyntax.self) {
            let never: Set<String> = [
                "Any", "AnyObject", "Character", "Int128", "UInt128", "Float16", "Float80", "Never", "Void",
                "NSObject", "AnyHashable", "Unicode.Scalar", "Substring", "ObjectIdentifier",
            ]
            if never.contains(identifier.name.text) { return type.trimmedDescription }
        }
        return nil
    }
}

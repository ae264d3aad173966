import SwiftDiagnostics

/// The errors `@Model` reports at compile time, each naming the property at fault.
enum ModelDiagnostic: DiagnosticMessage {
    case notAClass
    case unsupportedType(property: String, type: String)
    case missingType(property: String)
    case letProperty(property: String)
    case multipleBindings
    case observers(property: String)
    case lazyProperty(property: String)
    case transientWithoutValue(property: String)
    case reservedName(property: String, why: String)
    case nullifyNonOptional(property: String)
    case nonOptionalSelfReference(property: String, type: String)

    static let supportedTypes =
        "Bool, Int, Int8, Int16, Int32, Int64, UInt, UInt8, UInt16, UInt32, UInt64, Float, Double, String, Data, Date, UUID, URL, Decimal, a RawRepresentable enum, a Codable value, or an optional of one of these"

    var message: String {
        switch self {
        case .notAClass:
            return "@Model can only be applied to a class"
        case .unsupportedType(let property, let type):
            return
                "property '\(property)' has type '\(type)', which cannot be stored; supported types are \(Self.supportedTypes) (mark it @Transient to keep it out of storage)"
        case .missingType(let property):
            return "property '\(property)' needs a type annotation, e.g. 'var \(property): String = …'"
        case .letProperty(let property):
            return "property '\(property)' is a 'let'; persisted properties must be 'var' (or mark it @Transient)"
        case .multipleBindings:
            return "declare one persisted property per 'var'"
        case .observers(let property):
            return
                "property '\(property)' has willSet/didSet observers, which @Model does not support on persisted properties"
        case .lazyProperty(let property):
            return "property '\(property)' is lazy; mark it @Transient to keep it out of storage"
        case .transientWithoutValue(let property):
            return "@Transient property '\(property)' needs an initial value"
        case .reservedName(let property, let why):
            return "property '\(property)' cannot be declared in a @Model class: \(why); rename it"
        case .nullifyNonOptional(let property):
            return
                "relationship '\(property)' is not optional, so removing the object it refers to cannot set it to nil; make it optional, or use deleteRule .cascade or .deny"
        case .nonOptionalSelfReference(let property, let type):
            return
                "relationship '\(property)' refers to \(type) itself and is not optional: every \(type) would need another one loaded before it; make it optional ('\(type)?')"
        }
    }

    var diagnosticID: MessageID {
        let id: String
        switch self {
        case .notAClass: id = "notAClass"
        case .unsupportedType: id = "unsupportedType"
        case .missingType: id = "missingType"
        case .letProperty: id = "letProperty"
        case .multipleBindings: id = "multipleBindings"
        case .observers: id = "observers"
        case .lazyProperty: id = "lazyProperty"
        case .transientWithoutValue: id = "transientWithoutValue"
        case .reservedName: id = "reservedName"
        case .nullifyNonOptional: id = "nullifyNonOptional"
        case .nonOptionalSelfReference: id = "nonOptionalSelfReference"
        }
        return MessageID(domain: "SharkMacros", id: id)
    }

    var severity: DiagnosticSeverity { .error }
}

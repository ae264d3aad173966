import Testing

@Suite("@Model diagnostics")
struct ModelDiagnosticsTests {
    static let supported = "supported types are Bool, Int, Int8, Int16, Int32, Int64, UInt, UInt8"

    @Test("an unsupported property type names the property and the supported types")
    func unsupportedTypes() {
        for (declaration, property, type) in [
            ("var pair: (Int, Int) = (0, 0)", "pair", "(Int, Int)"),
            ("var callback: () -> Void = {}", "callback", "() -> Void"),
            ("var anything: Any = 0", "anything", "Any"),
            ("var shape: any Shape", "shape", "any Shape"),
            ("var letter: Character = \"a\"", "letter", "Character"),
            ("var big: Int128 = 0", "big", "Int128"),
            ("var maybe: Any?", "maybe", "Any?"),
        ] {
            expectDiagnostics(
                """
                @Model
                final class Thing {
                    \(declaration)
                }
                """,
                messages: ["property '\(property)' has type '\(type)', which cannot be stored", Self.supported])
        }
    }

    @Test("relationships that cannot work are explained")
    func relationships() {
        expectDiagnostics(
            """
            @Model
            final class Employee {
                @Relationship(deleteRule: .nullify) var department: Department
            }
            """,
            messages: ["relationship 'department' is not optional", "use deleteRule .cascade or .deny"])
        expectDiagnostics(
            """
            @Model
            final class Employee {
                var manager: Employee
            }
            """,
            messages: ["relationship 'manager' refers to Employee itself and is not optional", "'Employee?'"])
    }

    @Test("other mistakes are explained")
    func otherMistakes() {
        expectDiagnostics(
            "@Model struct Thing { var name = \"\" }", messages: ["@Model can only be applied to a class"])
        expectDiagnostics(
            "@Model final class Thing { let name = \"\" }",
            messages: ["property 'name' is a 'let'; persisted properties must be 'var'"])
        expectDiagnostics(
            "@Model final class Thing { var a = 0, b = 0 }", messages: ["declare one persisted property per 'var'"])
        expectDiagnostics(
            "@Model final class Thing { var name = makeName() }",
            messages: ["property 'name' needs a type annotation"])
        expectDiagnostics(
            "@Model final class Thing { var n: Int = 0 { didSet {} } }",
            messages: ["property 'n' has willSet/didSet observers"])
        expectDiagnostics(
            "@Model final class Thing { @Transient var cache: [Int] }",
            messages: ["@Transient property 'cache' needs an initial value"])
    }

    @Test("names @Model generates members under are refused, naming the property")
    func reservedNames() {
        expectDiagnostics(
            "@Model final class Thing { var _sharkCache: Int = 0 }",
            messages: ["property '_sharkCache' cannot be declared in a @Model class", "reserved"])
        expectDiagnostics(
            "@Model final class Thing { var _$shark: Int = 0 }",
            messages: ["property '_$shark' cannot be declared in a @Model class"])
        expectDiagnostics(
            "@Model final class Thing { var name: String = \"\"; @Transient var _name = \"\" }",
            messages: ["property '_name' cannot be declared in a @Model class", "generated '_name'"])
        expectDiagnostics(
            "@Model final class Thing { var `where`: String = \"\"; var _where: Int = 0 }",
            messages: ["property '_where' cannot be declared"])
    }

    @Test("supported declarations produce no diagnostics")
    func clean() {
        var failures: [String] = []
        // Expanding must succeed silently; only the expanded text differs from "".
        for declaration in [
            "var a: Int = 0", "var b = 1.5", "var c: [String] = []", "var d: Kind = .one", "var e: UUID?",
            "var id: UUID", "@Transient var f = 0", "static let g = 1", "var h: Int { 1 }",
            "var id: Identifier = Identifier()", "var `where`: String = \"\"", "var `default`: Int = 0",
            "var `class`: String?", "var _private = 0",
        ] {
            let source = "@Model final class Thing { \(declaration) }"
            expectNoDiagnostics(source) { failures.append("\(declaration): \($0)") }
        }
        #expect(failures.isEmpty, "\(failures)")
    }
}

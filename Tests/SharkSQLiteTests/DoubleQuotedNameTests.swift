import SharkORM
import SharkSQLite
import Testing

@testable import SharkDriverConformance

/// SQLite's dialect as the SQLite driver configures it (3.29 and later).
@Suite("Raw SQL on SQLite")
struct DoubleQuotedNameTests {
    @Test("a double-quoted name that matches no column is an error, not the string SQLite would make it")
    func misspeltColumn() throws {
        let store = try Store(.sqliteTemporary)
        defer { store.close() }
        try store.commit(Person(name: "Ada", age: 36, payrollNumber: 1))
        #expect(throws: SharkError.self) { try store.rows("SELECT \"nmae\" FROM Person") }
        #expect(try store.rows("SELECT \"name\" FROM Person").rows == [[.text("Ada")]])
    }
}

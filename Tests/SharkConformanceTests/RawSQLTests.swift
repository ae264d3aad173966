import Foundation
@_spi(SharkDriver) import SharkORM
import Testing

@Suite("Raw SQL")
struct RawSQLTests {
    @Test("SQL drivers run raw SQL with bound arguments; the memory driver refuses it", arguments: TestDriver.allCases)
    func rawSQL(driver: TestDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        try store.commit([
            Person(name: "Ada", age: 36, payrollNumber: 1), Person(name: "Alan", age: 41, payrollNumber: 2),
        ])
        switch driver {
        case .memory:
            #expect(
                throws: SharkError.unsupported(
                    "raw SQL: the memory driver has no SQL engine; use queries, or a SQL driver")
            ) {
                try store.rows("SELECT 1")
            }
            #expect(throws: SharkError.self) { try store.execute("DELETE FROM Person") }
        case .sqlite, .sqlcipher:
            let result = try store.rows("SELECT name, age FROM Person WHERE age > ? ORDER BY name", 30)
            #expect(result.columns == ["name", "age"])
            #expect(result.rows == [[.text("Ada"), .integer(36)], [.text("Alan"), .integer(41)]])
            // A hostile argument stays a value.
            #expect(
                try store.rows("SELECT count(*) FROM Person WHERE name = ?", "x' OR '1'='1").rows == [[.integer(0)]])
            #expect(try store.execute("UPDATE Person SET age = age + 1 WHERE name LIKE ?", "A%") == 2)
            #expect(try Person.query(in: store).where(\.age == 37).count() == 1)
            #expect(throws: SharkError.self) { try store.rows("SELEC nonsense") }
            if driver == .sqlite {
                // A misspelt column is an error, not the string literal SQLite would make it.
                #expect(throws: SharkError.self) { try store.rows("SELECT \"nmae\" FROM Person") }
            }
        }
    }
}

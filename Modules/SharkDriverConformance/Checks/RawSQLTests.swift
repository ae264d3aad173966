import Foundation
@_spi(SharkDriver) import SharkORM
import Testing

@Suite("Raw SQL")
struct RawSQLTests {
    func rawSQL(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        try store.commit([
            Person(name: "Ada", age: 36, payrollNumber: 1), Person(name: "Alan", age: 41, payrollNumber: 2),
        ])
        if !driver.hasRawSQL {
            #expect(
                throws: SharkError.unsupported(
                    "raw SQL: the \(driver.name) driver has no SQL engine; use queries, or a SQL driver")
            ) {
                try store.rows("SELECT 1")
            }
            #expect(throws: SharkError.self) { try store.execute("DELETE FROM Person") }
        } else {
            let result = try store.rows("SELECT name, age FROM Person WHERE age > ? ORDER BY name", 30)
            #expect(result.columns == ["name", "age"])
            #expect(result.rows == [[.text("Ada"), .integer(36)], [.text("Alan"), .integer(41)]])
            // A hostile argument stays a value.
            #expect(
                try store.rows("SELECT count(*) FROM Person WHERE name = ?", "x' OR '1'='1").rows == [[.integer(0)]])
            #expect(try store.execute("UPDATE Person SET age = age + 1 WHERE name LIKE ?", "A%") == 2)
            #expect(try Person.query(in: store).where(\.age == 37).count() == 1)
            #expect(throws: SharkError.self) { try store.rows("SELEC nonsense") }
        }
    }
}

extension RawSQLTests {
    /// SQL drivers write updates without a statement journal where one update can only write
    /// its own row; a trigger added later writes beyond the row, and a failing update must
    /// then undo the trigger's writes too.
    func failedUpdateUndoesTriggerWrites(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        let ada = Person(name: "Ada", age: 36, payrollNumber: 1)
        let alan = Person(name: "Alan", age: 41, payrollNumber: 2)
        try store.commit([ada, alan])
        ada.age = 37
        try store.commit(ada)  // prepares the entity's update statements before the trigger exists
        try store.execute("CREATE TABLE audit (note TEXT)")
        try store.execute(
            "CREATE TRIGGER audit_person BEFORE UPDATE ON Person BEGIN INSERT INTO audit VALUES ('updated'); END")
        try store.write { _ throws in
            ada.payrollNumber = 2  // Alan's: the update fails on the unique index
            #expect(throws: SharkError.self) { try store.commit(ada) }
            #expect(try store.rows("SELECT count(*) FROM audit").rows == [[.integer(0)]])
        }
        ada.payrollNumber = 3
        try store.commit(ada)
        #expect(try store.rows("SELECT count(*) FROM audit").rows == [[.integer(1)]])
    }
}

extension RawSQLTests {
    /// `rows(_:)` outside a write transaction runs on a reader, which never writes: a
    /// statement that may change the database is refused before it runs (it would otherwise
    /// skip the write stage: no observer, event or sync would hear of it).
    func rawReadsOnlyRead(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        try store.commit(Person(name: "Ada", age: 36, payrollNumber: 1))
        for statement in [
            "INSERT INTO Person (name, age, payrollNumber) VALUES ('Alan', 41, 2)", "DELETE FROM Person",
            "CREATE TABLE audit (note TEXT)", "PRAGMA user_version = 7", "VACUUM", "BEGIN", "SAVEPOINT s",
            "COMMIT", "PRAGMA query_only = 0", "PRAGMA wal_checkpoint", "PRAGMA optimize",
            "ATTACH DATABASE ':memory:' AS other", "ANALYZE",
        ] {
            #expect(throws: SharkError.self, "\(statement)") { try store.rows(statement) }
        }
        // The readers were left as they were: each still reads, outside any transaction.
        for _ in 0..<8 { #expect(try store.rows("SELECT count(*) FROM Person").rows == [[.integer(1)]]) }
        #expect(try Person.query(in: store).count() == 1)
        #expect(try store.rows("PRAGMA user_version").rows == [[.integer(0)]])
        #expect(try store.rows("PRAGMA table_info(Person)").rows.count == Person.schema.columns.count)
        // Inside a write transaction the same statement goes through the write stage.
        try store.write { _ in
            _ = try store.rows("INSERT INTO Person (name, age, payrollNumber) VALUES ('Alan', 41, 2)")
        }
        #expect(try Person.query(in: store).count() == 2)
    }
}

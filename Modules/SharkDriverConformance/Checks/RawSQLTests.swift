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
            let result = try store.rows(
                driver.sql(
                    "SELECT name, age FROM Person WHERE age > ? ORDER BY name",
                    postgresql: #"SELECT name, age FROM "Person" WHERE age > $1 ORDER BY name"#), 30)
            #expect(result.columns == ["name", "age"])
            #expect(result.rows == [[.text("Ada"), .integer(36)], [.text("Alan"), .integer(41)]])
            // A hostile argument stays a value.
            #expect(
                try store.rows(
                    driver.sql(
                        "SELECT count(*) FROM Person WHERE name = ?",
                        postgresql: #"SELECT count(*) FROM "Person" WHERE name = $1"#), "x' OR '1'='1"
                ).rows == [[.integer(0)]])
            #expect(
                try store.execute(
                    driver.sql(
                        "UPDATE Person SET age = age + 1 WHERE name LIKE ?",
                        postgresql: #"UPDATE "Person" SET age = age + 1 WHERE name LIKE $1"#), "A%") == 2)
            // A query that finds nothing still names its columns.
            #expect(
                try store.rows(
                    driver.sql(
                        "SELECT name, age FROM Person WHERE age < 0",
                        postgresql: #"SELECT name, age FROM "Person" WHERE age < 0"#)
                ) == RawResult(columns: ["name", "age"], rows: [], changes: 0))
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
        switch driver.sqlDialect {
        case .sqlite:
            try store.execute(
                "CREATE TRIGGER audit_person BEFORE UPDATE ON Person BEGIN INSERT INTO audit VALUES ('updated'); END")
        case .postgresql:
            try store.execute(
                "CREATE FUNCTION audit_person() RETURNS trigger LANGUAGE plpgsql AS "
                    + "$$ BEGIN INSERT INTO audit VALUES ('updated'); RETURN NEW; END $$")
            try store.execute(
                #"CREATE TRIGGER audit_person BEFORE UPDATE ON "Person" FOR EACH ROW EXECUTE FUNCTION audit_person()"#)
        }
        try store.write { tx throws in
            ada.payrollNumber = 2  // Alan's: the update fails on the unique index
            switch driver.sqlDialect {
            case .sqlite:
                #expect(throws: SharkError.self) { try store.commit(ada) }
            case .postgresql:
                // PostgreSQL ends a transaction at its first failed statement: an app goes on
                // after one inside a nested transaction (docs/architecture.md, "Many writers").
                #expect(throws: SharkError.self) { try tx.transaction { _ in try store.commit(ada) } }
            }
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
        let insert = driver.sql(
            "INSERT INTO Person (name, age, payrollNumber) VALUES ('Alan', 41, 2)",
            postgresql: #"INSERT INTO "Person" (name, age, "payrollNumber") VALUES ('Alan', 41, 2)"#)
        let statements =
            switch driver.sqlDialect {
            case .sqlite:
                [
                    insert, "DELETE FROM Person", "CREATE TABLE audit (note TEXT)", "PRAGMA user_version = 7", "VACUUM",
                    "BEGIN", "SAVEPOINT s", "COMMIT", "PRAGMA query_only = 0", "PRAGMA wal_checkpoint",
                    "PRAGMA optimize", "ATTACH DATABASE ':memory:' AS other", "ANALYZE",
                ]
            case .postgresql:
                [
                    insert, #"DELETE FROM "Person""#, "CREATE TABLE audit (note TEXT)", "VACUUM", "BEGIN",
                    "START TRANSACTION", "SAVEPOINT s", "COMMIT", "END", "ROLLBACK", "ANALYZE",
                    #"LOCK TABLE "Person""#, #"TRUNCATE "Person""#, "CHECKPOINT",
                    #"WITH gone AS (DELETE FROM "Person" RETURNING name) SELECT name FROM gone"#,
                    "SELECT nextval(pg_get_serial_sequence('\"Person\"', 'id'))",
                ]
            }
        for statement in statements {
            #expect(throws: SharkError.self, "\(statement)") { try store.rows(statement) }
        }
        // The readers were left as they were: each still reads, outside any transaction.
        let count = driver.sql("SELECT count(*) FROM Person", postgresql: #"SELECT count(*) FROM "Person""#)
        for _ in 0..<8 { #expect(try store.rows(count).rows == [[.integer(1)]]) }
        #expect(try Person.query(in: store).count() == 1)
        switch driver.sqlDialect {
        case .sqlite:
            #expect(try store.rows("PRAGMA user_version").rows == [[.integer(0)]])
            #expect(try store.rows("PRAGMA table_info(Person)").rows.count == Person.schema.columns.count)
        case .postgresql:
            // What a statement sets for the session is undone with the read.
            _ = try store.rows("SELECT set_config('statement_timeout', '1', false)")
            for _ in 0..<8 { #expect(try store.rows("SHOW statement_timeout").rows == [[.text("0")]]) }
            #expect(
                try store.rows(
                    "SELECT column_name::text FROM information_schema.columns WHERE table_name = 'Person' "
                        + "AND table_schema = current_schema()"
                ).rows.count == Person.schema.columns.count)
        }
        // Inside a write transaction the same statement goes through the write stage.
        try store.write { _ in
            _ = try store.rows(insert)
        }
        #expect(try Person.query(in: store).count() == 2)
    }
}

import Foundation
@_spi(SharkDriver) @_spi(SharkReplication) import SharkORM
import Testing

/// Reading and writing rows with no model type, from the schema the store recorded: what a
/// sync import and the command line do.
@Suite("Rows without model types, from recorded schemas")
struct SchemaOnlyTests {
    func keyOrder(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        let keys = (0..<12).map { "i\($0)" }
        try store.commit(keys.map { Setting(id: $0, value: $0) })
        let expected = keys.sorted()  // i0, i1, i10, i11, i2, …
        #expect(try store.fetchRows(of: "settings").map(\.key) == expected.map { .text($0) })
        let tied = try store.fetchRows(of: "settings", orderedBy: [Ordering(.value(.integer(1)))])
        #expect(tied.map(\.key) == expected.map { .text($0) }, "ties broken by key")
    }

    func rowsWithoutModels(driver: ConformanceDriver) throws {
        let reopener = Reopener(driver)
        do {
            let store = try reopener.open()
            try store.commit(Person(name: "Ada", age: 36, payrollNumber: 1))
            try store.commit(AllTypes())
            reopener.close(store)
        }
        // A new store that never meets the model types.
        let store = try reopener.open()
        defer { reopener.close(store) }
        let schemas = try store.recordedSchemas()
        #expect(Set(schemas.map(\.name)).isSuperset(of: ["Person", "AllTypes"]))
        let person = try store.recordedSchema(of: "Person")
        #expect(person.keyKind == .autoIncrement)
        #expect(person.columns.map(\.name) == Person.schema.columns.map(\.name))
        let allTypes = try store.recordedSchema(of: "AllTypes")
        let logical = Dictionary(uniqueKeysWithValues: allTypes.columns.map { ($0.name, $0.logicalType) })
        #expect(logical["uuid"] == .uuid && logical["date"] == .date && logical["decimal"] == .sortableDecimal)
        #expect(logical["uint64"] == .unsignedInteger && logical["point"] == .json && logical["color"] == .string)
        #expect(logical["bool"] == .bool && logical["url"] == .url && logical["data"] == .data)

        let (grace, alan) = try store.write { tx in
            let grace = try tx.insertRow(["name": "Grace", "age": 45, "payrollNumber": 2], into: "Person")
            let alan = try tx.insertRow(["name": "Alan", "payrollNumber": 3], into: "Person")
            #expect(try tx.updateRow(withKey: alan, in: "Person", setting: ["age": 41, "email": "alan@example.com"]))
            #expect(try !tx.updateRow(withKey: 999, in: "Person", setting: ["age": 1]))
            return (grace, alan)
        }
        #expect(grace != alan)
        let rows = try store.fetchRows(of: "Person", orderedBy: [Ordering(.column("name"))])
        #expect(rows.map { $0["name"] } == [.text("Ada"), .text("Alan"), .text("Grace")])
        #expect(rows[1]["age"] == .integer(41) && rows[1]["email"] == .text("alan@example.com"))
        #expect(rows[2]["email"] == .null && rows[2].key == grace)
        let adults = try store.fetchRows(
            of: "Person", where: .comparison(.greaterOrEqual, .column("age"), .value(.integer(40))))
        #expect(Set(adults.map(\.key)) == [grace, alan])
        // Model code sees what the schema-only writes did.
        #expect(try Person.query(in: store).where(\.name == "Alan").first()?.age == 41)
        let deleted = try store.write { tx in try tx.deleteRow(withKey: grace, from: "Person") }
        #expect(deleted)
        #expect(try store.fetchRows(of: "Person").count == 2)

        // Mistakes are typed errors, and write nothing.
        #expect(throws: SharkError.self) { try store.write { try $0.insertRow(["nmae": "x"], into: "Person") } }
        #expect(throws: SharkError.self) { try store.write { try $0.insertRow(["name": .null], into: "Person") } }
        #expect(throws: SharkError.self) { try store.write { try $0.insertRow(["name": "x"], into: "Nobody") } }
        #expect(throws: SharkError.self) { _ = try store.fetchRows(of: "Nobody") }
        #expect(try store.fetchRows(of: "Person").count == 2)
    }
}

/// Raw SQL writes reach observers as entity changes, and protected entities refuse them.
@Suite("Raw SQL through the write pipeline")
struct RawSQLPipelineTests {
    final class Protecting: TransactionObserver, @unchecked Sendable {
        let protectedEntities: Set<String> = ["AuditEntry"]
        private let lock = NSLock()
        private var seen: [Change] = []
        var changes: [Change] { lock.withLock { seen } }
        func transactionWillCommit(_ changes: [Change], in transaction: WriteTransaction) throws {
            lock.withLock { seen += changes }
        }
    }

    func rawWrites(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        try store.commit(Person(name: "Ada", payrollNumber: 1))
        try store.commit(AuditEntry())
        let observer = Protecting()
        store.addTransactionObserver(observer)
        // A DELETE without WHERE is reported too (SQLite's update hook would miss it).
        #expect(try store.execute(driver.sql("DELETE FROM Person", postgresql: #"DELETE FROM "Person""#)) == 1)
        #expect(
            observer.changes == [
                Change(entity: "Person", key: nil, operation: .unknown, changedColumns: [], origin: .local)
            ])
        #expect {
            try store.execute(
                driver.sql("UPDATE AuditEntry SET entity = ?", postgresql: #"UPDATE "AuditEntry" SET entity = $1"#),
                "tampered")
        } throws: { error in
            guard case SharkError.invalidQuery(let message) = error else { return false }
            return message.contains("AuditEntry")
        }
        #expect(try AuditEntry.query(in: store).where(\.entity == "tampered").count() == 0)
        // Reads are free.
        #expect(
            try store.rows(
                driver.sql("SELECT count(*) FROM AuditEntry", postgresql: #"SELECT count(*) FROM "AuditEntry""#)
            )
            .rows == [[.integer(1)]])
    }

    func storageClassesChecked(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        try store.prepare(OptionalTypes.self)
        try store.prepare(AllTypes.self)
        try store.write { tx in
            #expect(throws: SharkError.self) { try tx.insertRow(["string": .integer(7)], into: "OptionalTypes") }
            #expect(throws: SharkError.self) { try tx.insertRow(["int": .text("7")], into: "OptionalTypes") }
            // An integer in a real column is that real; a NaN in an optional column, which
            // would read back as nil, is refused, as a model's commit refuses it.
            #expect(throws: SharkError.self) {
                try tx.insertRow(["double": .integer(2), "float": .real(.nan)], into: "OptionalTypes")
            }
            let key = try tx.insertRow(["double": .integer(2), "float": .real(1.5)], into: "OptionalTypes")
            let row = try #require(try store.fetchRows(of: "OptionalTypes").first { $0.key == key })
            #expect(row["double"] == .real(2) && row["float"] == .real(1.5))
            // What its type cannot hold: out of range, not a Float, a UUID of 3 bytes, not a decimal.
            for (column, value) in [
                ("int8", Value.integer(128)), ("uint8", .integer(-1)), ("bool", .integer(2)),
                ("uint64", .integer(-1)), ("float", .real(0.1)), ("uuid", .blob(Data([1, 2, 3]))),
                ("decimal", .text("many")),
            ] {
                #expect(throws: SharkError.self, "\(column) = \(value)") {
                    try tx.insertRow([column: value], into: "AllTypes")
                }
            }
            #expect(throws: SharkError.self) {
                try tx.updateRow(withKey: key, in: "OptionalTypes", setting: ["data": .text("not a blob")])
            }
        }
    }

    func requiredColumns(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        let schema = try store.prepare(Setting.self)
        #expect(throws: SharkError.self) {
            try store.write { tx in try tx.insertRows([[.text("theme"), .null]], schema: schema) }
        }
        try store.write { tx in try tx.insertRows([[.text("theme"), .text("dark")]], schema: schema) }
        var value = ColumnSet()
        value.insert(1)
        #expect(throws: SharkError.self) {
            try store.write { tx in
                try tx.updateRow(withKey: .text("theme"), row: [.text("theme"), .null], columns: value, schema: schema)
            }
        }
        #expect(try store.fetchRows(of: "settings").map(\.values) == [[.text("theme"), .text("dark")]])
    }
}

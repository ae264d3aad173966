import Foundation
@_spi(SharkDriver) import SharkORM
import Testing

struct MigrationTests {
    private func seedV1(_ database: Reopener) throws {
        let store = try database.open()
        defer { database.close(store) }
        for (index, name) in ["Ada", "Grace", "Alan"].enumerated() {
            let employee = EmployeeV1()
            employee.name = name
            employee.age = 30 + index
            employee.salary = Double(1000 * (index + 1))
            employee.notes = "note \(index)"
            try store.commit(employee)
        }
    }

    func addAndRemoveColumns(driver: ConformanceDriver) throws {
        let database = Reopener(driver)
        try seedV1(database)

        let store = try database.open()
        defer { database.close(store) }
        let employees = try EmployeeV2.query(in: store).orderBy(\.name).fetch()
        #expect(employees.map(\.name) == ["Ada", "Alan", "Grace"])
        #expect(employees.map(\.age) == [30, 32, 31])
        #expect(employees.map(\.salary) == [1000, 3000, 2000])
        // New columns are back-filled with the properties' initial values.
        #expect(employees.allSatisfy { $0.title == "Engineer" && $0.level == 3 && $0.manager == nil })
        // The new unique index is enforced.
        let clash = EmployeeV2()
        clash.name = "Ada"
        #expect {
            try store.commit(clash)
        } throws: { error in
            if case SharkError.uniqueConstraint = error { return true }
            return false
        }
    }

    func renamedColumns(driver: ConformanceDriver) throws {
        let database = Reopener(driver)
        try seedV1(database)
        let store = try database.open()
        defer { database.close(store) }
        let employees = try EmployeeV5.query(in: store).orderBy(\.fullName).fetch()
        #expect(employees.map(\.fullName) == ["Ada", "Alan", "Grace"])
        #expect(employees.map(\.pay) == [1000, 3000, 2000])
        #expect(employees.map(\.age) == [30, 32, 31])
        let schema = try store.recordedSchema(of: "Employee")
        #expect(schema.columns.map(\.name) == ["id", "fullName", "age", "pay"])
        // The rename happened once: reopening with the same model changes nothing, and a
        // new row keeps working.
        try store.commit(EmployeeV5())
        #expect(try EmployeeV5.query(in: store).where(\.fullName == "Ada").first()?.pay == 1000)
    }

    func losslessRetype(driver: ConformanceDriver) throws {
        let database = Reopener(driver)
        try seedV1(database)
        let store = try database.open()
        defer { database.close(store) }
        let employees = try EmployeeV3.query(in: store).orderBy(\.name).fetch()
        #expect(employees.map(\.age) == ["30", "32", "31"])
        #expect(employees.map(\.salary) == [1000, 3000, 2000])
    }

    func lossyRetypeRefused(driver: ConformanceDriver) throws {
        let database = Reopener(driver)
        try seedV1(database)
        do {
            let store = try database.open()
            defer { database.close(store) }
            #expect {
                try EmployeeV4.query(in: store).count()
            } throws: { error in
                guard case SharkError.lossySchemaChange(let entity, let column, _) = error else { return false }
                return entity == "Employee" && column == "name"
            }
        }
        // The refused migration left the data and the old schema in place.
        let store = try database.open()
        defer { database.close(store) }
        let employees = try EmployeeV1.query(in: store).orderBy(\.name).fetch()
        #expect(employees.map(\.notes) == ["note 0", "note 2", "note 1"])
    }

    func narrowedIntegers(driver: ConformanceDriver) throws {
        let database = Reopener(driver)
        let wide = LevelWide()
        do {
            let store = try database.open()
            defer { database.close(store) }
            wide.value = 300
            try store.commit(wide)
        }
        do {
            let store = try database.open()
            defer { database.close(store) }
            #expect {
                try LevelNarrow.query(in: store).count()
            } throws: { error in
                guard case SharkError.lossySchemaChange(let entity, let column, _) = error else { return false }
                return entity == "Level" && column == "value"
            }
            // Nothing changed; within range, the narrower type takes the column.
            let stored = try #require(try LevelWide.query(in: store).first())
            #expect(stored.value == 300)
            stored.value = 100
            try store.commit(stored)
        }
        let store = try database.open()
        defer { database.close(store) }
        #expect(try LevelNarrow.query(in: store).fetch().map(\.value) == [100])
        // And the recorded schema now bounds what the row calls take.
        #expect(throws: SharkError.self) {
            try store.write { try $0.insertRow(["value": .integer(128)], into: "Level") }
        }
    }

    func nullsBackfilled(driver: ConformanceDriver) throws {
        let database = Reopener(driver)
        do {
            let store = try database.open()
            defer { database.close(store) }
            let known = ContactV1()
            known.email = "ada@example.com"
            try store.commit([known, ContactV1()])
        }
        let store = try database.open()
        defer { database.close(store) }
        let emails = try ContactV2.query(in: store).fetch().map(\.email)
        #expect(emails == ["ada@example.com", "unknown@example.com"])
    }

    func sameSchemaIsANoOp(driver: ConformanceDriver) throws {
        let database = Reopener(driver)
        try seedV1(database)
        database.log.reset()
        let store = try database.open()
        defer { database.close(store) }
        #expect(try EmployeeV1.query(in: store).count() == 3)
        #expect(!database.log.statements.contains { $0.hasPrefix("ALTER") || $0.hasPrefix("CREATE TABLE \"") })
    }

    func alternatingVersions(driver: ConformanceDriver) throws {
        let database = Reopener(driver)
        try seedV1(database)
        let store = try database.open()
        defer { database.close(store) }
        #expect(try EmployeeV2.query(in: store).count() == 3)
        // Back to V1: `notes` was dropped by V2, so it comes back with its initial value.
        let employees = try EmployeeV1.query(in: store).orderBy(\.name).fetch()
        #expect(employees.map(\.name) == ["Ada", "Alan", "Grace"])
        #expect(employees.map(\.notes) == ["", "", ""])
    }

    /// A program whose model the database was migrated away from (an older version of the
    /// app, on a database a newer one shares) is refused, and the newer one's columns keep
    /// their data; going back on purpose takes `acceptingOlderModels()`.
    func olderModelRefused(driver: ConformanceDriver) throws {
        let database = Reopener(driver)
        try seedV1(database)
        do {
            let newer = try database.open()
            defer { database.close(newer) }
            let employees = try EmployeeV2.query(in: newer).orderBy(\.name).fetch()
            for employee in employees { employee.title = "Lead " + employee.name }
            try newer.commit(employees)
        }
        func isOlderModel(_ error: any Error) -> Bool {
            guard case SharkError.schemaMismatch(let entity, let reason) = error else { return false }
            return entity == "Employee" && reason.contains("older")
        }
        do {
            let older = try database.open()
            defer { database.close(older) }
            #expect(performing: { try EmployeeV1.query(in: older).count() }, throws: isOlderModel)
            #expect(performing: { try older.commit(EmployeeV1()) }, throws: isOlderModel)
            #expect(try older.recordedSchema(of: "Employee").columns.map(\.name).contains("title"))
        }
        do {
            let newer = try database.open()
            defer { database.close(newer) }
            #expect(
                try EmployeeV2.query(in: newer).orderBy(\.name).fetch().map(\.title) == [
                    "Lead Ada", "Lead Alan", "Lead Grace",
                ])
        }
        do {
            let rollback = try database.open { $0.acceptingOlderModels() }
            defer { database.close(rollback) }
            #expect(try EmployeeV1.query(in: rollback).orderBy(\.name).fetch().map(\.name) == ["Ada", "Alan", "Grace"])
        }
        // The rollback forgot the model it left: the newer program comes back, and the older
        // one is refused again.
        do {
            let newer = try database.open()
            defer { database.close(newer) }
            #expect(try EmployeeV2.query(in: newer).count() == 3)
        }
        let store = try database.open()
        defer { database.close(store) }
        #expect(performing: { try EmployeeV1.query(in: store).count() }, throws: isOlderModel)
    }
}

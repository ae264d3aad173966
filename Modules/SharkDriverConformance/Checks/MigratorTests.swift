import Foundation
@_spi(SharkDriver) import SharkORM
import Testing

/// Versioned migrations: each runs once per store, in order, all or nothing, on every driver.
struct MigratorTests {
    static func migrator(failing: Bool = false, third: Bool = false) -> Migrator {
        var migrator = Migrator()
        migrator.register("1: seed") { tx in
            try tx.commit(Person(name: "Ada", age: 36, payrollNumber: 1))
            try tx.commit(Person(name: "Alan", age: 41, payrollNumber: 2))
        }
        migrator.register("2: everyone a year older") { tx in
            try Person.query(in: tx.store).updateAll(.set(\.age, to: \.age + 1))
            if failing { throw SharkError.invalidQuery("migration 2 failed") }
        }
        if third {
            migrator.register("3: an email for Ada") { tx in
                try Person.query(in: tx.store).where(\.name == "Ada").updateAll(.set(\.email, to: "ada@example.com"))
            }
        }
        return migrator
    }

    func runsOnce(driver: ConformanceDriver) throws {
        let database = Reopener(driver)
        do {
            let store = try database.open()
            defer { database.close(store) }
            #expect(try Self.migrator().appliedMigrations(in: store).isEmpty)
            #expect(try Self.migrator().migrate(store) == ["1: seed", "2: everyone a year older"])
            #expect(try Self.migrator().migrate(store).isEmpty)
            #expect(try Person.query(in: store).orderBy(\.name).fetch().map(\.age) == [37, 42])
        }
        // Another launch: the store remembers, and only the new migration runs.
        let store = try database.open()
        defer { database.close(store) }
        let migrator = Self.migrator(third: true)
        #expect(try migrator.migrate(store) == ["3: an email for Ada"])
        #expect(try migrator.appliedMigrations(in: store) == migrator.identifiers)
        #expect(try Person.query(in: store).count() == 2)
        #expect(try Person.query(in: store).where(\.email == "ada@example.com").count() == 1)
        // An older app, which knows fewer migrations, leaves the store alone.
        #expect(try Self.migrator().migrate(store).isEmpty)
    }

    func failure(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        #expect(throws: SharkError.invalidQuery("migration 2 failed")) {
            try Self.migrator(failing: true).migrate(store)
        }
        #expect(try Self.migrator().appliedMigrations(in: store) == ["1: seed"])
        #expect(try Person.query(in: store).orderBy(\.name).fetch().map(\.age) == [36, 41])  // 2 rolled back
        #expect(try Self.migrator().migrate(store) == ["2: everyone a year older"])
        #expect(try Person.query(in: store).orderBy(\.name).fetch().map(\.age) == [37, 42])
    }

    func duplicates(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        var migrator = Self.migrator()
        migrator.register("1: seed") { _ in }
        #expect(throws: SharkError.self) { try migrator.migrate(store) }
        #expect(try migrator.appliedMigrations(in: store).isEmpty)
    }
}

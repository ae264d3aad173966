import Foundation
@_spi(SharkDriver) import SharkORM
import SharkSQLCipher
import Testing

@testable import SharkDriverConformance

@Suite("Errors are typed and leave nothing half-written")
struct ErrorTests {
    static let persistentDrivers = TestDriver.allCases.filter(\.isPersistent)

    @Test("a file that is not a database", arguments: persistentDrivers)
    func notADatabase(driver: TestDriver) throws {
        let file = TemporaryPath()
        defer { file.cleanUp() }
        try Data(repeating: 0x41, count: 4096).write(to: URL(fileURLWithPath: file.path))
        // An encrypted file is indistinguishable from noise: SQLCipher can only say the key fails.
        if driver == .sqlcipher {
            #expect(throws: SQLCipherError.wrongKey(path: file.path)) { _ = try driver.openFile(file.path) }
        } else {
            #expect(throws: SharkError.notADatabase(path: file.path)) { _ = try driver.openFile(file.path) }
        }
    }

    @Test("a directory", arguments: persistentDrivers)
    func directory(driver: TestDriver) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("shark-dir-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(throws: SharkError.cannotOpen(path: folder.path, reason: "it is a directory")) {
            _ = try driver.openFile(folder.path)
        }
    }

    @Test("a location that does not exist", arguments: persistentDrivers)
    func missingFolder(driver: TestDriver) throws {
        let path = "/nonexistent-\(UUID().uuidString)/db.sqlite"
        #expect {
            _ = try driver.openFile(path)
        } throws: { error in
            guard case SharkError.cannotOpen(let failed, let reason) = error else { return false }
            return failed == path && reason.contains("does not exist")
        }
    }

    @Test("an unwritable location", arguments: persistentDrivers)
    func unwritable(driver: TestDriver) throws {
        // Nobody, root included, can create a file in /proc.
        let path = "/proc/shark-\(UUID().uuidString).sqlite"
        #expect {
            _ = try driver.openFile(path)
        } throws: { error in
            guard case SharkError.cannotOpen(let failed, _) = error else { return false }
            return failed == path
        }
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test("a unique violation names the entity and columns, and writes nothing", arguments: TestDriver.allCases)
    func uniqueViolation(driver: TestDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        try store.commit(Person(name: "Ada", payrollNumber: 7))
        let clash = Person(name: "Grace", payrollNumber: 7)
        #expect {
            try store.commit(clash)
        } throws: { error in
            guard case SharkError.uniqueConstraint(let entity, let columns, _) = error else { return false }
            return entity == "Person" && columns == ["payrollNumber"]
        }
        #expect(!clash.isPersisted && clash.id == 0)
        #expect(try Person.query(in: store).count() == 1)
    }

    @Test("a closed store says so", arguments: TestDriver.allCases)
    func closedStore(driver: TestDriver) throws {
        let store = try driver.makeStore()
        try store.commit(Person(name: "Ada", payrollNumber: 1))
        store.close()
        #expect(throws: SharkError.closed) { try Person.query(in: store).count() }
        #expect(throws: SharkError.closed) { try store.commit(Person(name: "Grace", payrollNumber: 2)) }
    }

    @Test("no store at all", arguments: TestDriver.allCases)
    func noStore(driver: TestDriver) throws {
        guard Store.default == nil else { return }
        #expect(throws: SharkError.noStore) { try Person(name: "Ada").commit() }
    }

    @Test(
        "queries and indexes on properties that are not stored fail with typed errors", arguments: TestDriver.allCases)
    func notPersistedProperties(driver: TestDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        try store.commit(Person(name: "Ada", payrollNumber: 1))
        let query = try Person.query(in: store)
        #expect {
            try query.where(\.scratch == 1).fetch()
        } throws: { error in
            if case SharkError.invalidQuery = error { return true }
            return false
        }
        #expect(throws: SharkError.self) { try query.where(\.name == "Ada" && \.vetoInsert == true).count() }
        #expect(throws: SharkError.self) { try query.orderBy(\.scratch).first() }
        #expect(throws: SharkError.self) { try query.where(.isIn(\.name, ["Ada"])).orderBy(\.events.count).fetch() }
        #expect {
            try store.commit(BadIndex())
        } throws: { error in
            guard case SharkError.schemaMismatch(let entity, _) = error else { return false }
            return entity == "BadIndex"
        }
        // The valid query still runs.
        #expect(try query.where(\.name == "Ada").count() == 1)
    }
}

@Suite("Paths that would give every connection a private database are refused")
struct PrivateDatabasePathTests {
    @Test("\":memory:\" and \"\" are refused at open, pointing to .memory and temporary stores")
    func refused() throws {
        for path in [":memory:", "", "file::memory:", "file:shared?mode=memory&cache=shared"] {
            for driver in ErrorTests.persistentDrivers {
                #expect {
                    _ = try driver.openFile(path)
                } throws: { error in
                    guard case SharkError.cannotOpen(let failed, let reason) = error else { return false }
                    return failed == path && reason.contains(".memory") && reason.contains("Temporary")
                }
            }
        }
        #expect(!FileManager.default.fileExists(atPath: ":memory:"))
    }
}

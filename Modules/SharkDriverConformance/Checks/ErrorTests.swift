import Foundation
@_spi(SharkDriver) import SharkORM
import Testing

@Suite("Errors are typed and leave nothing half-written")
struct ErrorTests {

    func directory(driver: ConformanceDriver) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("shark-dir-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(throws: SharkError.cannotOpen(path: folder.path, reason: "it is a directory")) {
            _ = try driver.openFile(folder.path)
        }
    }

    func missingFolder(driver: ConformanceDriver) throws {
        let path = "/nonexistent-\(UUID().uuidString)/db.sqlite"
        #expect {
            _ = try driver.openFile(path)
        } throws: { error in
            guard case SharkError.cannotOpen(let failed, let reason) = error else { return false }
            return failed == path && reason.contains("does not exist")
        }
    }

    func unwritable(driver: ConformanceDriver) throws {
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

    func uniqueViolation(driver: ConformanceDriver) throws {
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

    func closedStore(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        try store.commit(Person(name: "Ada", payrollNumber: 1))
        store.close()
        #expect(throws: SharkError.closed) { try Person.query(in: store).count() }
        #expect(throws: SharkError.closed) { try store.commit(Person(name: "Grace", payrollNumber: 2)) }
    }

    func noStore(driver: ConformanceDriver) throws {
        guard Store.default == nil else { return }
        #expect(throws: SharkError.noStore) { try Person(name: "Ada").commit() }
    }

    func notPersistedProperties(driver: ConformanceDriver) throws {
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

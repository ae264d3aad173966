import Foundation
@_spi(SharkDriver) import SharkORM
import Testing

/// `readOnly: true` stores: they read everything a writable store reads, refuse every write
/// with a typed error, and never change the file or create one.
@Suite("Read-only stores")
struct ReadOnlyStoreTests {
    /// The file's bytes and the files beside it.
    static func diskState(_ path: String) throws -> (Data, [String]) {
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        let name = URL(fileURLWithPath: path).lastPathComponent
        let siblings = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasPrefix(name) }
        return (try Data(contentsOf: URL(fileURLWithPath: path)), siblings.sorted())
    }

    func recordedBeforeWidths(driver: ConformanceDriver) throws {
        let file = TemporaryPath()
        defer { file.cleanUp() }
        let writable = try driver.openFile(file.path)
        let gauge = Gauge("old", level: 5)
        try writable.commit(gauge)
        // The record as a version before widths wrote it.
        let definition = try #require(
            try writable.rows("SELECT definition FROM _shark_schema WHERE entity = 'Gauge'").rows.first?.first)
        var json = try #require(
            try JSONSerialization.jsonObject(with: Data(definition.coercedToText().utf8)) as? [String: Any])
        json["columns"] = (json["columns"] as? [[String: Any]])?.map { $0.filter { $0.key != "bitWidth" } }
        let older = String(decoding: try JSONSerialization.data(withJSONObject: json), as: UTF8.self)
        #expect(
            try writable.execute("UPDATE _shark_schema SET definition = ? WHERE entity = 'Gauge'", .text(older)) == 1)
        writable.close()
        let before = try Self.diskState(file.path)
        let store = try driver.openFileReadOnly(file.path)
        #expect(try Gauge.query(in: store).first()?.level == 5)
        store.close()
        #expect(try Self.diskState(file.path) == before)
        // A writable store records the widths on first use.
        let again = try driver.openFile(file.path)
        defer { again.close() }
        #expect(try Gauge.query(in: again).count() == 1)
        #expect(try again.recordedSchema(of: "Gauge").columns.first { $0.name == "level" }?.bitWidth == 8)
    }

    func readsAndRefuses(driver: ConformanceDriver) throws {
        let file = TemporaryPath()
        defer { file.cleanUp() }
        let writable = try driver.openFile(file.path)
        _ = try QueryResultsTests.people(in: writable)
        writable.close()
        let before = try Self.diskState(file.path)

        let store = try driver.openFileReadOnly(file.path)
        #expect(store.isReadOnly)
        #expect(try Person.query(in: store).where(\.age == 36).count() == 2)
        #expect(try store.fetchRows(of: "Person").count == 5)
        #expect(try store.checkIntegrity().isIntact)
        let ada = try #require(try Person.query(in: store).where(\.name == "Ada").first())
        ada.age = 37
        #expect(throws: SharkError.self) { try store.commit(ada) }
        do {
            try store.commit(Person(name: "Nobody", age: 1))
            Issue.record("a read-only store committed")
        } catch SharkError.readOnly {
        } catch { Issue.record("not a read-only error: \(error)") }
        #expect(throws: SharkError.self) {
            try store.write { tx in _ = try tx.insertRow(["name": "X"], into: "Person") }
        }
        #expect(throws: SharkError.self) { _ = try store.execute("DELETE FROM Person") }
        #expect(throws: SharkError.self) { try store.prepare(Book.self) }
        // The refusals left the store usable.
        #expect(try Person.query(in: store).count() == 5)
        store.close()
        #expect(try Self.diskState(file.path) == before)
    }

    func missingFile(driver: ConformanceDriver) throws {
        let file = TemporaryPath()
        defer { file.cleanUp() }
        #expect(throws: SharkError.fileNotFound(path: file.path)) { _ = try driver.openFileReadOnly(file.path) }
        #expect(!FileManager.default.fileExists(atPath: file.path))
    }

    func besideAWriter(driver: ConformanceDriver) throws {
        let file = TemporaryPath()
        defer { file.cleanUp() }
        let writer = try driver.openFile(file.path)
        defer { writer.close() }
        _ = try QueryResultsTests.people(in: writer)
        let reader = try driver.openFileReadOnly(file.path)
        defer { reader.close() }
        #expect(try Person.query(in: reader).count() == 5)
        try writer.commit(Person(name: "Later", age: 3))
        #expect(try Person.query(in: reader).count() == 6)
    }

}

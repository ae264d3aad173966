import Foundation
@_spi(SharkDriver) import SharkORM
import SharkSQLCipher
import SharkTestSupport
import Testing

@testable import SharkDriverConformance

/// Files damaged on disk: errors say "corrupt" when the file is a database opened with the
/// right key, "wrong key" only when the key is wrong, and `checkIntegrity()` finds damage that
/// reads do not reach.
@Suite("Damaged files")
struct DamagedFileTests {
    /// A closed database file of about 60 pages of 4 KiB (2,000 rows of 100-byte names).
    static func makeFile(_ driver: TestDriver) throws -> TemporaryPath {
        let file = TemporaryPath()
        let store = try driver.openFile(file.path)
        try store.commit(
            (0..<2_000).map { Person(name: String(repeating: "\($0 % 10)", count: 100), age: $0, payrollNumber: $0) })
        store.close()
        let walSize = (try? fileSize(file.path + "-wal")) ?? 0
        #expect(walSize == 0)
        return file
    }

    static func fileSize(_ path: String) throws -> Int {
        try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0
    }

    /// Inverts `count` bytes at `offset`.
    static func flip(_ path: String, at offset: Int, count: Int = 16) throws {
        var data = try Data(contentsOf: URL(fileURLWithPath: path))
        for index in offset..<(offset + count) { data[index] ^= 0xFF }
        try data.write(to: URL(fileURLWithPath: path))
    }

    static func isCorrupt(_ error: any Error) -> Bool {
        if case SharkError.corrupt = error { return true }
        return false
    }

    @Test("a damaged data page: the file opens, reads that reach it say corrupt", arguments: TestDriver.sql)
    func damagedDataPage(driver: TestDriver) throws {
        let file = try Self.makeFile(driver)
        defer { file.cleanUp() }
        #expect(try Self.fileSize(file.path) > 20 * 4096)
        // Pages 5 to 24, so the table's own pages are hit: in a plain file the page header
        // (b-tree page type and cell counts); in an encrypted one anywhere (its HMAC fails).
        for page in 5..<25 {
            try Self.flip(file.path, at: driver == .sqlcipher ? page * 4096 - 2000 : (page - 1) * 4096, count: 8)
        }
        let store = try driver.openFile(file.path)
        defer { store.close() }
        #expect(performing: { _ = try Person.query(in: store).fetch() }, throws: Self.isCorrupt)
        let report = try store.checkIntegrity()
        #expect(!report.isIntact)
    }

    @Test("a damaged first page of an encrypted file is corrupt, not a wrong key")
    func damagedFirstPage() throws {
        let file = try Self.makeFile(.sqlcipher)
        defer { file.cleanUp() }
        try Self.flip(file.path, at: 2000)
        #expect(performing: { _ = try TestDriver.sqlcipher.openFile(file.path) }, throws: Self.isCorrupt)
        #expect(throws: SQLCipherError.wrongKey(path: file.path)) {
            _ = try Store(.sqlcipher(path: file.path, key: .passphrase("not the key")))
        }
    }

    @Test("a wrong key on an intact file is still a wrong key")
    func wrongKey() throws {
        let file = try Self.makeFile(.sqlcipher)
        defer { file.cleanUp() }
        #expect(throws: SQLCipherError.wrongKey(path: file.path)) {
            _ = try Store(.sqlcipher(path: file.path, key: .passphrase("not the key")))
        }
        #expect(throws: SQLCipherError.wrongKey(path: file.path)) {
            _ = try Store(.sqlcipher(path: file.path, key: .raw(Data(repeating: 7, count: 32))))
        }
    }

    @Test("a file cut short says corrupt", arguments: TestDriver.sql)
    func truncated(driver: TestDriver) throws {
        let file = try Self.makeFile(driver)
        defer { file.cleanUp() }
        let handle = try #require(FileHandle(forWritingAtPath: file.path))
        try handle.truncate(atOffset: UInt64(try Self.fileSize(file.path) - 4096))
        try handle.close()
        #expect(
            performing: {
                let store = try driver.openFile(file.path)
                defer { store.close() }
                _ = try Person.query(in: store).fetch()
            }, throws: Self.isCorrupt)
    }

    @Test("damage that every read misses is found by checkIntegrity", arguments: TestDriver.sql)
    func silentDamage(driver: TestDriver) throws {
        let file = try Self.makeFile(driver)
        defer { file.cleanUp() }
        do {
            // A damage that reads never reach: the header's count of free pages (plain SQLite),
            // or, in an encrypted file, an index that no longer matches its table, made
            // through SQLite's own schema-editing switch with the right key.
            let store = try driver.openFile(file.path)
            defer { store.close() }
            #expect(try store.checkIntegrity().isIntact)
            if driver == .sqlcipher {
                try store.execute("PRAGMA writable_schema = ON")
                try store.execute(
                    "UPDATE sqlite_master SET sql = replace(sql, '(\"name\")', '(\"email\")') WHERE name = ?",
                    .text(Person.schema.indexes[0].name))
                try store.execute("PRAGMA writable_schema = OFF")
            }
        }
        if driver == .sqlite { try Self.setFreePageCount(file.path, to: 3) }
        let store = try driver.openFile(file.path)
        defer { store.close() }
        #expect(try Person.query(in: store).count() == 2_000)
        #expect(try Person.query(in: store).fetch().count == 2_000)
        let report = try store.checkIntegrity()
        #expect(!report.isIntact, "\(report.problems)")
    }

    /// Writes `count` into the free-page count of the SQLite header (offset 36, big-endian).
    static func setFreePageCount(_ path: String, to count: UInt32) throws {
        var data = try Data(contentsOf: URL(fileURLWithPath: path))
        withUnsafeBytes(of: count.bigEndian) { data.replaceSubrange(36..<40, with: $0) }
        try data.write(to: URL(fileURLWithPath: path))
    }

}

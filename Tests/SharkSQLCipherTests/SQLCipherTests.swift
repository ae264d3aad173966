import Foundation
@_spi(SharkDriver) import SharkORM
import SharkSQLite
import SharkTestSupport
import Testing

@testable import SharkDriverConformance
@testable import SharkSQLCipher

/// What only the encrypted driver has to prove: keys, rekeying, encrypting and decrypting
/// files, and living beside plain SQLite in one process.
@Suite("SQLCipher")
struct SQLCipherTests {
    static let marker = "Plaintext-Marker-7f3a"

    private func bytes(of path: String) throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: path))
    }

    private func containsMarker(_ path: String) throws -> Bool {
        // Check the WAL too: committed data may not have reached the main file yet.
        var data = try bytes(of: path)
        if let wal = try? bytes(of: path + "-wal") { data.append(wal) }
        return data.range(of: Data(Self.marker.utf8)) != nil
    }

    @Test("SQLite and SQLCipher stores side by side: only the SQLCipher file is unreadable")
    func sideBySide() throws {
        let plain = TemporaryPath()
        let secret = TemporaryPath()
        defer {
            plain.cleanUp()
            secret.cleanUp()
        }
        let sqlite = try Store(.sqlite(path: plain.path))
        let cipher = try Store(.sqlcipher(path: secret.path, key: .passphrase("side by side")))
        for store in [sqlite, cipher] {
            try store.commit(Person(name: Self.marker, age: 1, payrollNumber: 1))
        }
        for store in [sqlite, cipher] {
            #expect(try Person.query(in: store).where(\.name == Self.marker).count() == 1)
        }
        sqlite.close()
        cipher.close()
        #expect(try containsMarker(plain.path))
        #expect(try !containsMarker(secret.path))
    }

    @Test("every connection gets the larger page cache that spares re-decrypting pages")
    func pageCache() throws {
        let store = try TestDriver.sqlcipher.makeStore()
        defer { store.close() }
        try store.commit(Note(text: "warm"))
        #expect(try store.rows("PRAGMA cache_size").rows == [[.integer(-16_384)]])  // a reader
        let writerCache = try store.write { _ in try store.rows("PRAGMA cache_size").rows }
        #expect(writerCache == [[.integer(-16_384)]])  // the writer
    }

    @Test("a wrong key and a plain database fail with typed errors")
    func wrongKeys() throws {
        let file = TemporaryPath()
        defer { file.cleanUp() }
        do {
            let store = try Store(.sqlcipher(path: file.path, key: .passphrase("right")))
            try store.commit(Person(name: "Ada", payrollNumber: 1))
            store.close()
        }
        #expect(throws: SQLCipherError.wrongKey(path: file.path)) {
            _ = try Store(.sqlcipher(path: file.path, key: .passphrase("wrong")))
        }
        #expect(throws: SharkError.notADatabase(path: file.path)) { _ = try Store(.sqlite(path: file.path)) }

        let plain = TemporaryPath()
        defer { plain.cleanUp() }
        try Store(.sqlite(path: plain.path)).commit(Person(name: "Ada", payrollNumber: 1))
        #expect(throws: SQLCipherError.notEncrypted(path: plain.path)) {
            _ = try Store(.sqlcipher(path: plain.path, key: .passphrase("any")))
        }
        #expect(throws: SQLCipherError.invalidRawKey(byteCount: 3)) {
            _ = try Store(.sqlcipher(path: TemporaryPath().path, key: .raw(Data([1, 2, 3]))))
        }
    }

    @Test("raw 256-bit keys")
    func rawKeys() throws {
        let file = TemporaryPath()
        defer { file.cleanUp() }
        let key = Data((0..<32).map { UInt8($0 * 7 % 256) })
        do {
            let store = try Store(.sqlcipher(path: file.path, key: .raw(key)))
            try store.commit(Person(name: "Ada", payrollNumber: 1))
            store.close()
        }
        let store = try Store(.sqlcipher(path: file.path, key: .raw(key)))
        defer { store.close() }
        #expect(try Person.query(in: store).count() == 1)
        var other = key
        other[0] ^= 1
        #expect(throws: SQLCipherError.wrongKey(path: file.path)) {
            _ = try Store(.sqlcipher(path: file.path, key: .raw(other)))
        }
    }

    @Test("rekey: the new key opens the database, the old one no longer does")
    func rekey() throws {
        let file = TemporaryPath()
        defer { file.cleanUp() }
        do {
            let store = try Store(.sqlcipher(path: file.path, key: .passphrase("old")))
            try store.commit(Person(name: "Ada", payrollNumber: 1))
            _ = try Person.query(in: store).count()  // a reader keyed with the old key
            try SQLCipher.rekey(store, to: .passphrase("new"))
            try store.commit(Person(name: "Grace", payrollNumber: 2))
            #expect(try Person.query(in: store).count() == 2)
            store.close()
        }
        #expect(throws: SQLCipherError.wrongKey(path: file.path)) {
            _ = try Store(.sqlcipher(path: file.path, key: .passphrase("old")))
        }
        let store = try Store(.sqlcipher(path: file.path, key: .passphrase("new")))
        defer { store.close() }
        #expect(try Person.query(in: store).count() == 2)
        #expect(throws: SharkError.self) { try SQLCipher.rekey(try Store(.memory), to: .passphrase("x")) }
    }

    @Test("rekey of a store in WAL mode: another store opens the file with the new key at once")
    func rekeyWhileOpen() throws {
        let file = TemporaryPath()
        defer { file.cleanUp() }
        let store = try Store(.sqlcipher(path: file.path, key: .passphrase("old")))
        defer { store.close() }
        try store.commit((0..<200).map { Person(name: "P\($0)", payrollNumber: $0) })
        _ = try Person.query(in: store).count()
        try SQLCipher.rekey(store, to: .passphrase("new"))
        // The first store stays open (its log not folded back by a close): a second one, as
        // another process would, opens with the new key and sees every row.
        let other = try Store(.sqlcipher(path: file.path, key: .passphrase("new")))
        #expect(try Person.query(in: other).count() == 200)
        try other.commit(Person(name: "from the other", payrollNumber: 1_000))
        other.close()
        #expect(throws: SQLCipherError.wrongKey(path: file.path)) {
            _ = try Store(.sqlcipher(path: file.path, key: .passphrase("old")))
        }
        try store.commit(Person(name: "after", payrollNumber: 1_001))
        #expect(try Person.query(in: store).count() == 202)
        #expect(try store.rows("PRAGMA journal_mode").rows.first?.first == .text("wal"))
    }

    @Test("encrypt a plain file, decrypt it back; failures leave nothing behind")
    func encryptAndDecrypt() throws {
        let plain = TemporaryPath()
        let encrypted = TemporaryPath()
        let decrypted = TemporaryPath()
        defer { [plain, encrypted, decrypted].forEach { $0.cleanUp() } }
        do {
            let store = try Store(.sqlite(path: plain.path))
            try store.commit((0..<50).map { Person(name: "\(Self.marker) \($0)", payrollNumber: $0) })
            store.close()
        }
        try SQLCipher.encrypt(plainDatabaseAt: plain.path, into: encrypted.path, key: .passphrase("export"))
        #expect(try !containsMarker(encrypted.path))
        do {
            let store = try Store(.sqlcipher(path: encrypted.path, key: .passphrase("export")))
            #expect(try Person.query(in: store).count() == 50)
            #expect(try SQLCipher.settings(of: store).pageSize == 4096)
            store.close()
        }
        #expect(throws: SQLCipherError.wrongKey(path: encrypted.path)) {
            try SQLCipher.decrypt(databaseAt: encrypted.path, key: .passphrase("nope"), into: decrypted.path)
        }
        #expect(!FileManager.default.fileExists(atPath: decrypted.path))
        try SQLCipher.decrypt(databaseAt: encrypted.path, key: .passphrase("export"), into: decrypted.path)
        #expect(try containsMarker(decrypted.path))
        let store = try Store(.sqlite(path: decrypted.path))
        defer { store.close() }
        #expect(try Person.query(in: store).count() == 50)
        // An existing destination is never overwritten.
        #expect(throws: SharkError.cannotOpen(path: decrypted.path, reason: "the file already exists")) {
            try SQLCipher.encrypt(plainDatabaseAt: plain.path, into: decrypted.path, key: .passphrase("x"))
        }
    }

    @Test("cipher settings are readable; SQLCipher 3 databases with 1 KiB pages open too")
    func settingsAndCompatibility() throws {
        let file = TemporaryPath()
        defer { file.cleanUp() }
        do {
            let store = try Store(.sqlcipher(path: file.path, key: .passphrase("v3"), pageSize: 1024))
            try store.commit(Person(name: "Ada", payrollNumber: 1))
            let settings = try SQLCipher.settings(of: store)
            #expect(settings.pageSize == 1024 && settings.cipher.hasPrefix("AES-256"))
            #expect(settings.kdfIterations > 0 && settings.usesHMAC && !settings.cipherVersion.isEmpty)
            store.close()
        }
        // Opened with the default (4 KiB) configuration, the 1 KiB database is found anyway.
        let store = try Store(.sqlcipher(path: file.path, key: .passphrase("v3")))
        defer { store.close() }
        #expect(try Person.query(in: store).count() == 1)
        #expect(try SQLCipher.settings(of: store).pageSize == 1024)
    }

    @Test("readers open with the key derived once by the writer")
    func readersReuseTheDerivedKey() throws {
        let store = try Store(.sqlcipherTemporary(key: .passphrase("derive once")))
        defer { store.close() }
        let driver = try #require(store.driver as? SQLCipherDriver)
        let material = try #require(driver.keying.readerMaterialForTesting)
        // SQLCipher's raw form: x' + 64 hex digits of key + 32 of salt + '.
        #expect(material.hasPrefix("x'") && material.count == 99)
        try store.commit(Person(name: "Ada", payrollNumber: 1))
        #expect(try Person.query(in: store).count() == 1)
    }

    @Test("keys never appear in traces")
    func keysNotTraced() throws {
        let log = StatementLog()
        let secret = "very-secret-passphrase"
        let store = try Store(
            .sqlcipherTemporary(key: .passphrase(secret)).traced { log.record($0) }.revealingArguments())
        defer { store.close() }
        try store.commit(Person(name: "Ada", payrollNumber: 1))
        _ = try Person.query(in: store).count()
        #expect(!log.all.isEmpty)
        let derived = try #require((store.driver as? SQLCipherDriver)?.keying.readerMaterialForTesting)
        let leaks = log.all.filter {
            $0.description.contains(secret) || $0.description.contains(derived.dropFirst(2).prefix(64))
        }
        #expect(leaks.isEmpty, "\(leaks)")
        #expect(!"\(SQLCipherKey.passphrase(secret))".contains(secret))
    }
}

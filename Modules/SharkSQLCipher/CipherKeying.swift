import CSQLite
import Foundation
@_spi(SharkDriver) @_spi(SharkReplication) import SharkORM
import SharkSQLiteCore
import Synchronization

/// How an encrypted database is keyed: what the writer learned when it opened the file, so
/// that readers open it without paying the key derivation again.
final class CipherKeying: Sendable {
    let path: String
    private let state: Mutex<State>

    struct State {
        var key: SQLCipherKey
        var layout: CipherLayout
        /// The key material readers use: SQLCipher's raw form with the file's salt once the
        /// writer has derived it, the writer's own material until then.
        var readerMaterial: [UInt8]?
    }

    init(path: String, key: SQLCipherKey, pageSize: Int) {
        self.path = path
        state = Mutex(State(key: key, layout: .pageSize(pageSize)))
    }

    /// The readers' key material as text, for tests that check the key is derived once.
    var readerMaterialForTesting: String? {
        state.withLock { $0.readerMaterial.map { String(decoding: $0, as: UTF8.self) } }
    }

    /// Keys `connection`. The writer tries the configured page size, then the other common
    /// one (SQLCipher 3 used 1 KiB, SQLCipher 4 uses 4 KiB), then — on a SQLCipher 4 library —
    /// full SQLCipher 3 compatibility, and fails with a typed error when nothing opens the
    /// file; a reader reuses what the writer found.
    func key(_ connection: SQLiteConnection, role: ConnectionRole) throws {
        switch role {
        case .reader:
            let (material, layout) = try state.withLock { state in
                (try state.readerMaterial ?? state.key.keyMaterial(), state.layout)
            }
            try apply(material, layout: layout, to: connection)
        case .writer:
            let (key, preferred) = state.withLock { ($0.key, $0.layout) }
            let material = try key.keyMaterial()
            var layouts = [preferred]
            if !Self.isEmptyOrMissing(path) {
                layouts += [CipherLayout.pageSize(4096), .pageSize(1024)].filter { $0 != preferred }
                if Self.majorVersion(of: connection) >= 4 { layouts.append(.compatibility(3)) }
            }
            for layout in layouts {
                try apply(material, layout: layout, to: connection)
                if try opens(connection) {
                    state.withLock { $0.layout = layout }
                    return
                }
            }
            if Self.isPlainDatabase(path) { throw SQLCipherError.notEncrypted(path: path) }
            if keyDecryptsFirstPage(key, using: connection) {
                throw SharkError.corrupt(
                    path: path,
                    reason: "the key is right (the first page's header decrypts), but the page fails SQLCipher's "
                        + "integrity check: the file was damaged")
            }
            throw SQLCipherError.wrongKey(path: path)
        }
    }

    /// Whether `key` decrypts the first block of the file into SQLite's header fields.
    ///
    /// SQLCipher answers "file is encrypted or is not a database" both for a wrong key and
    /// for a right key on a damaged first page (its HMAC no longer matches). Decrypting the
    /// first 16 bytes after the salt ourselves tells them apart: with the right key they hold
    /// the page size, the file format versions, the 48 reserved bytes of SQLCipher 3 and the
    /// fixed payload fractions 64, 32, 32; with a wrong key, noise. AES-CBC confines damage to
    /// the blocks it hits, so this works unless the damage is in those very bytes or the IV.
    /// SQLCipher 3 layouts only (PBKDF2-HMAC-SHA1, 48 reserved bytes).
    func keyDecryptsFirstPage(_ key: SQLCipherKey, using connection: SQLiteConnection) -> Bool {
        let api = connection.library.api
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        guard let head = try? handle.read(upToCount: 65536), head.count >= 1024 else { return false }
        let bytes = [UInt8](head)
        let salt = Array(bytes[0..<16])
        var aesKey: [UInt8]
        switch key {
        case .raw(let data):
            aesKey = Array(data)
        case .passphrase(let passphrase):
            guard let pbkdf2 = api.pointee.pbkdf2_hmac_sha1,
                let iterations = try? connection.scalar("PRAGMA kdf_iter")?.coercedToInt64(), iterations > 0
            else { return false }
            aesKey = [UInt8](repeating: 0, count: 32)
            let ok = passphrase.withCString { pass in
                pbkdf2(pass, Int32(passphrase.utf8.count), salt, 16, Int32(iterations), 32, &aesKey)
            }
            guard ok == 1 else { return false }
        }
        defer { for index in aesKey.indices { aesKey[index] = 0 } }
        guard aesKey.count == 32 else { return false }
        let reserved = 48
        for pageSize in [1024, 2048, 4096, 8192, 16384, 32768, 65536] where bytes.count >= pageSize {
            let iv = Array(bytes[(pageSize - reserved)..<(pageSize - reserved + 16)])
            let block = Array(bytes[16..<32])
            var plain = [UInt8](repeating: 0, count: 16)
            guard shark_aes256_cbc_decrypt_block(api, aesKey, iv, block, &plain) == 0 else { return false }
            let storedSize = Int(plain[0]) << 8 | Int(plain[1])
            let sizeMatches = storedSize == pageSize || (storedSize == 1 && pageSize == 65536)
            if sizeMatches, (1...2).contains(plain[2]), (1...2).contains(plain[3]), Int(plain[4]) == reserved,
                plain[5] == 64, plain[6] == 32, plain[7] == 32
            {
                return true
            }
        }
        return false
    }

    /// SQLCipher's major version (3 for Debian's 3.4.1).
    static func majorVersion(of connection: SQLiteConnection) -> Int {
        let version = (try? connection.scalar("PRAGMA cipher_version")?.coercedToText()) ?? ""
        return Int(version.prefix { $0.isNumber }) ?? 3
    }

    /// After the writer has set the database up: derive the passphrase's key once, so each
    /// reader can open with the raw key and salt instead of deriving it again (~50 ms each).
    func prepareReaders(using connection: SQLiteConnection) {
        let key = state.withLock { $0.key }
        // Only SQLCipher 3's derivation (PBKDF2-HMAC-SHA1) is reproduced here; SQLCipher 4's
        // own format (SHA-512) keeps deriving per connection.
        let isSHA1 =
            Self.majorVersion(of: connection) < 4
            || (try? connection.scalar("PRAGMA cipher_kdf_algorithm")?.coercedToText()) == "PBKDF2_HMAC_SHA1"
        guard case .passphrase(let passphrase) = key, isSHA1,
            let pbkdf2 = connection.library.api.pointee.pbkdf2_hmac_sha1,
            let salt = Self.salt(of: path),
            let iterations = try? connection.scalar("PRAGMA kdf_iter")?.coercedToInt64(), iterations > 0
        else { return }
        var derived = [UInt8](repeating: 0, count: 32)
        let ok = passphrase.withCString { pass in
            salt.withUnsafeBufferPointer { saltBytes in
                pbkdf2(
                    pass, Int32(passphrase.utf8.count), saltBytes.baseAddress, Int32(salt.count), Int32(iterations),
                    32, &derived)
            }
        }
        guard ok == 1 else { return }
        let material = Array("x'\(hexadecimal(derived))\(hexadecimal(salt))'".utf8)
        for index in derived.indices { derived[index] = 0 }
        state.withLock { $0.readerMaterial = material }
    }

    /// A new key: readers must derive (or be given) it again.
    func replaceKey(with key: SQLCipherKey) {
        state.withLock {
            $0.key = key
            $0.readerMaterial = nil
        }
    }

    private func apply(_ material: [UInt8], layout: CipherLayout, to connection: SQLiteConnection) throws {
        guard let handle = connection.handle, let sqliteKey = connection.library.api.pointee.key else {
            throw SQLCipherError.missingLibrary(name: "SQLCipher", install: "apt-get install libsqlcipher0")
        }
        let code = material.withUnsafeBytes { sqliteKey(handle, $0.baseAddress, Int32($0.count)) }
        guard code == 0 else { throw SQLCipherError.wrongKey(path: path) }
        switch layout {
        case .pageSize(let size): try connection.execute("PRAGMA cipher_page_size = \(size)")
        case .compatibility(let version): try connection.execute("PRAGMA cipher_compatibility = \(version)")
        }
    }

    /// Whether the keyed connection can read the file.
    private func opens(_ connection: SQLiteConnection) throws -> Bool {
        do {
            _ = try connection.scalar("SELECT count(*) FROM sqlite_master")
            return true
        } catch SharkError.notADatabase {
            return false
        }
    }

    static func isEmptyOrMissing(_ path: String) -> Bool {
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        return size == 0
    }

    /// Whether the file starts with SQLite's plaintext header.
    static func isPlainDatabase(_ path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        let header = (try? handle.read(upToCount: 16)) ?? Data()
        return header == Data("SQLite format 3\u{0}".utf8)
    }

    /// The 16-byte salt SQLCipher keeps at the start of an encrypted file.
    static func salt(of path: String) -> [UInt8]? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let salt = try? handle.read(upToCount: 16), salt.count == 16 else { return nil }
        return Array(salt)
    }
}

/// How the pages of an encrypted file are laid out: what must be set, besides the key, for
/// SQLCipher to read it.
enum CipherLayout: Equatable {
    /// This library's defaults with the given cipher page size.
    case pageSize(Int)
    /// The defaults of an older SQLCipher major version (SQLCipher 4 libraries only).
    case compatibility(Int)
}

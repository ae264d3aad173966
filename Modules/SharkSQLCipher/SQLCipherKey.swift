import Foundation

/// The key of an encrypted database.
///
/// ```swift
/// let store = try Store(.sqlcipher(path: "vault.sqlite", key: .passphrase(secret)))
/// let fast = try Store(.sqlcipher(path: "vault.sqlite", key: .raw(thirtyTwoBytes)))
/// ```
///
/// A passphrase goes through SQLCipher's key derivation (PBKDF2, tens of milliseconds, on
/// purpose); a raw key is the 256-bit AES key itself and skips it. Keys are handed to
/// SQLCipher through `sqlite3_key`, never placed in SQL text, and never traced or logged.
public enum SQLCipherKey: Sendable, CustomStringConvertible {
    /// A passphrase, stretched by SQLCipher's key derivation.
    case passphrase(String)
    /// A 32-byte (256-bit) key, used as is.
    case raw(Data)

    /// Never the key itself.
    public var description: String {
        switch self {
        case .passphrase: return "SQLCipherKey.passphrase(<redacted>)"
        case .raw: return "SQLCipherKey.raw(<redacted>)"
        }
    }

    /// The bytes handed to `sqlite3_key`: the passphrase, or SQLCipher's raw-key form
    /// `x'<64 hex digits>'`.
    func keyMaterial() throws -> [UInt8] {
        switch self {
        case .passphrase(let passphrase):
            return Array(passphrase.utf8)
        case .raw(let key):
            guard key.count == 32 else {
                throw SQLCipherError.invalidRawKey(byteCount: key.count)
            }
            return Array("x'\(hexadecimal(key))'".utf8)
        }
    }
}

/// Lowercase hexadecimal digits of `bytes`.
func hexadecimal(_ bytes: some Sequence<UInt8>) -> String {
    let digits = Array("0123456789abcdef".utf8)
    var text = [UInt8]()
    for byte in bytes {
        text.append(digits[Int(byte >> 4)])
        text.append(digits[Int(byte & 15)])
    }
    return String(decoding: text, as: UTF8.self)
}

/// Errors only the SQLCipher driver raises; the others are ``SharkORM/SharkError``.
///
/// ```swift
/// do {
///     let vault = try Store(.sqlcipher(path: "vault.sqlite", key: .passphrase(secret)))
/// } catch SQLCipherError.wrongKey(let path) {
///     print("the key does not open \(path)")
/// }
/// ```
public enum SQLCipherError: Error, Sendable, Equatable, CustomStringConvertible, LocalizedError {
    /// A raw key must be exactly 32 bytes.
    case invalidRawKey(byteCount: Int)
    /// The key does not open the encrypted database at `path` (or the file is not an
    /// encrypted database: to SQLCipher, noise and a wrong key look alike).
    case wrongKey(path: String)
    /// The database at `path` is a plain, unencrypted database; open it with `.sqlite`, or
    /// encrypt it first (`SQLCipher.encrypt`).
    case notEncrypted(path: String)
    /// The SQLCipher library is not installed.
    case missingLibrary(name: String, install: String)

    public var description: String {
        switch self {
        case .invalidRawKey(let count): return "a raw SQLCipher key must be 32 bytes, not \(count)"
        case .wrongKey(let path):
            return "the key does not open the encrypted database at \(path) (or it is not an encrypted database)"
        case .notEncrypted(let path):
            return "the database at \(path) is not encrypted: open it with .sqlite, or encrypt it first"
        case .missingLibrary(let name, let install): return "\(name) is not installed: \(install)"
        }
    }

    public var errorDescription: String? { description }
}

import Foundation
@_spi(SharkReplication) import SharkORM

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

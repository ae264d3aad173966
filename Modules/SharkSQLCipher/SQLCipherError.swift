import Foundation

/// Errors only the SQLCipher driver raises; the others are `SharkError` (in SharkORM).
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

import Foundation
@_spi(SharkDriver) import SharkORM

/// Errors only the PostgreSQL driver raises; the others are `SharkError` (in SharkORM), and a
/// server's own failure is `SharkError.driver(code:message:sql:)` with its SQLSTATE in the
/// message and PostgreSQL's own number for it as the code (``sqlState(ofCode:)`` reads it back).
///
/// ```swift
/// import SharkORM
/// import SharkPostgres
///
/// do {
///     _ = try Store(.postgres(host: "db.example.com", database: "app", user: "app", tls: .disabled))
/// } catch PostgresError.insecureConnection(let host) {
///     print("refused plaintext to \(host)")
/// }
/// ```
public enum PostgresError: Error, Sendable, Hashable, CustomStringConvertible, LocalizedError {
    /// TLS was disabled for a host that is neither a loopback address nor a Unix socket:
    /// the password and the data would cross the network in plaintext.
    case insecureConnection(host: String)
    /// The password's source (``PostgresPassword``) did not give one.
    case passwordUnavailable(source: String, reason: String)
    /// The configuration cannot work (an empty database name, a pool of no connections…).
    case invalidConfiguration(String)
    /// The server could not be reached, refused the credentials or the TLS handshake failed.
    case connectionFailed(reason: String)
    /// The transaction lost a race with another writer (SQLSTATE 40001, a serialization
    /// failure, or 40P01, a deadlock): nothing of it was committed. The store runs a closure
    /// transaction again by itself (up to `Store.transactionAttempts` times); this reaches the
    /// app only when every attempt lost.
    case transactionConflict(sqlState: String, message: String)
    /// The connection was lost while the server committed: the transaction may or may not
    /// have been committed, and the store cannot tell. It is never retried (it could apply
    /// twice); read the data again to find out.
    case commitOutcomeUnknown(reason: String)

    public var description: String {
        switch self {
        case .insecureConnection(let host):
            return "refusing a plaintext connection to \(host): TLS may be disabled only for a loopback address "
                + "or a Unix socket (use .verified())"
        case .passwordUnavailable(let source, let reason): return "no PostgreSQL password from \(source): \(reason)"
        case .invalidConfiguration(let reason): return "invalid PostgreSQL configuration: \(reason)"
        case .connectionFailed(let reason): return "cannot connect to PostgreSQL: \(reason)"
        case .transactionConflict(let state, let message):
            return "the transaction lost a race with another writer, every time it ran ([\(state)] \(message))"
        case .commitOutcomeUnknown(let reason):
            return "the connection was lost during COMMIT: the transaction may or may not be committed (\(reason))"
        }
    }

    public var errorDescription: String? { description }

    /// The SQLSTATE (`"23505"`) a `SharkError.driver` code from this driver stands for:
    /// PostgreSQL's own packing of its five characters, six bits each.
    public static func sqlState(ofCode code: Int32) -> String {
        var characters = ""
        for position in 0..<5 {
            let sixBits = (code >> (6 * Int32(position))) & 0x3F
            characters.append(Character(UnicodeScalar(UInt8(sixBits) + 48)))  // '0' is 48
        }
        return characters
    }

    /// The code `SharkError.driver` carries for `sqlState` (PostgreSQL's MAKE_SQLSTATE).
    static func code(ofSQLState sqlState: String) -> Int32 {
        var code: Int32 = 0
        for (position, byte) in sqlState.utf8.prefix(5).enumerated() {
            code |= ((Int32(byte) - 48) & 0x3F) << (6 * Int32(position))
        }
        return code
    }
}

/// A lost race is worth running again (the store does, for closure transactions); nothing
/// else is, least of all a commit whose outcome is unknown.
@_spi(SharkDriver) extension PostgresError: RetryableConflict {
    public var isConflict: Bool {
        if case .transactionConflict = self { return true }
        return false
    }
}

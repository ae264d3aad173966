/// How a PostgreSQL store secures its connections.
///
/// Encryption is on unless the server is on this machine: ``disabled`` is accepted only for a
/// loopback address or a Unix socket, and a store configured with it for any other host
/// refuses to open (``PostgresError/insecureConnection(host:)``). When on, the server's
/// certificate must chain to a trusted authority and name the host: nothing falls back to
/// plaintext, and no certificate is accepted unverified.
///
/// ```swift
/// import SharkPostgres
///
/// let systemRoots = PostgresTLS.verified()
/// let ownAuthority = PostgresTLS.verified(certificateAuthority: "/etc/app/db-ca.pem")
/// print(systemRoots, ownAuthority, PostgresTLS.disabled)
/// ```
public struct PostgresTLS: Sendable, Hashable, CustomStringConvertible {
    enum Mode: Sendable, Hashable {
        case disabled
        case verified(certificateAuthority: String?, serverName: String?)
    }

    let mode: Mode

    /// Plaintext: only for a server on a loopback address or a Unix socket.
    public static let disabled = PostgresTLS(mode: .disabled)

    /// TLS with the server's certificate verified.
    ///
    /// - Parameters:
    ///   - certificateAuthority: a PEM file of the authorities to trust; the system's when nil.
    ///   - serverName: the name the certificate must carry, when it is not the host connected
    ///     to (an address, say).
    public static func verified(certificateAuthority: String? = nil, serverName: String? = nil) -> PostgresTLS {
        PostgresTLS(mode: .verified(certificateAuthority: certificateAuthority, serverName: serverName))
    }

    public var description: String {
        switch mode {
        case .disabled: return "TLS disabled"
        case .verified(let authority, let name):
            return "TLS verified against " + (authority ?? "the system's authorities")
                + (name.map { " for \($0)" } ?? "")
        }
    }
}

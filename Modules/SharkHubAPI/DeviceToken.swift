import Crypto
import Foundation

/// A device's token: its id, which the hub looks up, and a secret of 256 random bits, which
/// only the device holds (the hub keeps its SHA-256). Written `shk1.<device id>.<secret in
/// base64url>`; shown once, when the device is added.
public struct DeviceToken: Sendable, Hashable, CustomStringConvertible {
    // Equal tokens have equal devices and secrets; `==` compares the secrets' digests in
    // constant time (see `matches`), and hashing uses the device alone.
    public static func == (a: DeviceToken, b: DeviceToken) -> Bool {
        a.device == b.device && a.matches(b.secretDigest)
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(device) }

    /// The device the token belongs to.
    public let device: UUID
    let secret: [UInt8]

    static let prefix = "shk1"

    /// A new token for `device`, its secret from the system's secure random generator.
    package init(device: UUID) {
        var generator = SystemRandomNumberGenerator()
        self.device = device
        self.secret = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }

    /// The token `text` spells, or nil when it is not one. Only the one spelling
    /// ``bearerValue`` writes is a token (the device id in lowercase, the secret in 43
    /// characters), so that no two texts name one token.
    ///
    /// ```swift
    /// let parsed = DeviceToken(parsing: token.bearerValue)
    /// ```
    public init?(parsing text: some StringProtocol) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == Self.prefix, let device = UUID(uuidString: String(parts[1])),
            parts[1] == device.uuidString.lowercased(), parts[2].count == 43,
            let secret = Self.decode(parts[2]), secret.count == 32, Self.encode(secret) == parts[2]
        else { return nil }
        self.device = device
        self.secret = secret
    }

    /// The whole token, secret included, as the device presents it (`Authorization: Bearer
    /// …`): show it once, to whoever sets the device up.
    ///
    /// ```swift
    /// print(token.bearerValue)   // shk1.<device id>.<secret>
    /// ```
    public var bearerValue: String {
        "\(Self.prefix).\(device.uuidString.lowercased()).\(Self.encode(secret))"
    }

    /// The token without its secret, for logs: `shk1.<device id>.…`.
    public var description: String { "\(Self.prefix).\(device.uuidString.lowercased()).…" }

    /// What the hub stores in place of the secret.
    package var secretDigest: Data { Data(SHA256.hash(data: secret)) }

    /// Whether this token's secret hashes to `stored`, compared in time that does not depend
    /// on where they differ.
    package func matches(_ stored: Data) -> Bool { constantTimeEqual(stored, secretDigest) }

    private static func encode(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    private static func decode(_ text: some StringProtocol) -> [UInt8]? {
        guard text.count <= 64,
            text.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") })
        else { return nil }
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64).map { [UInt8]($0) }
    }
}

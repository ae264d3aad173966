import Crypto
import Foundation

extension ChangeLogKey {
    /// A keyed fingerprint of `digest` for a relay that must compare two replicas' digests
    /// without learning them (the sync hub verifying a snapshot): HMAC-SHA256, under a key
    /// derived from the lineage key `keyID` names, of the digest's schema hash, content sum,
    /// row count and vector. Equal digests give equal tags; without the key, a tag tells
    /// nothing about the rows, and no guess of them can be tested against it. Nil when this
    /// key neither is nor retired key `keyID`.
    ///
    /// ```swift
    /// let tag = key.digestTag(of: try engine.digest(), keyID: key.id)
    /// ```
    package func digestTag(of digest: SyncDigest, keyID: UInt32) -> Data? {
        guard let key = opening(keyID: keyID) else { return nil }
        let tagKey = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: key.key.symmetric, salt: Data(), info: Data("SharkORM snapshot digest".utf8),
            outputByteCount: 32)
        var message = ByteWriter(capacity: 96 + 24 * digest.vector.entries.count)
        message.append(Array(digest.schema))
        message.append(Array(digest.content))
        message.append(varint: digest.rowCount)
        message.append(varint: digest.vector.entries.count)
        for site in digest.vector.sortedSites {
            message.append(uuid: site)
            message.append(varint: digest.vector[site])
        }
        return Data(HMAC<SHA256>.authenticationCode(for: message.bytes, using: tagKey))
    }
}

import Foundation

/// A fingerprint of a replica's synced content: what two replicas compare to know they hold
/// the same data, without sending it.
///
/// It covers every live row of every synced entity: the entity's name, the key, the causal
/// length, and each column's name, value (in the change log's encoding) and version. Removed
/// rows, forgotten removals and values kept pending are left out. Each row is hashed with
/// SHA-256 and the hashes are added modulo 2^256, so the order rows are read in does not
/// matter. It detects bugs and lost or damaged data, not attacks: a sum of hashes is easy to
/// forge on purpose. Digests compare only under equal schemas, so each carries a hash of the
/// synced schema (entities, key kinds, column names and storage classes).
///
/// ```swift
/// let mine = try laptop.digest()
/// let theirs = try phone.digest()
/// if mine.content == theirs.content { print("the same \(mine.rowCount) rows") }
/// ```
public struct SyncDigest: Sendable, Hashable, CustomStringConvertible {
    /// SHA-256 of the synced schema (32 bytes).
    public var schema: Data
    /// The sum of the live rows' SHA-256, modulo 2^256, as 32 big-endian bytes.
    public var content: Data
    /// How many live rows it covers.
    public var rowCount: Int
    /// The version vector of the replica when the digest was taken: what it had seen.
    public var vector: VersionVector

    public init(schema: Data, content: Data, rowCount: Int, vector: VersionVector) {
        self.schema = schema
        self.content = content
        self.rowCount = rowCount
        self.vector = vector
    }

    /// The content as 64 hexadecimal digits.
    public var contentHex: String { Self.hex(content) }
    /// The schema hash as 64 hexadecimal digits.
    public var schemaHex: String { Self.hex(schema) }

    public var description: String { "\(contentHex) (\(rowCount) rows, schema \(schemaHex.prefix(16)))" }

    /// How this digest compares with `other`: equal, different, or not comparable when their
    /// schemas differ. Their vectors are not compared: two replicas that saw different
    /// changes may still hold the same content (a value written back as it was).
    ///
    /// ```swift
    /// switch try laptop.digest().compared(to: try phone.digest()) {
    /// case .equal: print("in sync")
    /// case .different: print("they differ")
    /// case .notComparable(let reason): print("cannot tell: \(reason)")
    /// }
    /// ```
    public func compared(to other: SyncDigest) -> SyncDigestComparison {
        guard schema == other.schema else { return .notComparable(.schemasDiffer) }
        return content == other.content ? .equal : .different
    }

    static func hex(_ bytes: Data) -> String { bytes.map { String(format: "%02x", $0) }.joined() }
}

/// What comparing two digests says.
///
/// ```swift
/// let summary = try phone.importChanges(from: try laptop.exportChanges())
/// if try phone.compareDigest(after: summary) == .equal { print("completely in sync") }
/// ```
public enum SyncDigestComparison: Sendable, Hashable {
    /// The same synced content.
    case equal
    /// Different content under the same schema.
    case different
    /// Nothing can be said, and why.
    case notComparable(Reason)

    /// Why two digests cannot be compared.
    public enum Reason: String, Sendable, Hashable {
        /// The file imported carried no digest: only a full export (one not `since` a
        /// vector) carries one.
        case fileHasNoDigest
        /// The two replicas sync different schemas (an entity or a column one has and the
        /// other has not, or of another storage class).
        case schemasDiffer
        /// The receiver's version vector is not the file's: it had changes the sender had not
        /// seen, or it changed since the import, so their contents may differ rightly.
        case vectorsDiffer
        /// The receiver keeps values pending (for an entity or a column it does not have yet):
        /// they are not part of its content.
        case pendingValues
    }
}

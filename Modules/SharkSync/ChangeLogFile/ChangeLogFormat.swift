import Crypto
import Foundation
@_spi(SharkReplication) import SharkORM

/// The constants of the change-log file format (docs/sync-format.md).
enum ChangeLogFormat {
    static let magic = Array("SHARKLOG".utf8)
    static let trailerMagic = Array("SHARKEND".utf8)
    /// The highest version this library reads and writes. It writes each file in the lowest
    /// version its contents allow (``version(for:)``), so a peer on an older release reads
    /// what it can.
    static let version: UInt16 = 2
    /// The first version that knows `int64` keys.
    static let integerKeysVersion: UInt16 = 2
    /// The first version whose header carries a tombstone horizon after its two vectors.
    static let horizonVersion: UInt16 = 2

    /// The first version whose last frame may be a replica digest (flags bit 2).
    static let digestVersion: UInt16 = 2

    /// The lowest version that can carry `entities`, `horizon` and a digest: 2 once an
    /// entity has `Int64` keys, removals were forgotten or the file carries a digest, else 1.
    static func version(for entities: some Sequence<ChangeLogEntity>, horizon: VersionVector, carriesDigest: Bool)
        -> UInt16
    {
        if !horizon.entries.isEmpty { return horizonVersion }
        if carriesDigest { return digestVersion }
        if entities.contains(where: { $0.columns.contains { $0.rule != .lastWriterWins } }) { return digestVersion }
        return entities.contains { $0.keyKind == .autoIncrement } ? integerKeysVersion : 1
    }

    /// A key kind's name in the header: `uuid`, `string`, or (version 2) `int64`.
    static func name(of keyKind: KeyKind) -> String {
        switch keyKind {
        case .uuid: return "uuid"
        case .string: return "string"
        case .autoIncrement: return "int64"
        }
    }

    /// The key kind a header names, as far as `version` knows it; nil for any other name.
    static func keyKind(named name: String, version: UInt16) -> KeyKind? {
        switch name {
        case "uuid": return .uuid
        case "string": return .string
        case "int64" where version >= integerKeysVersion: return .autoIncrement
        default: return nil
        }
    }
    /// The largest causal length and sequence number a file may carry: far beyond what any
    /// replica reaches (one per change), and far enough below 2^64 that the engine's own
    /// counting on top of merged state (a removal, the next local change) never overflows.
    static let maximumCounter: UInt64 = 1 << 62
    /// Flag bit: every frame (and the header) is sealed with a key.
    static let encryptedFlag: UInt16 = 1
    /// Flags bit 1: each column of the header carries its logical type after its previous
    /// names, so a reader without the app's models shows dates as dates. Files of version 1
    /// without it still read; a reader that predates it refuses it, as it refuses any bit it
    /// does not know.
    static let logicalTypesFlag: UInt16 = 1 << 1
    /// Flags bit 2 (version 2): the last frame holds a ``SyncDigest`` of the sender's synced
    /// content (``ChangeLogDigestFrame``), not rows. Only full exports carry one.
    static let digestFlag: UInt16 = 1 << 2
    /// Flags bit 3 (version 2): each column of the header carries its merge rule after its
    /// logical type (see ``MergePolicy``); set when some column has one. A reader that
    /// predates it refuses the file (an unknown flag), never merging by last-writer-wins what
    /// is a counter.
    static let mergeRulesFlag: UInt16 = 1 << 3
    /// The flags this library reads.
    static let knownFlags = encryptedFlag | logicalTypesFlag | digestFlag | mergeRulesFlag
    /// Rows per frame: frames stay small enough to check and inflate one at a time.
    static let rowsPerFrame = 4096
    /// Bytes after which a frame takes no more rows: far below the readers' default limit.
    static let bytesPerFrame = 4 << 20
    /// magic, version, flags, header length.
    static let preambleLength = 8 + 2 + 2 + 4
    /// magic, frame count, SHA-256.
    static let trailerLength = 8 + 4 + 32
    /// The storage classes' codes in the entity dictionary.
    static let storageCodes: [StorageTypeCode] = [
        .init(type: .integer, code: 1), .init(type: .real, code: 2), .init(type: .text, code: 3),
        .init(type: .blob, code: 4),
    ]
}

struct StorageTypeCode {
    var type: StorageType
    var code: UInt8
}

extension StorageType {
    var changeLogCode: UInt8 { ChangeLogFormat.storageCodes.first { $0.type == self }!.code }

    init(changeLogCode: UInt8) throws(SyncError) {
        guard let match = ChangeLogFormat.storageCodes.first(where: { $0.code == changeLogCode }) else {
            throw .corrupt(.malformedContent, "unknown storage class code \(changeLogCode)")
        }
        self = match.type
    }
}

/// How much an import accepts before it reads a file: caps that stop a damaged or hostile
/// file (a decompression bomb, a count of a billion rows) before work is spent on it. An
/// import holds a few frames at a time, so the total bounds the work, not the memory: the
/// default admits files of hundreds of millions of rows.
///
/// ```swift
/// var limits = ChangeLogLimits()
/// limits.maximumInflatedBytes = 64 << 20
/// try sync.importChanges(from: data, limits: limits)
/// ```
public struct ChangeLogLimits: Sendable, Hashable {
    /// The most bytes all frames together may inflate to. Default: 64 GiB (ten million rows
    /// of a few columns inflate to about 600 MB).
    public var maximumInflatedBytes: Int = 1 << 36
    /// The most bytes one frame may inflate to. Default: 64 MiB.
    public var maximumFrameBytes: Int = 64 << 20
    /// The most bytes the header may take. Default: 16 MiB.
    public var maximumHeaderBytes: Int = 16 << 20

    public init() {}
}

/// A key that seals a change log (AES-GCM over each compressed frame), so a file can travel
/// through storage you do not trust. Keep it as you would a password. Without it a sealed file
/// reveals no value and no key of any row, and cannot be altered unnoticed; its header stays
/// readable (the lineage, the site ids, the version vectors, the entity and column names and
/// types, and the number of rows per entity).
///
/// ```swift
/// let key = ChangeLogKey.random()
/// let file = try sync.exportChanges(key: key)
/// try other.importChanges(from: file, key: key)
/// ```
public struct ChangeLogKey: Sendable {
    let key: SealingKey

    /// A key from 32 bytes (256 bits) you keep elsewhere; throws for any other length.
    public init(bytes: some ContiguousBytes) throws(SyncError) {
        let key = SymmetricKey(data: bytes)
        guard key.bitCount == 256 else {
            throw .keyMismatch(.wrongKeySize, "a change-log key has 32 bytes, this one has \(key.bitCount / 8)")
        }
        self.key = SealingKey(key)
    }

    /// A new random key.
    public static func random() -> ChangeLogKey {
        ChangeLogKey(key: SealingKey(SymmetricKey(size: .bits256)))
    }

    private init(key: SealingKey) { self.key = key }

    /// The key's 32 bytes, to store.
    public var bytes: Data { key.symmetric.withUnsafeBytes { Data($0) } }

    /// The key of one file: derived from this one and the file's id, so that no two files
    /// share a key (and AES-GCM's random nonces never meet twice under one key).
    func fileKey(_ fileID: UUID) -> SealingKey {
        let salt = withUnsafeBytes(of: fileID.uuid) { Data($0) }
        return SealingKey(
            HKDF<SHA256>.deriveKey(
                inputKeyMaterial: key.symmetric, salt: salt, info: Data("SharkORM change log".utf8),
                outputByteCount: 32))
    }
}

/// A `SymmetricKey` that crosses threads (frames are sealed and opened in parallel). The key
/// is an immutable value; swift-crypto 4 declares it `Sendable`, 3.x, which the package also
/// builds with, does not.
struct SealingKey: @unchecked Sendable {
    let symmetric: SymmetricKey

    init(_ symmetric: SymmetricKey) { self.symmetric = symmetric }
}

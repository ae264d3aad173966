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
    static let version: UInt16 = 3
    /// The first version that knows `int64` keys.
    static let integerKeysVersion: UInt16 = 2
    /// The first version whose header carries a tombstone horizon after its two vectors.
    static let horizonVersion: UInt16 = 2

    /// The first version whose last frame may be a replica digest (flags bit 2).
    static let digestVersion: UInt16 = 2
    /// The first version whose header names the key that sealed the file (``ChangeLogKey/id``).
    static let keyIDVersion: UInt16 = 3

    /// The lowest version that can carry `entities`, `horizon`, a digest and the id of the
    /// sealing key: 3 for a key other than a space's first (id 0); else 2 once an entity has
    /// `Int64` keys, removals were forgotten or the file carries a digest; else 1.
    static func version(
        for entities: some Sequence<ChangeLogEntity>, horizon: VersionVector, carriesDigest: Bool, keyID: UInt32
    ) -> UInt16 {
        if keyID != 0 { return keyIDVersion }
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
/// types, the number of rows per entity, and the key's ``id``).
///
/// ```swift
/// let key = ChangeLogKey.random()
/// let file = try sync.exportChanges(key: key)
/// try other.importChanges(from: file, key: key)
/// ```
///
/// **Rotating.** A key has an ``id``, 0 for the first. To rotate, make a key with a higher id
/// that also opens the files its predecessors sealed, and give it to every device that should
/// go on reading: files it seals carry the new id, which readers of the old key alone refuse
/// with ``SyncError/keyMismatch(_:)`` (``SyncError/KeyReason/unknownKeyID``). A device that
/// kept only the old key (a revoked one) reads nothing written after the rotation.
///
/// ```swift
/// let first = ChangeLogKey.random()
/// let second = try ChangeLogKey.random(id: 1).retiring([first])
/// let before = try sync.exportChanges(key: first)
/// try other.importChanges(from: before, key: second)  // opened with the retired key
/// ```
public struct ChangeLogKey: Sendable {
    let key: SealingKey
    /// Which of a lineage's keys this is: 0 for the first, higher for each rotation. A file
    /// sealed with a key other than the first names its id in its header (format version 3).
    public let id: UInt32
    /// The keys this one took over from, by id: they open files sealed before a rotation,
    /// and never seal.
    private let retired: [UInt32: SealingKey]

    /// A key from 32 bytes (256 bits) you keep elsewhere; throws for any other length. `id`
    /// tells it apart from the lineage's other keys: 0 until the first rotation.
    public init(bytes: some ContiguousBytes, id: UInt32 = 0) throws(SyncError) {
        let key = SymmetricKey(data: bytes)
        guard key.bitCount == 256 else {
            throw .keyMismatch(.wrongKeySize, "a change-log key has 32 bytes, this one has \(key.bitCount / 8)")
        }
        self.init(key: SealingKey(key), id: id, retired: [:])
    }

    /// A new random key, with id `id` (0 for a lineage's first key).
    public static func random(id: UInt32 = 0) -> ChangeLogKey {
        ChangeLogKey(key: SealingKey(SymmetricKey(size: .bits256)), id: id, retired: [:])
    }

    private init(key: SealingKey, id: UInt32, retired: [UInt32: SealingKey]) {
        self.key = key
        self.id = id
        self.retired = retired
    }

    /// This key, also opening files sealed with `older` keys and with the keys they retired
    /// in turn: what a device holds after a rotation. Each older key's id must be below this
    /// one's, and two keys with one id must be the same key; else it throws
    /// ``SyncError/KeyReason/retiredKeyID``.
    ///
    /// ```swift
    /// let first = ChangeLogKey.random()
    /// let second = try ChangeLogKey.random(id: 1).retiring([first])
    /// let third = try ChangeLogKey.random(id: 2).retiring([second])  // opens 0, 1 and 2
    /// ```
    public func retiring(_ older: [ChangeLogKey]) throws(SyncError) -> ChangeLogKey {
        var retired = self.retired
        for key in older {
            for (id, sealing) in key.retired.merging([(key.id, key.key)], uniquingKeysWith: { first, _ in first }) {
                guard id < self.id else {
                    throw .keyMismatch(
                        .retiredKeyID,
                        "key \(self.id) cannot retire key \(id): a retired key's id is below its successor's")
                }
                if let known = retired[id], !known.sameBytes(as: sealing) {
                    throw .keyMismatch(.retiredKeyID, "two different keys have id \(id)")
                }
                retired[id] = sealing
            }
        }
        return ChangeLogKey(key: key, id: id, retired: retired)
    }

    /// The ids of the retired keys this one opens files of, in order.
    public var retiredIDs: [UInt32] { retired.keys.sorted() }

    /// The key's 32 bytes, to store (with its ``id``; retired keys are stored on their own).
    public var bytes: Data { key.symmetric.withUnsafeBytes { Data($0) } }

    /// Whether this key opens files sealed with key `id`: it is that key, or retired it.
    package func opens(keyID id: UInt32) -> Bool { opening(keyID: id) != nil }

    /// The key that opens files sealed with key `id`: this one or a retired one.
    func opening(keyID id: UInt32) -> ChangeLogKey? {
        if id == self.id { return self }
        return retired[id].map { ChangeLogKey(key: $0, id: id, retired: [:]) }
    }

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

    /// Whether both hold the same 256 bits (compared in constant time).
    func sameBytes(as other: SealingKey) -> Bool { symmetric == other.symmetric }
}

import SharkORM

/// Why sync refused a model, a write, or a change-log file. A refused import leaves the store
/// exactly as it was.
///
/// ```swift
/// do {
///     try sync.importChanges(from: data)
/// } catch let error as SyncError {
///     print(error)   // "the change log is damaged: frame 3: its checksum does not match"
/// }
/// ```
public enum SyncError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A model cannot be synced so that replicas converge (an `Int64` key whose assignment
    /// the options do not name, a unique index, a reference to a model that is not synced…).
    case unsupportedModel(entity: String, reason: String)
    /// The bytes are not a change log (no magic number at the start).
    case notAChangeLog
    /// The file was written by a later format version than this library reads.
    case unsupportedFormatVersion(Int)
    /// A replica has forgotten removals (``SyncEngine/forgetTombstones(seenBy:)``) up to
    /// `horizon`, and `vector` does not reach it: an export since that vector, or an import of
    /// a file whose sender had seen only that much, could bring removed rows back. The replica
    /// behind catches up from a full export (`exportChanges()` with no vector), which carries
    /// the removals forgotten.
    case belowHorizon(vector: VersionVector, horizon: VersionVector)
    /// The file is truncated, or bytes were changed: a checksum, the digest or the structure
    /// does not hold.
    case corrupt(ErrorDetail<CorruptReason>)
    /// The file declares more than the import limits allow (a decompression bomb, say).
    case tooLarge(ErrorDetail<LimitReason>)
    /// The file comes from another app's database: its lineage differs from the store's.
    case foreignLineage(expected: String, found: String)
    /// The file is encrypted and no key was given, or a key was given for a plain file.
    case keyMismatch(ErrorDetail<KeyReason>)
    /// The file's key is wrong, or its sealed frames were altered.
    case wrongKey
    /// The operation cannot run here (inside a transaction of the same store, say).
    case misuse(ErrorDetail<MisuseReason>)
    /// A change-log file could not be opened, read or written (a missing file, a full disk,
    /// no permission): the operating system's reason is in the message.
    case file(ErrorDetail<FileReason>)
    /// A write or a file breaks a column's merge policy (``MergePolicy``): a local write that
    /// would lower a maximum, a counter whose total no longer fits 64 bits.
    case mergePolicy(ErrorDetail<MergePolicyReason>)
    /// Sync itself failed where nothing the caller gave was wrong (zlib could not compress,
    /// AES-GCM could not seal): a bug or a broken library, not misuse.
    case internalFailure(ErrorDetail<InternalReason>)

    public var description: String {
        switch self {
        case .unsupportedModel(let entity, let reason): return "\(entity) cannot be synced: \(reason)"
        case .notAChangeLog: return "not a SharkORM change log (the magic number is missing)"
        case .unsupportedFormatVersion(let version):
            return
                "the change log has format version \(version); this library reads versions 1 to \(ChangeLogFormat.version)"
        case .corrupt(let reason): return "the change log is damaged: \(reason)"
        case .belowHorizon(let vector, let horizon):
            return "removals were forgotten up to \(horizon), and \(vector) does not reach it: "
                + "catch up from a full export (exportChanges() with no vector) first"
        case .tooLarge(let reason): return "the change log exceeds the import limits: \(reason)"
        case .foreignLineage(let expected, let found):
            return "the change log comes from another database lineage (\(found), this store is \(expected))"
        case .keyMismatch(let reason): return reason.message
        case .wrongKey: return "the change log's key is wrong, or its encrypted frames were altered"
        case .misuse(let reason): return reason.message
        case .file(let reason): return reason.message
        case .mergePolicy(let reason): return reason.message
        case .internalFailure(let reason): return "sync failed: \(reason)"
        }
    }
}

import SharkORM

/// The typed reasons of the ``SyncError`` cases whose payload is an `ErrorDetail`: what a
/// caller matches on. docs/errors.md lists each with when it is thrown.
extension SyncError {
    /// Which merge policy a write or a file breaks (``mergePolicy(_:)``; see ``MergePolicy``).
    public enum MergePolicyReason: String, Sendable, Hashable, CaseIterable {
        /// A local write would lower a ``MergePolicy/maximum(_:)`` column.
        case lowersMaximum
        /// A local write would raise a ``MergePolicy/minimum(_:)`` column.
        case raisesMinimum
        /// A counter's value, or a replica's total, would no longer fit 64 bits.
        case counterOverflow
        /// A column merges by an app resolver this engine does not have: it was opened without
        /// the model that declares it (as the command line opens a store), or with a model that
        /// no longer does. Nothing of the file is applied.
        case resolverUnavailable
        /// An app resolver broke a law of a join (commutative, idempotent, associative) on the
        /// values it merged: checked in debug builds, and by ``MergePolicy/checkJoin(_:on:)``.
        case notAJoin
        /// A local write of a resolver's column is not one the resolver keeps against the
        /// value it replaces (`j(old, new) != new`): replicas would not converge.
        case writeNotKept
        /// An app resolver's values could not be read from, or stored in, their column.
        case resolverFailed
    }

    /// What is damaged in a change log, or in the store's sync metadata (``corrupt(_:)``).
    public enum CorruptReason: String, Sendable, Hashable, CaseIterable {
        /// The file ends early: before its trailer, inside a frame, or with frames missing.
        case truncated
        /// The header's or a frame's checksum does not match its bytes.
        case checksumMismatch
        /// The file's digest (its trailer) does not match its contents.
        case digestMismatch
        /// The header and the trailer count different numbers of frames.
        case frameCountMismatch
        /// The frames hold another number of rows of an entity than the header counts.
        case rowCountMismatch
        /// The header sets a flag this library does not know.
        case unknownFlags
        /// Bytes follow the last frame, the header's fields or a frame's rows.
        case trailingBytes
        /// A frame's compressed bytes do not inflate to the length it declares.
        case notInflatable
        /// A field holds what the format does not allow (a site number not in the site
        /// table, a sequence beyond range, an entity or column listed twice, a key of another
        /// kind, a removed row with values, an unknown storage class).
        case malformedContent
        /// The store's own sync metadata is damaged (a row state that is not a blob, a site
        /// number it does not know).
        case damagedMetadata
    }

    /// Which import limit a change log exceeds (``tooLarge(_:)``; see `ChangeLogLimits`).
    public enum LimitReason: String, Sendable, Hashable, CaseIterable {
        /// The header is longer than the limit.
        case headerBytes
        /// One frame inflates to more than the limit.
        case frameBytes
        /// The frames inflate to more than the limit in all.
        case inflatedBytes
        /// A row is larger than a frame can hold (when writing).
        case rowBytes
    }

    /// How the key given does not suit the file (``keyMismatch(_:)``).
    public enum KeyReason: String, Sendable, Hashable, CaseIterable {
        /// The file is sealed and no key was given.
        case keyRequired
        /// A key was given for a file that is not sealed.
        case keyNotExpected
        /// The key is not 32 bytes.
        case wrongKeySize
        /// The file is sealed with a key whose id (``ChangeLogHeader/keyID``) is neither the
        /// key given nor one it retired: a device not yet given a rotated key, or one given a
        /// key newer than the file's without the older key retired in it.
        case unknownKeyID
        /// ``ChangeLogKey/retiring(_:)`` was given a key whose id is not below the new key's, or
        /// two different keys with one id.
        case retiredKeyID
    }

    /// What the caller asked that cannot be done here (``misuse(_:)``).
    public enum MisuseReason: String, Sendable, Hashable, CaseIterable {
        /// An import inside a transaction of the same store (an import is one itself).
        case insideTransaction
        /// A lineage with an empty name.
        case emptyLineage
        /// A store opened without models that has never synced.
        case neverSynced
        /// The store's sync metadata has no local site.
        case noLocalSite
        /// A read-only store whose sync metadata is out of date, or has no site in the lineage.
        case readOnlyMetadata
        /// The store syncs as another site than the one asked for.
        case siteMismatch
        /// The store syncs in another lineage than the one asked for.
        case lineageMismatch
    }

    /// What could not be done with a change-log file (``file(_:)``).
    public enum FileReason: String, Sendable, Hashable, CaseIterable {
        /// The file could not be opened (or created, for an export).
        case cannotOpen
        /// Reading the file failed.
        case cannotRead
        /// Writing the file failed (a full disk, say); an export leaves no partial file.
        case cannotWrite
    }

    /// What failed inside sync (``internalFailure(_:)``).
    public enum InternalReason: String, Sendable, Hashable, CaseIterable {
        /// zlib could not compress a frame.
        case compression
        /// AES-GCM could not seal a frame.
        case sealing
        /// A frame was not worked on by the parallel frame coder.
        case frameScheduling
    }

    /// ``corrupt(_:)`` with its reason.
    public static func corrupt(_ reason: CorruptReason, _ message: String) -> SyncError {
        .corrupt(ErrorDetail(reason, message))
    }

    /// ``tooLarge(_:)`` with its reason.
    public static func tooLarge(_ reason: LimitReason, _ message: String) -> SyncError {
        .tooLarge(ErrorDetail(reason, message))
    }

    /// ``keyMismatch(_:)`` with its reason.
    public static func keyMismatch(_ reason: KeyReason, _ message: String) -> SyncError {
        .keyMismatch(ErrorDetail(reason, message))
    }

    /// ``misuse(_:)`` with its reason.
    public static func misuse(_ reason: MisuseReason, _ message: String) -> SyncError {
        .misuse(ErrorDetail(reason, message))
    }

    /// ``file(_:)`` with its reason.
    public static func file(_ reason: FileReason, _ message: String) -> SyncError {
        .file(ErrorDetail(reason, message))
    }

    /// ``mergePolicy(_:)`` with its reason.
    public static func mergePolicy(_ reason: MergePolicyReason, _ message: String) -> SyncError {
        .mergePolicy(ErrorDetail(reason, message))
    }

    /// ``internalFailure(_:)`` with its reason.
    public static func internalFailure(_ reason: InternalReason, _ message: String) -> SyncError {
        .internalFailure(ErrorDetail(reason, message))
    }
}

import Foundation

/// A space's snapshot as the hub lists it (`HubFileList.snapshot`): a sealed full export a
/// device uploaded, from which a device joining late starts instead of every file before it.
///
/// The hub cannot open it. It counts for retention (files it covers may be dropped) only once
/// ``isVerified``: another device imported it, found its own digest equal to the one the
/// snapshot carries, and reported the same keyed digest tag under the same vector.
///
/// ```swift
/// let list = try JSONDecoder().decode(HubFileList.self, from: body)
/// if let snapshot = list.snapshot, snapshot.isVerified { print("start from \(snapshot.fileID)") }
/// ```
public struct HubSnapshotInfo: Sendable, Hashable, Codable {
    /// Its place among the space's snapshots (1, 2, …, in the order the hub accepted them).
    public var number: Int64
    public var fileID: UUID
    /// The sync site of the device that uploaded it.
    public var source: UUID
    public var length: Int64
    /// What it holds: its writer's version vector (site UUID to sequence).
    public var vector: [String: UInt64]
    /// The id of the key that sealed it.
    public var keyID: UInt32
    /// Whether another device verified it.
    public var isVerified: Bool

    public init(
        number: Int64, fileID: UUID, source: UUID, length: Int64, vector: [String: UInt64], keyID: UInt32,
        isVerified: Bool
    ) {
        self.number = number
        self.fileID = fileID
        self.source = source
        self.length = length
        self.vector = vector
        self.keyID = keyID
        self.isVerified = isVerified
    }
}

/// What a device reports after importing a snapshot and comparing digests
/// (`PUT /v1/spaces/{space}/snapshots/{file}/verification`): its vector and the keyed tag of
/// its own digest, which the hub compares with the uploader's without learning either digest.
///
/// ```swift
/// let tag = String(repeating: "0", count: 64)   // the tag of the device's digest, in hex
/// let body = try JSONEncoder().encode(
///     SnapshotVerification(vector: ["6F9619FF-8B86-D011-B42D-00C04FC964FF": 12], tag: tag))
/// ```
public struct SnapshotVerification: Sendable, Hashable, Codable {
    /// The device's version vector after the import: the snapshot's, for the report to count.
    public var vector: [String: UInt64]
    /// The tag of the device's digest, as 64 hexadecimal digits.
    public var tag: String

    public init(vector: [String: UInt64], tag: String) {
        self.vector = vector
        self.tag = tag
    }
}

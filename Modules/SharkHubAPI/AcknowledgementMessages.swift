import Foundation

/// What a device has applied, as it tells the hub at the end of each sync
/// (`PUT /v1/spaces/{space}/acknowledged`): its version vector.
///
/// ```swift
/// let body = try JSONEncoder().encode(AcknowledgedVector(vector: ["6F9619FF-8B86-D011-B42D-00C04FC964FF": 12]))
/// ```
public struct AcknowledgedVector: Sendable, Hashable, Codable {
    /// Site UUID to the highest sequence number the device applied.
    public var vector: [String: UInt64]

    public init(vector: [String: UInt64]) { self.vector = vector }
}

/// What the devices of a space have acknowledged, as the hub answers
/// `GET` and `PUT /v1/spaces/{space}/acknowledged`.
///
/// ``space`` is the vector every active device has applied: a removal it covers has reached
/// every one of them, so a device may forget its tombstone (`forgetTombstones(seenBy:)`). A
/// device silent for longer than ``staleAfterSeconds`` is stale and no longer holds it back;
/// until it catches up, the hub refuses its listings, downloads and uploads.
///
/// ```swift
/// let state = try JSONDecoder().decode(SpaceAcknowledgement.self, from: body)
/// print("\(state.activeDevices) devices have all applied \(state.space)")
/// ```
public struct SpaceAcknowledgement: Sendable, Hashable, Codable {
    /// What the hub keeps of this device's acknowledgement: its vector, within what the
    /// space's files hold.
    public var device: [String: UInt64]
    /// What every active device has acknowledged: the least of their vectors, site by site.
    /// A device that never acknowledged counts as having applied nothing.
    public var space: [String: UInt64]
    /// Devices counted in ``space``: not revoked, and heard from (or, never synced, added)
    /// within ``staleAfterSeconds``.
    public var activeDevices: Int
    /// Devices that synced, then went silent past ``staleAfterSeconds``: left out of
    /// ``space``, and refused until they catch up.
    public var staleDevices: Int
    /// How long a device may go without acknowledging before it is stale.
    public var staleAfterSeconds: Int64

    public init(
        device: [String: UInt64], space: [String: UInt64], activeDevices: Int, staleDevices: Int,
        staleAfterSeconds: Int64
    ) {
        self.device = device
        self.space = space
        self.activeDevices = activeDevices
        self.staleDevices = staleDevices
        self.staleAfterSeconds = staleAfterSeconds
    }
}

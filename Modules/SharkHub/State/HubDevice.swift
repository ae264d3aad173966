import Foundation
import SharkORM

/// A device allowed into one space, by its own token. Only the token's SHA-256 is stored.
@Model(entity: "hub_devices")
final class HubDevice {
    /// The device's id, the first part of its token.
    var id: UUID
    /// The space its token reaches, and no other.
    var space: String = ""
    /// A name for people (`shark hub devices` lists it).
    var name: String = ""
    /// The sync site the device uploads as: set when the device is added, or by its first
    /// accepted upload; an upload from another source is refused.
    var site: UUID?
    /// SHA-256 of the token's secret.
    var secretDigest: Data = Data()
    /// When the token was revoked: every hub process refuses it from the next request on.
    var revokedAt: Date?
    var createdAt: Date = Date(timeIntervalSince1970: 0)
    /// What the device last said it applied (a version vector as ``VectorText``, within what
    /// the space's files held then): the space's acknowledged vector is the least of its
    /// active devices'.
    var acknowledged: String = "{}"
    /// When it last acknowledged: a device silent past ``HubLimits/staleDeviceAge`` is stale.
    /// One that never did stops counting in the space's vector that long after its creation.
    var acknowledgedAt: Date?

    static let indexes: [Index<HubDevice>] = [.on(\.space)]

    init(id: UUID, space: String, name: String, site: UUID?, secretDigest: Data, createdAt: Date) {
        self.id = id
        self.space = space
        self.name = name
        self.site = site
        self.secretDigest = secretDigest
        self.createdAt = createdAt
    }

    /// When the device last showed it was alive: its last acknowledgement, or its creation.
    var lastActive: Date { acknowledgedAt ?? createdAt }
}

import Foundation
import SharkHubAPI
import SharkORM
import SharkSync

/// A device as the hub's administration lists it: never its token.
public struct HubDeviceInfo: Sendable, Hashable {
    public var id: UUID
    public var space: String
    public var name: String
    /// The sync site it uploads as, once known.
    public var site: UUID?
    public var isRevoked: Bool
    /// When it last acknowledged what it applied (the end of each sync), if ever.
    public var lastSync: Date?
    /// Synced, then silent past ``HubLimits/staleDeviceAge``: it no longer holds back the
    /// space's acknowledged vector, and must catch up before it syncs again.
    public var isStale: Bool
    /// Whether it counts in the space's acknowledged vector: not revoked, and heard from (or,
    /// never synced, added) within ``HubLimits/staleDeviceAge``.
    public var isCounted: Bool
}

extension Hub {
    /// Creates the space `name` for the app database whose sync lineage is `lineage`.
    ///
    /// ```swift
    /// try await hub.createSpace("notes", lineage: "notes-app", quotaBytes: 1 << 30)
    /// ```
    public func createSpace(_ name: String, lineage: String, quotaBytes: Int64? = nil) async throws {
        guard Self.isValidName(name) else {
            throw HubError(.badRequest, "a space's name is 1 to 64 letters, digits, '-' or '_': \(name)")
        }
        guard !lineage.isEmpty else { throw HubError(.badRequest, "a space needs its sync lineage") }
        let space = HubSpace(
            id: name, lineage: lineage, quotaBytes: quotaBytes ?? limits.defaultQuotaBytes, createdAt: clock())
        try await store.write { tx in
            guard try tx.find(HubSpace.self, id: name) == nil else {
                throw HubError(.badRequest, "space \(name) exists")
            }
            try tx.commit(space)
        }
    }

    /// Adds a device to `space` and returns its token: show it once, the hub keeps only its
    /// SHA-256. `site`: the sync site the device uploads as, when known; otherwise its first
    /// accepted upload binds it.
    ///
    /// ```swift
    /// let token = try await hub.addDevice(to: "notes", name: "laptop")
    /// ```
    public func addDevice(to space: String, name: String, site: UUID? = nil) async throws -> DeviceToken {
        let token = DeviceToken(device: UUID())
        let device = HubDevice(
            id: token.device, space: space, name: name, site: site, secretDigest: token.secretDigest,
            createdAt: clock())
        try await store.write { tx in
            guard try tx.find(HubSpace.self, id: space) != nil else {
                throw HubError(.notFound, "no space \(space)")
            }
            if let site, try HubDevice.query(in: tx.store).where(\.space == space && \.site == site).count() > 0 {
                throw HubError(.badRequest, "site \(site) belongs to another device of space \(space)")
            }
            try tx.commit(device)
        }
        return token
    }

    /// Revokes a device's token: every hub process on this database refuses it from its next
    /// request on.
    ///
    /// ```swift
    /// try await hub.revokeDevice(token.device)
    /// ```
    public func revokeDevice(_ id: UUID) async throws {
        let now = clock()
        try await store.write { tx in
            guard let device = try tx.find(HubDevice.self, id: id) else {
                throw HubError(.notFound, "no device \(id)")
            }
            guard device.revokedAt == nil else { return }
            device.revokedAt = now
            try tx.commit(device)
        }
    }

    /// The devices of `space`, in the order they were added.
    ///
    /// ```swift
    /// for device in try await hub.devices(in: "notes") { print(device.name, device.isRevoked) }
    /// ```
    public func devices(in space: String) async throws -> [HubDeviceInfo] {
        let now = clock()
        return try await HubDevice.query(in: store).where(\.space == space).orderBy(\.createdAt).fetch().map {
            HubDeviceInfo(
                id: $0.id, space: $0.space, name: $0.name, site: $0.site, isRevoked: $0.revokedAt != nil,
                lastSync: $0.acknowledgedAt, isStale: isStale($0, at: now), isCounted: holdsBack($0, at: now))
        }
    }

    static func isValidName(_ name: String) -> Bool {
        (1...64).contains(name.count)
            && name.unicodeScalars.allSatisfy {
                $0.isASCII && (CharacterSet.alphanumerics.contains($0) || $0 == "-" || $0 == "_")
            }
    }
}

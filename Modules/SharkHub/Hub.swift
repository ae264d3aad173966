import Foundation
import SharkHubAPI
import SharkORM
import SharkSync

/// The sync hub's state and operations: spaces, their devices and tokens, and the sealed
/// files devices push and pull. Everything lives in the hub's own store (SQLite for one small
/// hub, PostgreSQL for several hub processes on one database), so a hub process holds nothing
/// between requests: ``HubServer`` serves it over HTTP.
///
/// ```swift
/// let hub = try await Hub(store: Store(.memory))
/// try await hub.createSpace("notes", lineage: "notes-app")
/// let token = try await hub.addDevice(to: "notes", name: "Ada's phone")
/// print(token.bearerValue)   // shk1.<device id>.<secret>: shown once, only a SHA-256 is kept
/// ```
public final class Hub: Sendable {
    /// The largest chunk of a file a request may carry, and the largest piece stored: 1 MiB.
    public static let chunkLimit = 1 << 20

    /// The hub's database.
    public let store: Store
    /// What one device or space may take.
    public let limits: HubLimits
    let clock: @Sendable () -> Date

    var maximumFileBytes: Int64 { limits.maximumFileBytes }
    var minimumChunkBytes: Int { limits.minimumChunkBytes }
    var maximumPendingUploads: Int { limits.maximumPendingUploads }

    /// A hub over `store`, its tables created on first use.
    public init(store: Store, limits: HubLimits = HubLimits(), clock: @escaping @Sendable () -> Date = { Date() })
        async throws
    {
        guard limits.staleDeviceAge > 0 else {
            throw HubError(.badRequest, "HubLimits.staleDeviceAge is a positive number of seconds")
        }
        self.store = store
        self.limits = limits
        self.clock = clock
        try await store.write { _ in
            _ = try store.prepare(HubSpace.self)
            _ = try store.prepare(HubDevice.self)
            _ = try store.prepare(HubFile.self)
            _ = try store.prepare(HubChunk.self)
        }
    }
}

/// A request's device, once its token is checked.
struct AuthenticatedDevice: Sendable {
    let id: UUID
    let space: String
    /// Silent past ``HubLimits/staleDeviceAge`` when the request came.
    var isStale = false

    /// Refuses a stale device: it may acknowledge (and so catch up), nothing else.
    func requireActive() throws {
        guard !isStale else {
            throw HubError(
                .stale,
                "this device has not synced for longer than the hub keeps a device waited for, and the space went "
                    + "on without it: catch up from a full export of another device, then sync again")
        }
    }
}

extension Hub {
    /// The device `authorization` (an `Authorization` header's value, `Bearer <token>`)
    /// names, if its token is valid, not revoked, and reaches `space`. Read from the database
    /// on every request, so a revocation made by any hub process holds at once.
    func authenticate(_ authorization: String?, space: String) async throws -> AuthenticatedDevice {
        // The scheme's name is case-insensitive (RFC 9110).
        guard let authorization, authorization.count > 7, authorization.prefix(7).lowercased() == "bearer ",
            let token = DeviceToken(parsing: authorization.dropFirst(7))
        else { throw HubError(.unauthorized, "a device token is required (Authorization: Bearer shk1.…)") }
        guard let device = try await store.find(HubDevice.self, id: token.device), token.matches(device.secretDigest)
        else { throw HubError(.unauthorized, "the token is not valid") }
        guard device.revokedAt == nil else { throw HubError(.forbidden, "the token was revoked") }
        guard device.space == space else { throw HubError(.forbidden, "the token does not reach space \(space)") }
        return AuthenticatedDevice(id: device.id, space: device.space, isStale: isStale(device, at: clock()))
    }
}

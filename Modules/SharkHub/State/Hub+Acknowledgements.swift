import Foundation
import SharkHubAPI
import SharkORM
import SharkSync

// What the devices of a space have applied. Each sync ends with the device acknowledging its
// version vector; the space's acknowledged vector is the least of its active devices'. A
// removal it covers has reached every active device, so each may forget its tombstone; the
// same vector will tell the hub which files every device holds (retention). A device silent
// past the stale age stops holding it back: the others go on, and it must catch up.

extension Hub {
    /// Whether `device` synced once, then went silent past ``HubLimits/staleDeviceAge``: the
    /// hub refuses it until it catches up.
    func isStale(_ device: HubDevice, at now: Date) -> Bool {
        guard let acknowledgedAt = device.acknowledgedAt else { return false }
        return acknowledgedAt < now.addingTimeInterval(-limits.staleDeviceAge)
    }

    /// Whether `device` counts in the space's acknowledged vector: not revoked, and heard from
    /// (or, never synced, added) within ``HubLimits/staleDeviceAge``. A device added long
    /// ago that never synced no longer holds the others back; it is not stale either, since
    /// it holds nothing of theirs: it joins like a new device when it comes.
    func holdsBack(_ device: HubDevice, at now: Date) -> Bool {
        // Written as "not older", so that an age that is not a number holds everyone back.
        device.revokedAt == nil && !(device.lastActive < now.addingTimeInterval(-limits.staleDeviceAge))
    }

    /// Records that `device` applied `vector` (kept within what the space's files hold) and
    /// answers what the space's active devices have all applied.
    ///
    /// A stale device becomes active again only with a vector that covers the space's mark
    /// (every acknowledged vector the hub ever answered, joined): then every removal another
    /// device may have forgotten is one it has seen. Otherwise the answer is
    /// ``HubError/Reason/stale`` and nothing changes. Every acknowledgement writes the
    /// space's row (``HubSpace/acknowledgements``), so two at once on several hub processes
    /// conflict, and one runs again on what the other committed.
    func acknowledge(_ vector: VersionVector, from device: AuthenticatedDevice) async throws -> SpaceAcknowledgement {
        let (store, now) = (self.store, clock())
        return try await store.write { tx in
            let (space, owner) = try Self.spaceAndDevice(of: device, in: tx)
            let mark = VectorText.vector(space.acknowledgedMark) ?? VersionVector()
            let held = VectorText.vector(space.held) ?? VersionVector()
            let applied = VersionVector.meet([vector, held])
            if self.isStale(owner, at: now) && !applied.covers(mark) {
                throw HubError(
                    .stale,
                    "this device has not synced for longer than the hub waits for a device, and its vector does not "
                        + "cover what the other devices applied: catch up from a full export of a device that "
                        + "synced, then sync again")
            }
            owner.acknowledged = VectorText.text(applied)
            owner.acknowledgedAt = now
            try tx.commit(owner)
            space.acknowledgements += 1
            try tx.commit(space)
            let devices = try self.devices(of: space.id, in: store).map { $0.id == owner.id ? owner : $0 }
            return try self.acknowledgement(of: owner, among: devices, in: space, at: now, tx)
        }
    }

    /// What `device` last acknowledged, and what the space's active devices have all applied.
    func acknowledgements(for device: AuthenticatedDevice) async throws -> SpaceAcknowledgement {
        let (store, now) = (self.store, clock())
        return try await store.write { tx in
            let (space, owner) = try Self.spaceAndDevice(of: device, in: tx)
            return try self.acknowledgement(
                of: owner, among: try self.devices(of: space.id, in: store), in: space, at: now, tx)
        }
    }

    /// The vector every active device of `space` has applied: the least of their
    /// acknowledgements, site by site (empty when no device is active).
    ///
    /// ```swift
    /// let everyone = try await hub.acknowledgedVector(of: "notes")
    /// ```
    public func acknowledgedVector(of space: String) async throws -> VersionVector {
        let (store, now) = (self.store, clock())
        return try await store.write { tx in
            guard let owner = try tx.find(HubSpace.self, id: space) else {
                throw HubError(.notFound, "no space \(space)")
            }
            return try self.publish(try self.devices(of: space, in: store), in: owner, at: now, tx)
        }
    }

    /// The rows of `device` and its space, in the transaction.
    private static func spaceAndDevice(of device: AuthenticatedDevice, in tx: WriteTransaction) throws
        -> (HubSpace, HubDevice)
    {
        guard let space = try tx.find(HubSpace.self, id: device.space) else {
            throw HubError(.notFound, "no space \(device.space)")
        }
        guard let owner = try tx.find(HubDevice.self, id: device.id) else {
            throw HubError(.unauthorized, "the device was removed")
        }
        return (space, owner)
    }

    private func devices(of space: String, in store: Store) throws -> [HubDevice] {
        try HubDevice.query(in: store).where(\.space == space).fetch()
    }

    private func acknowledgement(
        of owner: HubDevice, among devices: [HubDevice], in space: HubSpace, at now: Date, _ tx: WriteTransaction
    ) throws -> SpaceAcknowledgement {
        SpaceAcknowledgement(
            device: VectorText.entries(owner.acknowledged),
            space: VectorText.entries(try publish(devices, in: space, at: now, tx)),
            activeDevices: devices.filter { holdsBack($0, at: now) }.count,
            staleDevices: devices.filter { $0.revokedAt == nil && isStale($0, at: now) }.count,
            staleAfterSeconds: Int64(min(max(0, limits.staleDeviceAge), Double(Int64.max / 2))))
    }

    /// What every device that counts has applied, as the hub tells it: raised into the
    /// space's mark first, since a device told may forget removals up to it.
    private func publish(_ devices: [HubDevice], in space: HubSpace, at now: Date, _ tx: WriteTransaction) throws
        -> VersionVector
    {
        let everyone = everyoneApplied(devices, at: now)
        var mark = VectorText.vector(space.acknowledgedMark) ?? VersionVector()
        if !mark.covers(everyone) {
            mark.formJoin(everyone)
            space.acknowledgedMark = VectorText.text(mark)
            try tx.commit(space)
        }
        return everyone
    }

    /// What every device of `devices` that counts has applied: the least of their
    /// acknowledgements, site by site.
    func everyoneApplied(_ devices: [HubDevice], at now: Date) -> VersionVector {
        VersionVector.meet(devices.filter { holdsBack($0, at: now) }.map(Self.acknowledged))
    }

    private static func acknowledged(_ device: HubDevice) -> VersionVector {
        VectorText.vector(device.acknowledged) ?? VersionVector()
    }
}

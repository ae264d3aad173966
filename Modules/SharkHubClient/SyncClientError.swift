import Foundation

/// Why ``SyncClient/sync(progress:)`` stopped. The hub's refusals keep its reason's name in
/// ``hubReason`` (`HubErrorBody`); a failure to reach the hub is ``Reason/unavailable`` once the
/// ``RetryPolicy`` gave up. Errors of the device's own store and of its change logs (a wrong
/// space key, a file of another lineage) are `SyncError`s, thrown as they are.
///
/// ```swift
/// do {
///     _ = try await client.sync()
/// } catch let error as SyncClientError where error.reason == .unavailable {
///     print("offline; the next sync goes on from here")
/// }
/// ```
public struct SyncClientError: Error, Sendable, CustomStringConvertible {
    public enum Reason: String, Sendable, CaseIterable {
        /// The hub does not know the token (401): a typing error, or a device removed.
        case unauthorized
        /// The token was revoked, or reaches another space (403).
        case forbidden
        /// The hub has no such space (404).
        case notFound
        /// The hub refused the device's file for good (422): not sealed, another lineage, or
        /// written by a site that is not this device's. The file is dropped.
        case rejectedFile
        /// The space's storage quota is full, or the file is larger than the hub takes (413).
        case quotaExceeded
        /// Another refusal of the hub (a 4xx): ``hubReason`` names it.
        case refused
        /// The hub could not be reached, or kept failing (transport errors, 5xx, 429), after
        /// every attempt of the retry policy. Nothing is lost: the next sync goes on.
        case unavailable
        /// The hub answered something this client does not understand.
        case badResponse
        /// Another sync uses the same state folder (in this process or another).
        case busy
        /// Plaintext `http://` to a host other than this machine, which the client refuses
        /// unless ``SyncClient/Options/allowsPlaintextHTTP`` is set.
        case insecureAddress
        /// The state folder could not be read or written.
        case stateFolder
        /// The device went without syncing for longer than the hub waits (410): the other
        /// devices went on and may have forgotten removals it has not seen. Catch it up from a
        /// full export of another device (`importChanges(from:)`), then sync again: its first
        /// acknowledgement makes it active once its vector covers the others'.
        case stale
        /// The space's files are sealed with a newer key than this device's (409): the space
        /// rotated its key. Give the device the new key (`ChangeLogKey.retiring(_:)`
        /// keeps the old one for older files); its pending file is then exported again.
        case retiredKey
        /// The snapshot this device imported did not reproduce its uploader's content: the
        /// digests differ under the same vector (a bug, or damage). The hub was told, and no
        /// longer offers it; the device's store holds what it imported. Report it.
        case snapshotMismatch
    }

    public let reason: Reason
    public let message: String
    /// The hub's reason (`HubErrorBody.error`), when the hub refused.
    public let hubReason: String?
    /// The HTTP status of the hub's answer, when there was one.
    public let status: Int?

    init(_ reason: Reason, _ message: String, hubReason: String? = nil, status: Int? = nil) {
        self.reason = reason
        self.message = message
        self.hubReason = hubReason
        self.status = status
    }

    public var description: String { "\(reason.rawValue): \(message)" }
}

import Foundation
import SharkHubAPI
import SharkSync

/// Why the hub refused a request: each reason is an HTTP status, and the response's JSON
/// body says it (`{"error": "notCovered", "message": "…", …}`). Nothing a refused request
/// sent is kept.
public struct HubError: Error, Sendable, CustomStringConvertible {
    public enum Reason: String, Sendable, CaseIterable {
        /// No token, a malformed one, an unknown device or a wrong secret (401).
        case unauthorized
        /// A revoked token, or one that belongs to another space (403).
        case forbidden
        /// No such space or file (404).
        case notFound
        /// A malformed request: a missing or invalid parameter (400).
        case badRequest
        /// A chunk that does not start where the upload stands (409; ``HubError/received``
        /// says where to go on from).
        case uploadOffset
        /// A file whose `since` the hub's files do not cover (something in between is
        /// missing), or whose vector is below what every device of the space has applied
        /// (devices that forgot removals there could not import it): 409; export again since
        /// ``HubError/held``.
        case notCovered
        /// A file that is not a sealed change log of the space, whose envelope is damaged, or
        /// whose source is not the token's device (422).
        case rejectedFile
        /// More than a chunk, or a file above the hub's largest (413).
        case tooLarge
        /// The space's storage quota would be exceeded (413).
        case quotaExceeded
        /// A file another device of the space is uploading (409).
        case fileTaken
        /// A device with as many unfinished uploads as the hub allows (429).
        case tooManyUploads
        /// A device or an address over its requests per minute (429, with `Retry-After`).
        case rateLimited
        /// An accepted file, which a device may not remove (409).
        case alreadyAccepted
        /// The hub cannot serve now: its database does not answer (503, from `/v1/ready`).
        case unavailable
        /// A device silent past ``HubLimits/staleDeviceAge``: the others went on without it
        /// and may have forgotten removals it has not seen (410). It catches up from a full
        /// export of another device, then acknowledges a vector that covers theirs.
        case stale
        /// A file sealed with an older key than a file the space already accepted (409): the
        /// space rotated its key, and the device must be given the new one
        /// (`ChangeLogKey.retiring(_:)`) and export again.
        case retiredKey
        /// A snapshot's verification that does not match: another vector than the
        /// snapshot's, or another digest (409). A device whose import of a snapshot gave
        /// another digest under the same vector makes the hub drop the snapshot.
        case digestMismatch
    }

    public let reason: Reason
    public let message: String
    /// For ``Reason/uploadOffset``: the bytes the hub holds of the file.
    public var received: Int64?
    /// For ``Reason/notCovered``: what the space's files hold.
    public var held: VersionVector?
    /// For ``Reason/rateLimited``: the seconds until a request is let through again.
    public var retryAfter: Int?

    init(_ reason: Reason, _ message: String, received: Int64? = nil, held: VersionVector? = nil) {
        self.reason = reason
        self.message = message
        self.received = received
        self.held = held
    }

    /// The HTTP status the hub answers with.
    public var statusCode: Int {
        switch reason {
        case .unauthorized: return 401
        case .forbidden: return 403
        case .notFound: return 404
        case .badRequest: return 400
        case .uploadOffset, .notCovered, .fileTaken, .alreadyAccepted, .retiredKey, .digestMismatch: return 409
        case .rejectedFile: return 422
        case .tooLarge, .quotaExceeded: return 413
        case .tooManyUploads, .rateLimited: return 429
        case .unavailable: return 503
        case .stale: return 410
        }
    }

    public var description: String { "\(reason.rawValue): \(message)" }
}

extension HubErrorBody {
    init(_ error: HubError) {
        self.init(
            error: error.reason.rawValue, message: error.message, received: error.received,
            held: error.held.map(VectorText.entries))
    }
}

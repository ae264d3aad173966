import AsyncHTTPClient
import Foundation
import NIOCore
import SharkORM
import SharkSync

/// A device's side of a sync hub (`shark serve`, docs/hub.md): ``sync(progress:)`` pulls
/// the files other devices pushed and imports them, then pushes what the hub lacks of this
/// device's changes as one file sealed with the space's key. The hub never sees the key.
///
/// The client keeps what it needs between syncs in a state folder (``Options/stateFolder``):
/// how far it pulled, and the exact bytes of a file it is pushing, so that an upload cut off
/// resumes where the hub stands. Transient failures are tried again (``RetryPolicy``); a sync
/// that ends early loses nothing, and the next one goes on.
///
/// ```swift
/// let engine = try SyncEngine(store: store, lineage: "notes-app", models: [Note.self])
/// let client = SyncClient(
///     engine: engine, hub: URL(string: "https://hub.example.com")!, space: "notes",
///     token: token, key: key)
/// let report = try await client.sync()
/// print("pulled \(report.filesPulled), pushed \(report.filesPushed.count)")
/// ```
public struct SyncClient: Sendable {
    /// How a client talks to its hub and where it keeps its state.
    public struct Options: Sendable {
        /// Where the client keeps its state between syncs. Nil: a folder in the user's cache
        /// folder named for the device's site and the space. Give one that lasts (an app's
        /// support folder) so that a cleaned cache does not list the hub from the start again.
        public var stateFolder: URL?
        public var retry = RetryPolicy()
        /// The bytes of each uploaded chunk: the hub's largest (1 MiB) unless set lower, and
        /// never below the hub's smallest (64 KiB): values outside are brought within.
        public var chunkBytes = 1 << 20
        /// How long the client waits for the head of each answer.
        public var requestTimeout: Duration = .seconds(60)
        /// How long a connection may stay silent while a body streams.
        public var readTimeout: Duration = .seconds(60)
        /// Plaintext `http://` to a host other than this machine sends the token and the
        /// files' metadata in clear: refused unless set (a test network, say).
        public var allowsPlaintextHTTP = false
        /// After each sync, forget the tombstones of removals every active device of the
        /// space has applied (the hub's acknowledged vector; `forgetTombstones(seenBy:)`).
        /// Off by default: it reads every tombstone of the store, and replicas that sync
        /// outside the hub do not count (they catch up from a full export, as any replica
        /// left out does).
        public var forgetsTombstones = false
        /// Upload a snapshot (a sealed full export, from which devices joining late start)
        /// once the files the hub accepted since the last one pass this many bytes; 0 never.
        /// Default: 64 MiB. Whichever device syncs first past it uploads one.
        public var snapshotAfterBytes: Int64 = 64 << 20
        /// Verify the space's newest snapshot when this device can: it started from it, or
        /// its vector is the snapshot's. The device downloads and imports it, compares
        /// digests, and tells the hub, which drops old files only once a snapshot is
        /// verified. On by default.
        public var verifiesSnapshots = true

        public init(stateFolder: URL? = nil) { self.stateFolder = stateFolder }
    }

    /// The device's sync engine: its store, lineage and site.
    public let engine: SyncEngine
    /// The hub's address, such as `https://hub.example.com` (the API is under `/v1`).
    public let hub: URL
    /// The space on the hub: one app database, of the engine's lineage.
    public let space: String
    public let options: Options
    let token: DeviceToken
    let key: ChangeLogKey

    /// A client of `engine` to `space` on `hub`, with the device's token (shown by
    /// `shark hub add-device`) and the space's key, which seals every file the device
    /// pushes and opens every file it pulls. No request is made until ``sync(progress:)``.
    public init(
        engine: SyncEngine, hub: URL, space: String, token: DeviceToken, key: ChangeLogKey, options: Options = Options()
    ) {
        self.engine = engine
        self.hub = hub
        self.space = space
        self.token = token
        self.key = key
        self.options = options
    }

    /// The folder this client keeps its state in: ``Options/stateFolder``, or one in the
    /// user's cache folder (`~/.cache` on Linux), made readable by the user alone.
    public var stateFolder: URL {
        if let folder = options.stateFolder { return folder }
        let caches =
            FileManager.default.urls(for: .cachesDirectory, in: .userDomainMask).first
            ?? FileManager.default.temporaryDirectory
        return caches.appendingPathComponent("shark-sync", isDirectory: true)
            .appendingPathComponent("\(engine.site.uuidString.lowercased())-\(space)", isDirectory: true)
    }

    /// Pulls every file the device has not applied, pushes what the hub has not accepted of
    /// its changes, then tells the hub what it applied (``SyncReport/acknowledged`` is what
    /// every active device has). `progress` hears each step as it happens (on no particular
    /// thread). Throws ``SyncClientError`` when the hub refuses or cannot be reached, a
    /// `SyncError` when a file cannot be imported (a wrong key); what was done by then stays
    /// done. Only one sync of a state folder runs at a time (``SyncClientError/Reason/busy``).
    ///
    /// ```swift
    /// let report = try await client.sync { step in print(step) }
    /// ```
    @discardableResult
    public func sync(progress: @escaping @Sendable (SyncProgress) -> Void = { _ in }) async throws -> SyncReport {
        let spaceURL = try spaceAddress()
        let folder = stateFolder
        let lock = try await FolderLock.acquire(folder)
        defer { lock.release() }
        var configuration = HTTPClient.Configuration(
            timeout: .init(connect: .seconds(10), read: TimeAmount(options.readTimeout)))
        // A redirect would carry the token elsewhere.
        configuration.redirectConfiguration = .disallow
        let http = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
        let connection = HubConnection(
            http: http, spaceURL: spaceURL, authorization: "Bearer \(token.bearerValue)", retry: options.retry,
            requestTimeout: TimeAmount(options.requestTimeout), progress: progress, retries: RetryCounter())
        let outcome: Result<SyncReport, Error>
        do {
            var state = try await ClientState.load(from: folder, space: space, site: engine.site)
            if let failed = state.failedSnapshot {
                throw SyncClientError(
                    .snapshotMismatch,
                    "this device started from snapshot \(failed), whose content did not match its uploader's: delete "
                        + "its database and state folder, then sync again")
            }
            var report = SyncReport()
            let listed: HubFileList
            do {
                listed = try await pull(through: connection, state: &state, report: &report)
            } catch let error as SyncClientError where error.reason == .stale {
                // A device the hub counts as stale may have caught up another way (a full
                // export imported): its acknowledgement says so, or the hub refuses it again.
                try await acknowledge(through: connection, report: &report)
                listed = try await pull(through: connection, state: &state, report: &report)
            }
            do {
                let held = try await push(
                    through: connection, held: try Self.vector(listed.held), state: &state, report: &report)
                try await uploadSnapshotIfDue(listed, held: held, through: connection, state: &state, report: &report)
            } catch {
                // What it pulled is applied all the same: a device whose pushes keep failing
                // (a full quota) still tells the hub, and does not go stale.
                try? await acknowledge(through: connection, report: &report)
                throw error
            }
            try await acknowledge(through: connection, report: &report)
            report.retries = connection.retries.value
            outcome = .success(report)
        } catch {
            outcome = .failure(error)
        }
        try? await http.shutdown()
        return try outcome.get()
    }

    /// Tells the hub what the device applied, and notes what every active device did;
    /// forgets the tombstones that covers when asked to.
    func acknowledge(through connection: HubConnection, report: inout SyncReport) async throws {
        let vector = try await engine.versionVector()
        let answer = try await connection.acknowledge(Self.entries(vector))
        let everyone = try Self.vector(answer.space)
        report.acknowledged = everyone
        if options.forgetsTombstones {
            let engine = self.engine
            report.tombstonesForgotten = try await BlockingIO.run { try engine.forgetTombstones(seenBy: [everyone]) }
        }
    }

    /// `<hub>/v1/spaces/<space>`, checked.
    func spaceAddress() throws -> String {
        guard let scheme = hub.scheme?.lowercased(), scheme == "https" || scheme == "http", let host = hub.host,
            !host.isEmpty
        else { throw SyncClientError(.insecureAddress, "the hub's address is https://host[:port], not \(hub)") }
        guard scheme == "https" || LoopbackHost.contains(host) || options.allowsPlaintextHTTP else {
            throw SyncClientError(
                .insecureAddress, "plaintext http to \(host) would send the token in clear: use https")
        }
        guard (1...64).contains(space.count),
            space.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") })
        else { throw SyncClientError(.notFound, "a space's name is 1 to 64 letters, digits, '-' or '_', not \(space)") }
        var base = hub.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        return "\(base)/v1/spaces/\(space)"
    }
}

extension TimeAmount {
    /// The duration in NIO's nanoseconds, saturating: a timeout of `.seconds(.max)` means
    /// "never" rather than an overflow, and a negative one means "at once".
    init(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        if overflow {
            self = .nanoseconds(seconds < 0 ? 0 : .max)
        } else {
            let (total, carried) = whole.addingReportingOverflow(attoseconds / 1_000_000_000)
            self = .nanoseconds(carried ? (seconds < 0 ? 0 : .max) : max(0, total))
        }
    }
}

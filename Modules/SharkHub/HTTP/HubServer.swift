import CoreMetrics
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOFoundationCompat
import ServiceLifecycle
import SharkHubAPI
import SharkORM
import SharkSync

/// The hub's HTTP API (`docs/hub.md`), over a ``Hub``. Every route but `/v1/health` and
/// `/v1/ready` needs a device token (`Authorization: Bearer shk1.…`) that reaches the space in
/// its path.
///
/// ```swift
/// let router = HubServer(hub: hub).router()   // Hummingbird's `Application(router:)` serves it
/// ```
public struct HubServer: Sendable {
    public let hub: Hub
    /// Requests per minute of each device and each address (``HubLimits``), counted in this
    /// process.
    let deviceLimiter: RateLimiter
    let addressLimiter: RateLimiter
    let metrics: HubMetrics

    /// A server for `hub`, counting requests, refusals and the bytes it moves into `metrics`
    /// (swift-metrics: the process's backend unless given; docs/hub.md lists the metrics).
    ///
    /// ```swift
    /// let server = HubServer(hub: hub)   // metrics go to MetricsSystem.bootstrap's backend
    /// ```
    public init(hub: Hub, metrics: any MetricsFactory = MetricsSystem.factory) {
        self.hub = hub
        deviceLimiter = RateLimiter(perMinute: hub.limits.requestsPerMinutePerDevice)
        addressLimiter = RateLimiter(perMinute: hub.limits.requestsPerMinutePerAddress)
        self.metrics = HubMetrics(factory: metrics)
    }

    /// The routes of the API.
    public func router() -> Router<HubRequestContext> {
        let router = Router(context: HubRequestContext.self)
        // Outermost first: every request is counted, refusals included.
        router.add(middleware: RequestMetrics(metrics: metrics))
        router.add(middleware: HubErrorMiddleware(metrics: metrics))
        router.add(middleware: AddressRateLimit(limiter: addressLimiter))
        let hub = self.hub
        let server = self
        router.get("v1/health") { _, _ in "ok" }
        router.get("v1/ready") { _, context -> String in
            do {
                try await hub.checkDatabase()
            } catch {
                // The detail for the operator's log; the caller, anyone, learns only the fact.
                context.logger.warning("not ready", metadata: ["error": "\(error)"])
                throw HubError(.unavailable, "the hub's database does not answer")
            }
            return "ready"
        }
        router.put("v1/spaces/:space/files/:file") { request, context -> Response in
            try await server.receiveChunk(request, context, snapshot: false)
        }
        router.delete("v1/spaces/:space/files/:file") { request, context -> Response in
            let space = try context.parameters.require("space")
            let device = try await server.authenticate(request, space)
            let fileID = try Self.fileID(context)
            try await hub.abandonUpload(fileID, from: device)
            context.logger.info(
                "upload abandoned", metadata: ["space": "\(space)", "device": "\(device.id)", "file": "\(fileID)"])
            return Response(status: .noContent)
        }
        router.get("v1/spaces/:space/files") { request, context -> Response in
            let space = try context.parameters.require("space")
            try await server.authenticate(request, space).requireActive()
            let query = request.uri.queryParameters
            let after = try Self.number(query.get("after"), named: "after") ?? 0
            let limit = try Self.number(query.get("limit"), named: "limit") ?? 100
            let list = try await hub.files(in: space, after: after, limit: Int(limit))
            return try Self.json(list, status: .ok)
        }
        router.get("v1/spaces/:space/files/:file") { request, context -> Response in
            let space = try context.parameters.require("space")
            try await server.authenticate(request, space).requireActive()
            let file = try await hub.acceptedFile(try Self.fileID(context), in: space)
            return server.stream(row: file.row, length: file.length)
        }
        router.get("v1/spaces/:space/acknowledged") { request, context -> Response in
            let space = try context.parameters.require("space")
            let device = try await server.authenticate(request, space)
            return try Self.json(try await hub.acknowledgements(for: device), status: .ok)
        }
        router.put("v1/spaces/:space/acknowledged") { request, context -> Response in
            let space = try context.parameters.require("space")
            let device = try await server.authenticate(request, space)
            let vector = try await Self.acknowledgedVector(request)
            let answer = try await hub.acknowledge(vector, from: device)
            if device.isStale {
                context.logger.info(
                    "stale device caught up", metadata: ["space": "\(space)", "device": "\(device.id)"])
            }
            return try Self.json(answer, status: .ok)
        }
        addSnapshotRoutes(to: router)
        return router
    }

    /// Stores a chunk of a file (or, `snapshot`, of a snapshot, whose query names its digest
    /// tag), and answers where the upload stands: 202 until the last chunk, then 200 once
    /// the hub accepted it.
    func receiveChunk(_ request: Request, _ context: HubRequestContext, snapshot: Bool) async throws -> Response {
        let space = try context.parameters.require("space")
        let device = try await authenticate(request, space)
        try device.requireActive()
        let fileID = try Self.fileID(context)
        let query = request.uri.queryParameters
        guard let offset = try Self.number(query.get("offset"), named: "offset"),
            let length = try Self.number(query.get("length"), named: "length")
        else { throw HubError(.badRequest, "a chunk names its offset and the file's length") }
        var tag: Data?
        if snapshot {
            guard let text = query.get("tag"), text.count == 64, let bytes = bytes(fromHexadecimal: text) else {
                throw HubError(.badRequest, "a snapshot's chunk names its digest tag: 64 hexadecimal digits")
            }
            tag = Data(bytes)
        }
        let chunk: ByteBuffer
        do {
            chunk = try await request.body.collect(upTo: Hub.chunkLimit)
        } catch is NIOTooManyBytesError {
            throw HubError(.tooLarge, "a chunk holds at most \(Hub.chunkLimit) bytes")
        }
        let received = try await hub.receive(
            chunk: Data(buffer: chunk), offset: offset, length: length, fileID: fileID, snapshotTag: tag, from: device)
        metrics.received(bytes: chunk.readableBytes)
        let state = received.state
        if received.acceptedFile, let sequence = state.sequence {
            if !snapshot { metrics.fileAccepted() }
            context.logger.info(
                snapshot ? "snapshot accepted" : "file accepted",
                metadata: [
                    "space": "\(space)", "device": "\(device.id)", "file": "\(fileID)", "sequence": "\(sequence)",
                    "bytes": "\(length)",
                ])
        }
        return try Self.json(state, status: state.sequence == nil ? .accepted : .ok)
    }

    /// The stored file `row`, `length` bytes, streamed chunk by chunk from the database: a
    /// file is never held whole.
    func stream(row: Int64, length: Int64) -> Response {
        let (hub, metrics) = (self.hub, self.metrics)
        let body = ResponseBody(contentLength: Int(length)) { writer in
            var offset: Int64 = 0
            while offset < length {
                // A missing piece ends the response early, short of its length, so the
                // client sees the transfer fail rather than a shorter file.
                guard let bytes = try await hub.chunk(of: row, at: offset) else {
                    throw HubError(.notFound, "file \(row) lacks its bytes from \(offset)")
                }
                try await writer.write(ByteBuffer(data: bytes))
                metrics.sent(bytes: bytes.count)
                offset += Int64(bytes.count)
            }
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: [.contentType: "application/octet-stream"], body: body)
    }

    /// The largest acknowledgement body: about 20,000 sites.
    static let acknowledgementLimit = 1 << 20

    /// The version vector an acknowledgement's body carries, checked.
    static func acknowledgedVector(_ request: Request) async throws -> VersionVector {
        let body: ByteBuffer
        do {
            body = try await request.body.collect(upTo: acknowledgementLimit)
        } catch is NIOTooManyBytesError {
            throw HubError(.tooLarge, "an acknowledgement holds at most \(acknowledgementLimit) bytes")
        }
        guard let message = try? JSONDecoder().decode(AcknowledgedVector.self, from: Data(buffer: body)) else {
            throw HubError(.badRequest, "an acknowledgement is {\"vector\": {site UUID: sequence, …}}")
        }
        guard let vector = VectorText.vector(entries: message.vector) else {
            throw HubError(.badRequest, "a vector's sites are UUIDs")
        }
        return vector
    }

    /// The request's device, once its token is checked, and counted against its rate limit.
    func authenticate(_ request: Request, _ space: String) async throws -> AuthenticatedDevice {
        let device = try await hub.authenticate(request.headers[.authorization], space: space)
        if let wait = deviceLimiter.spend(device.id.uuidString) {
            var error = HubError(.rateLimited, "this device made too many requests: try again in \(wait) s")
            error.retryAfter = wait
            throw error
        }
        return device
    }

    /// A query parameter's integer, nil when it is absent; text that is not one is refused
    /// rather than read as absent.
    static func number(_ text: String?, named name: String) throws -> Int64? {
        guard let text else { return nil }
        guard let number = Int64(text) else { throw HubError(.badRequest, "\(name) is an integer, not \(text)") }
        return number
    }

    static func fileID(_ context: HubRequestContext) throws -> UUID {
        guard let text = context.parameters.get("file"), let id = UUID(uuidString: text) else {
            throw HubError(.badRequest, "a file is named by its UUID")
        }
        return id
    }

    static func json(_ value: some Encodable, status: HTTPResponse.Status) throws -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return Response(
            status: status, headers: [.contentType: "application/json"],
            body: ResponseBody(byteBuffer: ByteBuffer(data: try encoder.encode(value))))
    }
}

/// A request's context: Hummingbird's, and the address the request came from (for the
/// per-address rate limit).
public struct HubRequestContext: RequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The connection's peer: the client, or a reverse proxy in front of the hub.
    public let remoteAddress: SocketAddress?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }
}

/// Counts each request but `/v1/health` against its address's limit, before anything else
/// runs: a flood of requests never reaches the database (`/v1/ready` reads it, so it counts).
struct AddressRateLimit: RouterMiddleware {
    typealias Context = HubRequestContext
    let limiter: RateLimiter

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        if request.uri.path != "/v1/health", let address = context.remoteAddress?.ipAddress,
            let wait = limiter.spend(address)
        {
            var error = HubError(.rateLimited, "too many requests from \(address): try again in \(wait) s")
            error.retryAfter = wait
            throw error
        }
        return try await next(request, context)
    }
}

/// Answers a ``HubError`` with its status and JSON body, counted and logged by reason;
/// anything else a handler throws is left to Hummingbird (a 500, or the status of its own
/// errors).
struct HubErrorMiddleware: RouterMiddleware {
    typealias Context = HubRequestContext
    let metrics: HubMetrics

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        do {
            return try await next(request, context)
        } catch let error as HubError {
            metrics.refused(error.reason)
            // A flood over the rate limit would flood the log too: those only when debugging.
            context.logger.log(
                level: error.reason == .rateLimited ? .debug : .info, "refused",
                metadata: [
                    "reason": "\(error.reason.rawValue)", "status": "\(error.statusCode)",
                    "path": "\(request.uri.path)",
                    "message": "\(error.message)",
                ])
            var response = try HubServer.json(HubErrorBody(error), status: HTTPResponse.Status(code: error.statusCode))
            if let wait = error.retryAfter { response.headers[.retryAfter] = "\(wait)" }
            return response
        }
    }
}

/// Counts every request by route, method and status, and times it until its handler
/// answers: a download's bytes, streamed after that, are counted by
/// `shark_hub_sent_bytes_total` instead. The response passes through untouched.
struct RequestMetrics: RouterMiddleware {
    typealias Context = HubRequestContext
    let metrics: HubMetrics

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        let started = DispatchTime.now().uptimeNanoseconds
        // The route's pattern, never the path itself: a label per space or file would grow
        // without bound.
        let route = context.endpointPath ?? "unmatched"
        do {
            let response = try await next(request, context)
            metrics.request(
                route: route, method: request.method, status: response.status,
                nanoseconds: DispatchTime.now().uptimeNanoseconds - started)
            return response
        } catch {
            metrics.request(
                route: route, method: request.method,
                status: (error as? any HTTPResponseError)?.status ?? .internalServerError,
                nanoseconds: DispatchTime.now().uptimeNanoseconds - started)
            throw error
        }
    }
}

/// Where and how a hub listens.
public struct HubListener: Sendable, Hashable {
    /// The address to bind: loopback unless the hub is meant to be reached from elsewhere.
    public var host: String = "127.0.0.1"
    /// The port; 0 takes any free one (``HubServer/serve(_:logger:alongside:onRunning:)`` reports it).
    public var port: Int = 8470
    /// How long a connection may stay idle before the hub closes it: at least 1 second, and
    /// above about 292 years (the most NIO's nanoseconds hold), that.
    public var idleTimeoutSeconds: Int64 = 60
    /// How many connections the hub serves at once; more wait to be accepted.
    public var maximumConnections: Int = 1000

    public init(host: String = "127.0.0.1", port: Int = 8470) {
        self.host = host
        self.port = port
    }

    /// Whether the address is this machine's alone, where plaintext HTTP exposes nothing.
    public var isLoopback: Bool { LoopbackHost.contains(host) }

    /// The idle timeout within what NIO counts in nanoseconds, so that no setting traps.
    var boundedIdleTimeoutSeconds: Int64 { min(max(1, idleTimeoutSeconds), Int64.max / 1_000_000_000) }
}

extension HubServer {
    /// Serves the hub over HTTP until the process gets SIGTERM or SIGINT, or the calling task
    /// is cancelled, then finishes the requests under way and returns. `onRunning` gets the
    /// port bound (the one asked for, or a free one for port 0). The server logs to `logger`
    /// (each request's lines carry its id); `services` run beside it and shut down with it (a
    /// metrics endpoint, say).
    ///
    /// ```swift
    /// try await HubServer(hub: hub).serve(HubListener(port: 8470)) { port in print("listening on \(port)") }
    /// ```
    public func serve(
        _ listener: HubListener, logger: Logger = Logger(label: "shark-hub"), alongside services: [any Service] = [],
        onRunning: @escaping @Sendable (Int) -> Void = { _ in }
    ) async throws {
        let application = Application(
            router: router(),
            server: .http1(configuration: .init(idleTimeout: .seconds(listener.boundedIdleTimeoutSeconds))),
            configuration: .init(
                address: .hostname(listener.host, port: listener.port), serverName: "shark-hub",
                availableConnectionsDelegate: MaximumAvailableConnections(max(1, listener.maximumConnections))),
            onServerRunning: { channel in onRunning(channel.localAddress?.port ?? listener.port) },
            logger: logger)
        // Shut down in reverse order: the sweeper and the services beside first, then the
        // server after the requests under way.
        let group = ServiceGroup(
            configuration: .init(
                services: [application, HubHousekeeping(hub: hub, metrics: metrics, logger: logger)] + services,
                gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        // The group runs in a task of its own, so that cancelling the caller shuts it down
        // gracefully, as SIGTERM does, rather than cutting the connections under way.
        let running = Task { try await group.run() }
        try await withTaskCancellationHandler {
            try await running.value
        } onCancel: {
            Task { await group.triggerGracefulShutdown() }
        }
    }
}

import AsyncHTTPClient
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOFoundationCompat
import NIOHTTP1

/// The hub's HTTP API as the client calls it: one space, one token. Every request is tried
/// again after a transient failure (``RetryPolicy``); a refusal of the hub is a
/// ``HubAnswer/refused(_:status:)`` for the caller to act on, or a ``SyncClientError``.
struct HubConnection: Sendable {
    let http: HTTPClient
    /// `<hub>/v1/spaces/<space>`, without a trailing slash.
    let spaceURL: String
    let authorization: String
    let retry: RetryPolicy
    let requestTimeout: TimeAmount
    let progress: @Sendable (SyncProgress) -> Void
    let retries: RetryCounter

    /// The largest JSON body the client reads: a page of 1,000 files is about 400 KB.
    static let jsonLimit = 8 << 20

    /// An answer of the hub that is not a transient failure.
    enum HubAnswer<Success: Sendable>: Sendable {
        case success(Success)
        case refused(HubErrorBody, status: Int)
    }

    /// A page of the space's files after `sequence`.
    func files(after sequence: Int64, limit: Int = 1000) async throws -> HubFileList {
        var request = HTTPClientRequest(url: "\(spaceURL)/files?after=\(sequence)&limit=\(limit)")
        request.method = .GET
        return try await json(request, as: HubFileList.self).get()
    }

    /// Tells the hub what the device applied; answers what every active device of the space
    /// applied.
    func acknowledge(_ vector: [String: UInt64]) async throws -> SpaceAcknowledgement {
        var request = HTTPClientRequest(url: "\(spaceURL)/acknowledged")
        request.method = .PUT
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(data: try JSONEncoder().encode(AcknowledgedVector(vector: vector))))
        return try await json(request, as: SpaceAcknowledgement.self).get()
    }

    /// Sends the chunk `bytes` of a file of `length` bytes, at `offset`; of a snapshot when
    /// `snapshotTag` (its digest tag, in hexadecimal) is given.
    func upload(_ bytes: Data, of fileID: UUID, at offset: Int64, length: Int64, snapshotTag: String? = nil)
        async throws -> HubAnswer<UploadState>
    {
        let route = snapshotTag == nil ? "files" : "snapshots"
        let tag = snapshotTag.map { "&tag=\($0)" } ?? ""
        var request = HTTPClientRequest(
            url: "\(spaceURL)/\(route)/\(fileID.uuidString)?offset=\(offset)&length=\(length)\(tag)")
        request.method = .PUT
        request.headers.add(name: "Content-Type", value: "application/octet-stream")
        request.body = .bytes(ByteBuffer(data: bytes))
        return try await json(request, as: UploadState.self)
    }

    /// Abandons this device's unfinished upload `fileID`; one the hub no longer has, or has
    /// accepted, or that is not this device's, is left as it is.
    func abandon(_ fileID: UUID) async throws {
        try await withRetries { () throws -> Void in
            var request = HTTPClientRequest(url: "\(spaceURL)/files/\(fileID.uuidString)")
            request.method = .DELETE
            request.headers.add(name: "Authorization", value: authorization)
            let response = try await execute(request)
            let body = try await Self.transient { try await response.body.collect(upTo: Self.jsonLimit) }
            guard !(200..<300).contains(response.status.code) else { return }
            let failure = Self.failure(response, body: body)
            guard let refusal = failure as? Refusal else { throw failure }
            guard refusal.status == 404 || refusal.status == 409 else {
                throw SyncClientError(refusal: refusal.body, status: refusal.status)
            }
        }
    }

    /// Reports that this device imported the snapshot `fileID` and what its digest came to.
    func verify(snapshot fileID: UUID, vector: [String: UInt64], tag: String) async throws
        -> HubAnswer<HubSnapshotInfo>
    {
        var request = HTTPClientRequest(url: "\(spaceURL)/snapshots/\(fileID.uuidString)/verification")
        request.method = .PUT
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(
            ByteBuffer(data: try JSONEncoder().encode(SnapshotVerification(vector: vector, tag: tag))))
        return try await json(request, as: HubSnapshotInfo.self)
    }

    /// Downloads `file` into `url` (replaced), a megabyte at a time: the file is never held
    /// whole. A transfer cut short starts again from its beginning.
    func download(_ file: HubFileInfo, to url: URL) async throws {
        try await download("files", file.fileID, length: file.length, to: url)
    }

    /// Downloads `snapshot` into `url` (replaced), as ``download(_:to:)`` a file.
    func download(_ snapshot: HubSnapshotInfo, to url: URL) async throws {
        try await download("snapshots", snapshot.fileID, length: snapshot.length, to: url)
    }

    private func download(_ route: String, _ fileID: UUID, length: Int64, to url: URL) async throws {
        let file = (fileID: fileID, length: length)
        try await withRetries { () throws -> Void in
            var request = HTTPClientRequest(url: "\(spaceURL)/\(route)/\(file.fileID.uuidString)")
            request.method = .GET
            request.headers.add(name: "Authorization", value: authorization)
            let response = try await execute(request)
            guard response.status == .ok else {
                let body = try await Self.transient { try await response.body.collect(upTo: Self.jsonLimit) }
                let failure = Self.failure(response, body: body)
                if let refusal = failure as? Refusal {
                    throw SyncClientError(refusal: refusal.body, status: refusal.status)
                }
                throw failure
            }
            let sink = try await DownloadSink.create(url)
            var received: Int64 = 0
            do {
                var pending = ByteBuffer()
                for try await part in response.body {
                    received += Int64(part.readableBytes)
                    guard received <= file.length else {
                        throw TransientFailure("file \(file.fileID) came longer than its \(file.length) bytes")
                    }
                    pending.writeImmutableBuffer(part)
                    if pending.readableBytes >= 1 << 20 {
                        try await sink.write(Data(buffer: pending))
                        pending.clear()
                        progress(.downloading(file: file.fileID, received: received, length: file.length))
                    }
                }
                try await sink.write(Data(buffer: pending))
            } catch let error as TransientFailure {
                try? await sink.close()
                throw error
            } catch let error as CancellationError {
                try? await sink.close()
                throw error
            } catch {
                // The connection closed or failed under the body (a hub stopped mid-file).
                try? await sink.close()
                if error is SyncClientError { throw error }
                try Task.checkCancellation()
                throw TransientFailure("the download of \(file.fileID) was cut off: \(error)")
            }
            try await sink.close()
            // The hub ends a response early when a piece of the file is missing.
            guard received == file.length else {
                throw TransientFailure("file \(file.fileID) ended at \(received) of \(file.length) bytes")
            }
            progress(.downloading(file: file.fileID, received: received, length: file.length))
        }
    }

    // MARK: Requests, answers and retries

    private func json<T: Decodable & Sendable>(_ request: HTTPClientRequest, as type: T.Type) async throws
        -> HubAnswer<T>
    {
        var request = request
        request.headers.add(name: "Authorization", value: authorization)
        request.headers.add(name: "Accept", value: "application/json")
        return try await withRetries {
            let response = try await execute(request)
            let body = try await Self.transient { try await response.body.collect(upTo: Self.jsonLimit) }
            guard (200..<300).contains(response.status.code) else {
                let failure = Self.failure(response, body: body)
                if let refusal = failure as? Refusal { return .refused(refusal.body, status: refusal.status) }
                throw failure
            }
            do {
                return .success(try JSONDecoder().decode(T.self, from: Data(buffer: body)))
            } catch {
                throw SyncClientError(
                    .badResponse, "the hub's answer is not \(T.self): \(error)", status: Int(response.status.code))
            }
        }
    }

    /// Sends `request`. Whatever keeps the answer from arriving (no connection, a refused
    /// or cut one, a timeout, a name that does not resolve) is transient; a cancelled task
    /// stops.
    private func execute(_ request: HTTPClientRequest) async throws -> HTTPClientResponse {
        try Task.checkCancellation()
        do {
            return try await http.execute(request, timeout: requestTimeout)
        } catch let error as CancellationError {
            throw error
        } catch {
            try Task.checkCancellation()
            throw TransientFailure("\(error)")
        }
    }

    /// Reads a body: a connection that fails or closes under it is transient.
    private static func transient<T>(_ read: () async throws -> T) async throws -> T {
        do {
            return try await read()
        } catch let error as CancellationError {
            throw error
        } catch {
            try Task.checkCancellation()
            throw TransientFailure("the answer was cut off: \(error)")
        }
    }

    /// What a status that is not 2xx means: transient (5xx, and 429 unless it says this
    /// device has too many unfinished uploads), or the hub's refusal.
    private static func failure(_ response: HTTPClientResponse, body: ByteBuffer) -> Error {
        let refusal = try? JSONDecoder().decode(HubErrorBody.self, from: Data(buffer: body))
        let code = Int(response.status.code)
        if code >= 500 || (code == 429 && refusal?.error != "tooManyUploads") {
            return TransientFailure(
                "the hub answered \(code) \(refusal?.message ?? response.status.reasonPhrase)",
                retryAfter: response.headers.first(name: "Retry-After").flatMap { Int($0) })
        }
        guard let refusal else {
            return SyncClientError(.badResponse, "the hub answered \(code) without saying why", status: code)
        }
        return Refusal(body: refusal, status: code)
    }

    /// Runs `operation` until it succeeds, throws something other than a transient failure,
    /// or the retry policy's attempts are spent.
    private func withRetries<T: Sendable>(_ operation: () async throws -> T) async throws -> T {
        var attempt = 1
        while true {
            do {
                return try await operation()
            } catch let failure as TransientFailure {
                try Task.checkCancellation()
                guard attempt < retry.maximumAttempts else {
                    throw SyncClientError(
                        .unavailable, "the hub could not be reached after \(attempt) attempts: \(failure.message)")
                }
                var delay = retry.delay(after: attempt)
                // The hub's Retry-After, as far as the policy's longest wait.
                if let wait = failure.retryAfter {
                    delay = max(delay, min(.seconds(wait), retry.maximumDelay, RetryPolicy.longestDelay))
                }
                progress(.retrying(attempt: attempt, delay: delay, reason: failure.message))
                retries.add()
                try await Task.sleep(for: delay)
                attempt += 1
            }
        }
    }
}

/// A failure that may pass: tried again.
struct TransientFailure: Error {
    let message: String
    /// The seconds the hub asked to wait (`Retry-After`), if it did.
    let retryAfter: Int?

    init(_ message: String, retryAfter: Int? = nil) {
        self.message = message
        self.retryAfter = retryAfter
    }
}

/// The hub's refusal, with its body.
struct Refusal: Error {
    let body: HubErrorBody
    let status: Int
}

extension HubConnection.HubAnswer {
    /// The success, or the refusal as a ``SyncClientError``.
    func get() throws -> Success {
        switch self {
        case .success(let value): return value
        case .refused(let body, let status): throw SyncClientError(refusal: body, status: status)
        }
    }
}

extension SyncClientError {
    /// The refusal `body` of status `status`, as the client reports it.
    init(refusal body: HubErrorBody, status: Int) {
        let reason: Reason
        switch body.error {
        case "unauthorized": reason = .unauthorized
        case "forbidden": reason = .forbidden
        case "notFound": reason = .notFound
        case "rejectedFile": reason = .rejectedFile
        case "quotaExceeded", "tooLarge": reason = .quotaExceeded
        case "stale": reason = .stale
        case "retiredKey": reason = .retiredKey
        default: reason = .refused
        }
        self.init(reason, "the hub refused: \(body.message)", hubReason: body.error, status: status)
    }
}

/// Counts the requests tried again, for the report.
final class RetryCounter: Sendable {
    private let count = NIOLockedValueBox(0)
    func add() { count.withLockedValue { $0 += 1 } }
    var value: Int { count.withLockedValue { $0 } }
}

/// The file a download writes, through the thread pool.
struct DownloadSink: Sendable {
    let handle: FileHandle

    static func create(_ url: URL) async throws -> DownloadSink {
        try await BlockingIO.run {
            guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
                throw SyncClientError(.stateFolder, "cannot create \(url.path)")
            }
            do { return DownloadSink(handle: try FileHandle(forWritingTo: url)) } catch {
                throw SyncClientError(.stateFolder, "cannot open \(url.path): \(error)")
            }
        }
    }

    func write(_ data: Data) async throws {
        guard !data.isEmpty else { return }
        let handle = self.handle
        try await BlockingIO.run {
            do { try handle.write(contentsOf: data) } catch {
                throw SyncClientError(.stateFolder, "cannot write a download into the state folder: \(error)")
            }
        }
    }

    func close() async throws {
        let handle = self.handle
        try await BlockingIO.run { try handle.close() }
    }
}

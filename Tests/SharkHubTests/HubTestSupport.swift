import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import NIOFoundationCompat
import SharkDriverConformance
import SharkHub
import SharkORM
import SharkSync
import SharkTestSupport
import Testing

@Model
final class Note {
    var id: UUID = UUID()
    var text: String = ""

    init(_ text: String) { self.text = text }
}

/// The drivers a hub's own store runs on in these tests.
enum HubStoreDriver: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case sqlite, memory, postgres

    var testDescription: String { rawValue }

    func makeStore() throws -> Store {
        switch self {
        case .sqlite: return try TestDriver.sqlite.makeStore()
        case .memory: return try TestDriver.memory.makeStore()
        case .postgres: return try PostgresTestServer.conformance.makeStore()
        }
    }
}

/// A device of the tests: a store with sync, and its token to the hub.
struct TestDevice {
    let engine: SyncEngine
    let token: DeviceToken

    static let lineage = "hub-tests"

    init(hub: Hub, space: String = "notes", name: String) async throws {
        engine = try SyncEngine(store: try Store(.memory), lineage: Self.lineage, models: [Note.self])
        token = try await hub.addDevice(to: space, name: name)
    }

    var authorization: HTTPFields { [.authorization: "Bearer \(token.bearerValue)"] }

    func write(_ texts: String...) throws {
        try engine.store.commit(texts.map { Note($0) })
    }

    func texts() throws -> [String] {
        try Note.query(in: engine.store).orderBy(\.text).fetch().map(\.text)
    }
}

/// A hub over a fresh store of `driver`, with the space "notes" of the tests' lineage. Its
/// chunks may be as small as 100 bytes, so that small files arrive in several.
func makeHub(_ driver: HubStoreDriver, quotaBytes: Int64? = nil) async throws -> Hub {
    var limits = HubLimits()
    limits.minimumChunkBytes = 100
    let hub = try await Hub(store: try driver.makeStore(), limits: limits)
    try await hub.createSpace("notes", lineage: TestDevice.lineage, quotaBytes: quotaBytes)
    return hub
}

let sealingKey = ChangeLogKey.random()

/// Text of about `count` characters that does not compress, so a file's size follows it.
func noise(_ count: Int) -> String {
    var generator = SystemRandomNumberGenerator()
    return Data((0..<(count * 3 / 4)).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
        .base64EncodedString()
}

extension TestClientProtocol {
    /// Uploads `file` in chunks of `chunkSize`, returning each answer's status and the last body.
    @discardableResult
    func upload(_ file: Data, id: UUID, headers: HTTPFields, space: String = "notes", chunkSize: Int = 1 << 20)
        async throws -> (statuses: [HTTPResponse.Status], body: ByteBuffer)
    {
        var statuses: [HTTPResponse.Status] = []
        var body = ByteBuffer()
        var offset = 0
        while offset < file.count {
            let end = min(file.count, offset + chunkSize)
            let response = try await execute(
                uri: "/v1/spaces/\(space)/files/\(id)?offset=\(offset)&length=\(file.count)", method: .put,
                headers: headers, body: ByteBuffer(data: file[file.startIndex + offset..<file.startIndex + end]))
            statuses.append(response.status)
            body = response.body
            guard response.status == .accepted || response.status == .ok else { break }
            offset = end
        }
        return (statuses, body)
    }

    /// Pushes what `device` has that the hub does not hold, as one sealed file.
    @discardableResult
    func push(_ device: TestDevice, chunkSize: Int = 1 << 20) async throws -> UploadState {
        let list = try await files(device)
        let held = VersionVector(
            Dictionary(uniqueKeysWithValues: list.held.map { (UUID(uuidString: $0.key)!, $0.value) }))
        let file = try await device.engine.exportChanges(since: held, key: sealingKey)
        let header = try ChangeLogHeader(reading: file, key: sealingKey)
        let (statuses, body) = try await upload(
            file, id: header.fileID, headers: device.authorization, chunkSize: chunkSize)
        #expect(statuses.last == .ok, "\(String(buffer: body))")
        return try JSONDecoder().decode(UploadState.self, from: Data(buffer: body))
    }

    func files(_ device: TestDevice, after: Int64 = 0) async throws -> HubFileList {
        let response = try await execute(
            uri: "/v1/spaces/notes/files?after=\(after)", method: .get, headers: device.authorization)
        #expect(response.status == .ok, "\(String(buffer: response.body))")
        return try JSONDecoder().decode(HubFileList.self, from: Data(buffer: response.body))
    }

    /// Imports into `device` every file the hub lists after `after`; returns the last sequence.
    @discardableResult
    func pull(_ device: TestDevice, after: Int64 = 0) async throws -> Int64 {
        let list = try await files(device, after: after)
        for file in list.files {
            let response = try await execute(
                uri: "/v1/spaces/notes/files/\(file.fileID)", method: .get, headers: device.authorization)
            #expect(response.status == .ok)
            #expect(Int64(response.body.readableBytes) == file.length)
            _ = try await device.engine.importChanges(from: Data(buffer: response.body), key: sealingKey)
        }
        return list.files.last?.sequence ?? after
    }

    /// The error body of a refused request.
    func refusal(_ response: TestResponse) throws -> HubErrorBody {
        try JSONDecoder().decode(HubErrorBody.self, from: Data(buffer: response.body))
    }
}

/// What the hub's database holds: its files (accepted or not), their chunks' bytes, and the
/// bytes the space "notes" counts against its quota.
func storedCounts(_ hub: Hub) async throws -> (files: Int, bytes: Int64, counted: Int64) {
    let rows = try hub.store.fetchRows(of: "hub_chunks")
    let files = try hub.store.fetchRows(of: "hub_files").count
    let bytes = rows.reduce(Int64(0)) { total, row in
        if case .blob(let data) = row["bytes"] { return total + Int64(data.count) }
        return total
    }
    let space = try hub.store.fetchRows(of: "hub_spaces").first { $0.key == .text("notes") }
    guard case .integer(let counted) = space?["storedBytes"] else { return (files, bytes, -1) }
    return (files, bytes, counted)
}

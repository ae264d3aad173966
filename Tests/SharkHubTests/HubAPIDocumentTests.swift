import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import NIOFoundationCompat
import SharkHub
import SharkHubAPI
@_spi(SharkReplication) import SharkORM
import SharkSync
import Testing

/// The hub's routes against its OpenAPI document (docs/hub-openapi.json): every documented
/// operation answers with a status it documents, no other method is routed, and bad input
/// to every route is a documented 4xx that leaves nothing behind.
@Suite("Hub: the API matches docs/hub-openapi.json")
struct HubAPIDocumentTests {
    struct Operation: CustomStringConvertible {
        let path: String
        let method: HTTPRequest.Method
        let statuses: Set<Int>
        let needsToken: Bool

        var description: String { "\(method) \(path)" }
        /// Under `/files` or `/snapshots`: uploads, downloads and listings, rather than
        /// acknowledgements and verifications, which take JSON.
        var isFileRoute: Bool {
            (path.contains("/files") || path.contains("/snapshots")) && !path.hasSuffix("/verification")
        }
        /// Under `/snapshots`: an upload's chunks name their digest tag.
        var isSnapshotRoute: Bool { path.contains("/snapshots") }
    }

    /// A well-formed digest tag.
    static let tag = String(repeating: "ab", count: 32)

    /// A well-formed acknowledgement body.
    static let acknowledgement = ByteBuffer(string: #"{"vector": {}}"#)

    static let documentURL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs/hub-openapi.json")

    static func document() throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(contentsOf: documentURL)) as? [String: Any])
    }

    static func operations() throws -> [Operation] {
        let paths = try #require(try document()["paths"] as? [String: [String: Any]])
        var operations: [Operation] = []
        for (path, item) in paths {
            for (method, value) in item where method != "parameters" {
                let operation = try #require(value as? [String: Any])
                let responses = try #require(operation["responses"] as? [String: Any])
                let security = operation["security"] as? [Any]
                operations.append(
                    Operation(
                        path: path, method: try #require(HTTPRequest.Method(method.uppercased())),
                        statuses: Set(responses.keys.compactMap { Int($0) }), needsToken: security?.isEmpty != true))
            }
        }
        return operations.sorted { $0.description < $1.description }
    }

    /// A hub with an accepted file, and the devices the checks use.
    struct Setup {
        let hub: Hub
        let laptop: TestDevice
        let accepted: UUID
        let outsider: DeviceToken
        let revoked: DeviceToken
        /// A snapshot of the laptop's, accepted, and a device that can verify it, with the body
        /// that does.
        let snapshot: UUID
        let phone: TestDevice
        let verification: ByteBuffer

        init() async throws {
            hub = try await makeHub(.memory)
            laptop = try await TestDevice(hub: hub, name: "laptop")
            try await hub.createSpace("other", lineage: "other-app")
            outsider = try await hub.addDevice(to: "other", name: "outsider")
            revoked = try await hub.addDevice(to: "notes", name: "revoked")
            try await hub.revokeDevice(revoked.device)
            try laptop.write("a")
            let file = try await laptop.engine.exportChanges(key: sealingKey)
            let accepted = try ChangeLogHeader(reading: file, key: sealingKey).fileID
            self.accepted = accepted
            let snapshotFile = try await laptop.engine.exportChanges(key: sealingKey)
            let header = try ChangeLogHeader(reading: snapshotFile, key: sealingKey)
            let digest = try #require(header.digest)
            let tag = hexadecimal(try #require(sealingKey.digestTag(of: digest, keyID: 0)))
            snapshot = header.fileID
            phone = try await TestDevice(hub: hub, name: "phone")
            _ = try await phone.engine.importChanges(from: file, key: sealingKey)
            verification = ByteBuffer(
                data: try JSONEncoder().encode(
                    SnapshotVerification(
                        vector: Dictionary(
                            uniqueKeysWithValues: digest.vector.entries.map { ($0.key.uuidString, $0.value) }),
                        tag: tag)))
            let (laptop, snapshot) = (self.laptop, self.snapshot)
            try await Application(router: HubServer(hub: hub).router()).test(.router) { client in
                let upload = try await client.upload(file, id: accepted, headers: laptop.authorization)
                #expect(upload.statuses == [.ok])
                let request = "/v1/spaces/notes/snapshots/\(snapshot)?offset=0&length=\(snapshotFile.count)&tag=\(tag)"
                let uploaded = try await client.execute(
                    uri: request, method: .put, headers: laptop.authorization, body: ByteBuffer(data: snapshotFile))
                #expect(uploaded.status == .ok, "\(String(buffer: uploaded.body))")
            }
        }
    }

    /// `operation`'s path with `file` in place of `{file}`, and a query that makes sense for it.
    static func uri(_ operation: Operation, file: String, query: String? = nil) -> String {
        let path = operation.path.replacingOccurrences(of: "{space}", with: "notes")
            .replacingOccurrences(of: "{file}", with: file)
        let defaultQuery = operation.method == .put && operation.isFileRoute ? "offset=0&length=1000" : ""
        var text = query ?? defaultQuery
        if operation.method == .put && operation.isFileRoute && operation.isSnapshotRoute && !text.contains("tag=") {
            text += "&tag=\(tag)"
        }
        return text.isEmpty ? path : "\(path)?\(text)"
    }

    @Test("every documented operation answers with a status it documents; the reasons are the hub's")
    func documentedOperations() async throws {
        let setup = try await Setup()
        let operations = try Self.operations()
        #expect(operations.count == 11)
        try await Application(router: HubServer(hub: setup.hub).router()).test(.router) { client in
            for operation in operations {
                // An upload begun, to abandon; the accepted file or snapshot, to download; the
                // snapshot, for the phone to verify.
                let isVerification = operation.path.hasSuffix("/verification")
                var file = operation.method == .delete || operation.method == .put ? UUID() : setup.accepted
                if isVerification || (operation.isSnapshotRoute && operation.method == .get) { file = setup.snapshot }
                if operation.method == .delete {
                    let begun = try await client.execute(
                        uri: "/v1/spaces/notes/files/\(file)?offset=0&length=1000", method: .put,
                        headers: setup.laptop.authorization, body: ByteBuffer(repeating: 1, count: 200))
                    #expect(begun.status == .accepted)
                }
                let body: ByteBuffer? =
                    operation.method != .put
                    ? nil
                    : operation.isFileRoute
                        ? ByteBuffer(repeating: 1, count: 200)
                        : isVerification ? setup.verification : Self.acknowledgement
                let response = try await client.execute(
                    uri: Self.uri(operation, file: file.uuidString), method: operation.method,
                    headers: !operation.needsToken
                        ? [:] : isVerification ? setup.phone.authorization : setup.laptop.authorization,
                    body: body)
                #expect(operation.statuses.contains(response.status.code), "\(operation): \(response.status)")
                #expect((200..<300).contains(response.status.code), "\(operation): \(response.status)")
            }
        }
        // The error reasons the document names are the hub's, no more and no fewer.
        let document = try Self.document()
        let components = try #require(document["components"] as? [String: Any])
        let schemas = try #require(components["schemas"] as? [String: Any])
        let errorBody = try #require(schemas["ErrorBody"] as? [String: Any])
        let properties = try #require(errorBody["properties"] as? [String: Any])
        let reasons = try #require((properties["error"] as? [String: Any])?["enum"] as? [String])
        #expect(Set(reasons) == Set(HubError.Reason.allCases.map(\.rawValue)))
    }

    @Test("no route answers a method or path the document does not name")
    func undocumentedRoutes() async throws {
        let setup = try await Setup()
        let operations = try Self.operations()
        let methods: [HTTPRequest.Method] = [.get, .put, .delete, .post, .patch]
        try await Application(router: HubServer(hub: setup.hub).router()).test(.router) { client in
            for path in Set(operations.map(\.path)) {
                let documented = Set(operations.filter { $0.path == path }.map(\.method))
                for method in methods where !documented.contains(method) {
                    let operation = Operation(path: path, method: method, statuses: [], needsToken: true)
                    let response = try await client.execute(
                        uri: Self.uri(operation, file: setup.accepted.uuidString), method: method,
                        headers: setup.laptop.authorization)
                    // Unrouted: Hummingbird's own 404 or 405, not a refusal of the hub's.
                    #expect([404, 405].contains(response.status.code), "\(method) \(path): \(response.status)")
                    #expect((try? client.refusal(response)) == nil, "\(method) \(path) reached a handler")
                }
            }
            for path in ["/v1", "/v1/spaces", "/v1/spaces/notes", "/v1/spaces/notes/files/\(setup.accepted)/x"] {
                let response = try await client.execute(uri: path, method: .get, headers: setup.laptop.authorization)
                #expect(response.status == .notFound, "\(path)")
            }
        }
    }

    @Test("bad input to every route is a 4xx it documents, nothing is kept, and the hub stays up")
    func badInput() async throws {
        let setup = try await Setup()
        let before = try await storedCounts(setup.hub)
        let operations = try Self.operations().filter(\.needsToken)
        let garbage = ByteBuffer(repeating: 0x5A, count: 300)
        try await Application(router: HubServer(hub: setup.hub).router()).test(.router) { client in
            for operation in operations {
                let file = operation.method == .get ? setup.accepted.uuidString : UUID().uuidString
                let body = operation.method == .put ? garbage : nil
                var cases: [(String, String, HTTPFields, ByteBuffer?, Int)] = [
                    ("no token", Self.uri(operation, file: file), [:], body, 401),
                    (
                        "a malformed token", Self.uri(operation, file: file), [.authorization: "Bearer shk1.x.y"], body,
                        401
                    ),
                    (
                        "another space's token", Self.uri(operation, file: file),
                        [.authorization: "Bearer \(setup.outsider.bearerValue)"], body, 403
                    ),
                    (
                        "a revoked token", Self.uri(operation, file: file),
                        [.authorization: "Bearer \(setup.revoked.bearerValue)"], body, 403
                    ),
                ]
                let token = setup.laptop.authorization
                if operation.path.contains("{file}") {
                    cases.append(("a file id that is not a UUID", Self.uri(operation, file: "nope"), token, body, 400))
                }
                switch operation.method {
                case .put where operation.path.hasSuffix("/verification"):
                    let site = UUID().uuidString
                    cases += [
                        ("a verification that is not JSON", Self.uri(operation, file: file), token, body, 400),
                        (
                            "a vector whose site is not a UUID", Self.uri(operation, file: file), token,
                            ByteBuffer(string: #"{"vector": {"nope": 1}, "tag": "\#(Self.tag)"}"#), 400
                        ),
                        (
                            "a tag that is not 64 hexadecimal digits", Self.uri(operation, file: file), token,
                            ByteBuffer(string: #"{"vector": {"\#(site)": 1}, "tag": "abc"}"#), 400
                        ),
                        ("no tag", Self.uri(operation, file: file), token, ByteBuffer(string: #"{"vector": {}}"#), 400),
                        (
                            "an unknown snapshot", Self.uri(operation, file: file), token,
                            ByteBuffer(string: #"{"vector": {}, "tag": "\#(Self.tag)"}"#), 404
                        ),
                        (
                            "the uploader verifying its own snapshot",
                            Self.uri(operation, file: setup.snapshot.uuidString),
                            token, ByteBuffer(string: #"{"vector": {}, "tag": "\#(Self.tag)"}"#), 400
                        ),
                        (
                            "a verification above 1 MiB", Self.uri(operation, file: file), token,
                            ByteBuffer(repeating: 0x20, count: (1 << 20) + 1), 413
                        ),
                    ]
                case .put where !operation.isFileRoute:
                    let site = UUID().uuidString
                    cases += [
                        ("an acknowledgement that is not JSON", Self.uri(operation, file: file), token, body, 400),
                        (
                            "a vector whose site is not a UUID", Self.uri(operation, file: file), token,
                            ByteBuffer(string: #"{"vector": {"nope": 1}}"#), 400
                        ),
                        (
                            "a negative sequence", Self.uri(operation, file: file), token,
                            ByteBuffer(string: #"{"vector": {"\#(site)": -1}}"#), 400
                        ),
                        (
                            "a sequence above UInt64", Self.uri(operation, file: file), token,
                            ByteBuffer(string: #"{"vector": {"\#(site)": 18446744073709551616}}"#), 400
                        ),
                        ("no vector", Self.uri(operation, file: file), token, ByteBuffer(string: "{}"), 400),
                        (
                            "an acknowledgement above 1 MiB", Self.uri(operation, file: file), token,
                            ByteBuffer(repeating: 0x20, count: (1 << 20) + 1), 413
                        ),
                    ]
                case .put:
                    cases += [
                        (
                            "an offset that is not a number",
                            Self.uri(operation, file: file, query: "offset=x&length=300"), token, body, 400
                        ),
                        ("no length", Self.uri(operation, file: file, query: "offset=0"), token, body, 400),
                        (
                            "a negative offset", Self.uri(operation, file: file, query: "offset=-1&length=300"), token,
                            body, 400
                        ),
                        (
                            "an offset past the file",
                            Self.uri(operation, file: file, query: "offset=9223372036854775807&length=300"),
                            token, body, 400
                        ),
                        (
                            "a chunk above 1 MiB", Self.uri(operation, file: file, query: "offset=0&length=2000000"),
                            token,
                            ByteBuffer(repeating: 1, count: (1 << 20) + 1), 413
                        ),
                        (
                            "a file above the hub's largest",
                            Self.uri(operation, file: file, query: "offset=0&length=9223372036854775807"), token, body,
                            413
                        ),
                        (
                            "bytes that are not a change log",
                            Self.uri(operation, file: file, query: "offset=0&length=300"), token, body, 422
                        ),
                    ]
                    if operation.isSnapshotRoute {
                        cases += [
                            (
                                "a snapshot's chunk without its tag",
                                Self.uri(operation, file: file, query: "offset=0&length=300&tag="), token, body, 400
                            ),
                            (
                                "a tag that is not hexadecimal",
                                Self.uri(
                                    operation, file: file,
                                    query: "offset=0&length=300&tag=\(String(repeating: "z", count: 64))"),
                                token, body, 400
                            ),
                        ]
                    }
                case .get where !operation.isFileRoute:
                    break
                case .get where !operation.path.contains("{file}"):
                    cases += [
                        (
                            "after that is not a number", Self.uri(operation, file: file, query: "after=x"), token, nil,
                            400
                        ),
                        ("a negative after", Self.uri(operation, file: file, query: "after=-1"), token, nil, 400),
                        ("a limit of 0", Self.uri(operation, file: file, query: "limit=0"), token, nil, 400),
                        ("a limit above 1000", Self.uri(operation, file: file, query: "limit=1001"), token, nil, 400),
                    ]
                case .get:
                    cases.append(("an unknown file", Self.uri(operation, file: UUID().uuidString), token, nil, 404))
                case .delete:
                    cases.append(("an unknown file", Self.uri(operation, file: file), token, nil, 404))
                default: break
                }
                for (name, uri, headers, body, expected) in cases {
                    let response = try await client.execute(
                        uri: uri, method: operation.method, headers: headers, body: body)
                    #expect(response.status.code == expected, "\(operation), \(name): \(response.status)")
                    #expect(operation.statuses.contains(response.status.code), "\(operation), \(name): undocumented")
                    #expect((try? client.refusal(response)) != nil, "\(operation), \(name): no error body")
                }
            }
            let health = try await client.execute(uri: "/v1/health", method: .get)
            #expect(health.status == .ok)
        }
        let after = try await storedCounts(setup.hub)
        #expect(after.files == before.files && after.bytes == before.bytes && after.counted == before.counted)
    }
}

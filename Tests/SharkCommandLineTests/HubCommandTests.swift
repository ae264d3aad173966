import Foundation
import SharkORM
import SharkSQLite
import SharkSync
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `shark hub` and `shark serve`, run as a user runs them.
@Suite("shark hub and shark serve")
struct HubCommandTests {
    static func temporaryDatabase() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("hub-\(UUID().uuidString).sqlite").path
    }

    @Test("spaces and devices: a token printed once, listed without it, revoked")
    func spacesAndDevices() throws {
        let database = Self.temporaryDatabase()
        defer { try? FileManager.default.removeItem(atPath: database) }
        let created = try SharkProcess.run(["hub", "create-space", database, "notes", "--lineage", "com.example.notes"])
        #expect(created.status == 0, "\(created.error)")
        let again = try SharkProcess.run(["hub", "create-space", database, "notes", "--lineage", "x"])
        #expect(again.status == 64 && again.error.contains("exists"))
        let added = try SharkProcess.run(["hub", "add-device", database, "notes", "laptop"])
        #expect(added.status == 0, "\(added.error)")
        let token = added.output.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(token.hasPrefix("shk1.") && token.split(separator: ".").count == 3)
        let device = String(token.split(separator: ".")[1])
        let listed = try SharkProcess.run(["hub", "devices", database, "notes"])
        #expect(listed.status == 0 && listed.output.contains(device) && listed.output.contains("active"))
        #expect(listed.output.contains("last sync") && listed.output.contains("never"))
        let badAge = try SharkProcess.run(["hub", "devices", database, "notes", "--stale-after-days", "0"])
        #expect(badAge.status == 64 && badAge.error.contains("stale"))
        #expect(!listed.output.contains(token.split(separator: ".")[2]))
        #expect(try SharkProcess.run(["hub", "revoke-device", database, device]).status == 0)
        #expect(try SharkProcess.run(["hub", "devices", database, "notes"]).output.contains("revoked"))
        let nowhere = try SharkProcess.run(["hub", "add-device", database, "nowhere", "x"])
        #expect(nowhere.status == 66)
        let badSite = try SharkProcess.run(["hub", "add-device", database, "notes", "x", "--site", "nope"])
        #expect(badSite.status == 64)
    }

    @Test("serve answers on the port it names, refuses a second process on the file, and stops on SIGTERM")
    func serve() async throws {
        let database = Self.temporaryDatabase()
        defer {
            try? FileManager.default.removeItem(atPath: database)
            try? FileManager.default.removeItem(atPath: database + ".hub-lock")
        }
        let (server, port) = try Self.serve(database)
        defer { if server.isRunning { server.terminate() } }
        let (body, response) = try await URLSession.shared.data(
            from: URL(string: "http://127.0.0.1:\(port)/v1/health")!)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(String(decoding: body, as: UTF8.self) == "ok")
        let (_, unauthorized) = try await URLSession.shared.data(
            from: URL(string: "http://127.0.0.1:\(port)/v1/spaces/notes/files")!)
        #expect((unauthorized as? HTTPURLResponse)?.statusCode == 401)

        let second = try SharkProcess.run(["serve", database, "--port", "0"])
        #expect(second.status == 75 && second.error.contains("another hub process"))
        let exposed = try SharkProcess.run(["serve", Self.temporaryDatabase(), "--host", "0.0.0.0", "--port", "0"])
        #expect(exposed.status == 64 && exposed.error.contains("reverse proxy"))

        server.terminate()  // SIGTERM: a graceful stop
        server.waitUntilExit()
        #expect(server.terminationStatus == 0)
    }

    @Test(
        "shark sync: two databases converge through shark serve, a third starts from a snapshot; a wrong token and a missing key are refused"
    )
    func syncThroughServe() async throws {
        let directory = try Fixtures.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let hubDatabase = directory.appendingPathComponent("hub.sqlite").path
        let laptop = try Fixtures.plainDatabase(in: directory)
        let phone = directory.appendingPathComponent("phone.sqlite").path
        do {
            let store = try Store(.sqlite(path: phone))
            _ = try SyncEngine(store: store, lineage: Fixtures.lineage, models: [Member.self, Team.self])
            try store.commit(Member(id: UUID(), name: "Dee", age: 41, joined: Date(), salary: 7, active: true))
            store.close()
        }
        let keyFile = directory.appendingPathComponent("space.key").path
        try String(repeating: "ab", count: 32).write(toFile: keyFile, atomically: true, encoding: .utf8)
        #expect(
            try SharkProcess.run(["hub", "create-space", hubDatabase, "team", "--lineage", Fixtures.lineage]).status
                == 0)
        var tokens: [String] = []
        for device in ["laptop", "phone", "tablet"] {
            let added = try SharkProcess.run(["hub", "add-device", hubDatabase, "team", device])
            #expect(added.status == 0, "\(added.error)")
            tokens.append(added.output.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        let (server, port) = try Self.serve(hubDatabase)
        defer { if server.isRunning { server.terminate() } }
        let hub = "http://127.0.0.1:\(port)"

        func sync(_ database: String, token: String, extra: [String] = ["--log-key-file", keyFile]) throws
            -> SharkProcess.Result
        {
            try SharkProcess.run(
                ["sync", database, "--hub", hub, "--space", "team", "--json"] + extra,
                environment: ["SHARK_HUB_TOKEN": token])
        }
        let first = try sync(laptop, token: tokens[0])
        #expect(first.status == 0, "\(first.error)")
        let summary = try JSONSerialization.jsonObject(with: first.outputData) as? [String: Any]
        #expect(summary?["pushed"] as? [Int] == [1], "\(first.output)")
        #expect(try sync(phone, token: tokens[1]).status == 0)
        #expect(try sync(laptop, token: tokens[0]).status == 0)
        for database in [laptop, phone] {
            let store = try Store(.sqlite(path: database, readOnly: true))
            #expect(try await Member.query(in: store).count() == 4)
            store.close()
        }
        // The phone uploads a snapshot (any bytes since the last will do); a database new to
        // the hub starts from it, and verifies it.
        let snapshotting = try sync(
            phone, token: tokens[1], extra: ["--log-key-file", keyFile, "--snapshot-after-bytes", "1"])
        #expect(snapshotting.status == 0, "\(snapshotting.error)")
        let uploaded = try JSONSerialization.jsonObject(with: snapshotting.outputData) as? [String: Any]
        #expect(uploaded?["snapshotUploaded"] as? Int == 1, "\(snapshotting.output)")
        let tablet = directory.appendingPathComponent("tablet.sqlite").path
        do {
            let store = try Store(.sqlite(path: tablet))
            _ = try SyncEngine(store: store, lineage: Fixtures.lineage, models: [Member.self, Team.self])
            store.close()
        }
        let joined = try sync(tablet, token: tokens[2])
        #expect(joined.status == 0, "\(joined.error)")
        let joinedSummary = try JSONSerialization.jsonObject(with: joined.outputData) as? [String: Any]
        #expect(joinedSummary?["snapshotImported"] is String && joinedSummary?["snapshotVerified"] is String)
        #expect(joinedSummary?["pulled"] as? Int == 0, "\(joined.output)")
        do {
            let store = try Store(.sqlite(path: tablet, readOnly: true))
            #expect(try await Member.query(in: store).count() == 4)
            store.close()
        }
        #expect(
            try sync(tablet, token: tokens[2], extra: ["--log-key-file", keyFile, "--snapshot-after-bytes", "-1"])
                .status == 64)
        // Text that is not a token, and no space key: refused before the hub is asked.
        let wrongToken = try sync(laptop, token: "shk1.not-a-token")
        #expect(wrongToken.status == 77 && wrongToken.error.contains("token"))
        let noKey = try sync(phone, token: tokens[1], extra: [])
        #expect(noKey.status == 64 && noKey.error.contains("sealed"))
        server.terminate()
        server.waitUntilExit()
    }

    /// `shark serve DATABASE` on a free port, once it says where it listens.
    static func serve(_ database: String) throws -> (Process, port: Int) {
        let server = Process()
        server.executableURL = SharkProcess.executable
        server.arguments = ["serve", database, "--port", "0"]
        let errors = Pipe()
        server.standardError = errors
        server.standardOutput = Pipe()
        try server.run()
        guard let port = Self.listeningPort(errors.fileHandleForReading) else {
            server.terminate()
            throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "shark serve did not start"])
        }
        return (server, port)
    }

    /// Reads standard error until the server says where it listens.
    static func listeningPort(_ handle: FileHandle) -> Int? {
        var text = ""
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            let data = handle.availableData
            if data.isEmpty { return nil }  // the process ended
            text += String(decoding: data, as: UTF8.self)
            if let range = text.range(of: "listening on http://127.0.0.1:"),
                let line = text[range.upperBound...].split(separator: "\n").first, let port = Int(line)
            {
                return port
            }
        }
        return nil
    }
}

import Foundation
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
        let server = Process()
        server.executableURL = SharkProcess.executable
        server.arguments = ["serve", database, "--port", "0"]
        let errors = Pipe()
        server.standardError = errors
        server.standardOutput = Pipe()
        try server.run()
        defer { if server.isRunning { server.terminate() } }
        let port = try #require(Self.listeningPort(errors.fileHandleForReading))
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

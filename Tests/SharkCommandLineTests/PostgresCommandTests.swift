import Foundation
import SharkORM
import SharkPostgres
import SharkSync
import Testing

/// The command line on a PostgreSQL database: the throw-away server scripts/test.sh starts
/// (SHARK_POSTGRES_* name it), each test in a schema of its own, dropped afterwards.
@Suite("shark on PostgreSQL")
struct PostgresCommandTests {
    /// The test server, as its environment names it; a test that needs it and finds none fails.
    struct Server {
        let port: Int
        let user: String
        let passwordFile: String
        let authority: String

        init() throws {
            let environment = ProcessInfo.processInfo.environment
            guard let port = environment["SHARK_POSTGRES_PORT"].flatMap(Int.init),
                let user = environment["SHARK_POSTGRES_USER"],
                let passwordFile = environment["SHARK_POSTGRES_PASSWORD_FILE"],
                let authority = environment["SHARK_POSTGRES_CA_FILE"]
            else {
                throw MissingServer()
            }
            self.port = port
            self.user = user
            self.passwordFile = passwordFile
            self.authority = authority
        }

        /// The URL of `schema` (the certificate names localhost).
        func url(schema: String) -> String {
            "postgresql://\(user)@localhost:\(port)/postgres?schema=\(schema)&sslrootcert=\(authority)"
        }

        func store(schema: String) throws -> Store {
            try Store(
                .postgres(
                    host: "localhost", port: port, database: "postgres", user: user, password: .file(passwordFile),
                    tls: .verified(certificateAuthority: authority), schema: schema, connections: 2))
        }

        func dropSchema(_ schema: String) throws {
            let store = try self.store(schema: "public")
            defer { store.close() }
            try store.execute("DROP SCHEMA IF EXISTS \"\(schema)\" CASCADE")
        }
    }

    struct MissingServer: Error, CustomStringConvertible {
        var description: String {
            "no PostgreSQL server: run the tests with scripts/test.sh, which starts one (SHARK_POSTGRES_*)"
        }
    }

    @Test("info, query, export and import take a PostgreSQL URL, the password from a file")
    func commands() throws {
        let server = try Server()
        let schema = "cli_\(UUID().uuidString.prefix(8).lowercased())"
        defer { try? server.dropSchema(schema) }
        let store = try server.store(schema: schema)
        try Fixtures.fill(store)
        store.close()
        let url = server.url(schema: schema)
        let password = ["--password-file", server.passwordFile]

        let info = try SharkProcess.run(["info", url, "--json"] + password)
        #expect(info.status == 0, "\(info.error)")
        let report = try #require(try JSONSerialization.jsonObject(with: info.outputData) as? [String: Any])
        #expect(report["driver"] as? String == "postgres")
        #expect(report["schema"] as? String == schema)
        let entities = report["entities"] as? [[String: Any]] ?? []
        #expect(entities.first { $0["name"] as? String == "Member" }?["rows"] as? Int == 3)
        #expect((report["sync"] as? [String: Any])?["lineage"] as? String == Fixtures.lineage)
        let text = try SharkProcess.run(["info", url] + password)
        #expect(text.output.contains("driver      postgres (PostgreSQL 15"), "\(text.output)")

        let query = try SharkProcess.run(
            ["query", url, "Member", "--where", "age > ?", "--order", "name", "--format", "csv"] + password + ["20"])
        #expect(query.status == 0, "\(query.error)")
        #expect(query.output.split(whereSeparator: \.isNewline).count == 2, "\(query.output)")  // the header and Ada
        #expect(query.output.contains("Ada"))

        let directory = try Fixtures.directory()
        let log = directory.appendingPathComponent("server.sharklog").path
        let export = try SharkProcess.run(["export", url, "-o", log] + password)
        #expect(export.status == 0, "\(export.error)")
        #expect(try ChangeLogContents(reading: Data(contentsOf: URL(fileURLWithPath: log))).rowCount == 5)

        let peer = try Fixtures.peerChangeLog(in: directory)
        let imported = try SharkProcess.run(["import", url, peer] + password)
        #expect(imported.status == 0, "\(imported.error)")
        let reopened = try server.store(schema: schema)
        defer { reopened.close() }
        #expect(try reopened.countRows(of: "Member") == 4)

        // Through the server's Unix socket: its folder as the host (TLS does not apply).
        let socketFolder = try #require(ProcessInfo.processInfo.environment["SHARK_POSTGRES_SOCKET"])
            .split(separator: "/").dropLast().joined(separator: "%2F")
        let overSocket = try SharkProcess.run(
            [
                "query", "postgresql://\(server.user)@%2F\(socketFolder):\(server.port)/postgres?schema=\(schema)",
                "Team",
            ]
                + password)
        #expect(overSocket.status == 0, "\(overSocket.error)")
        #expect(overSocket.output.contains("Research"))
        let missing = try SharkProcess.run(["info", server.url(schema: schema + "_missing")] + password)
        #expect(missing.status == 66)
        #expect(missing.error.contains("has no schema \(schema)_missing"), "\(missing.error)")

        // The password from an environment variable named by an option.
        let fromEnvironment = try SharkProcess.run(
            ["query", url, "Team", "--password-env", "CLI_DB_PASSWORD"],
            environment: [
                "CLI_DB_PASSWORD": try String(contentsOfFile: server.passwordFile, encoding: .utf8)
                    .trimmingCharacters(in: .newlines)
            ])
        #expect(fromEnvironment.status == 0, "\(fromEnvironment.error)")
        #expect(fromEnvironment.output.contains("Research"))
    }

    @Test("a password in the URL, a mode that skips verification and a wrong password are refused")
    func refusals() throws {
        let server = try Server()
        let inURL = try SharkProcess.run([
            "info", "postgresql://\(server.user):secret@localhost:\(server.port)/postgres",
        ])
        #expect(inURL.status == 64)
        #expect(inURL.error.contains("--password-file"))
        let unverified = try SharkProcess.run(
            ["info", "postgresql://\(server.user)@localhost:\(server.port)/postgres?sslmode=require"])
        #expect(unverified.status == 64)
        #expect(unverified.error.contains("verify-full"))
        let unknown = try SharkProcess.run(["info", server.url(schema: "public") + "&password=x"])
        #expect(unknown.status == 64)
        let directory = try Fixtures.directory()
        let wrong = directory.appendingPathComponent("wrong-password").path
        try "not the password\n".write(toFile: wrong, atomically: true, encoding: .utf8)
        let refused = try SharkProcess.run(["info", server.url(schema: "public"), "--password-file", wrong])
        #expect(refused.status != 0)
        #expect(refused.error.contains("28P01"), "\(refused.error)")
        // The user as the URL encodes it (`%25` is `%`), decoded once.
        let encodedUser = try SharkProcess.run(
            ["info", "postgresql://50%25off@localhost:\(server.port)/postgres?sslrootcert=\(server.authority)"]
                + ["--password-file", wrong])
        #expect(encodedUser.error.contains("\"50%off\""), "\(encodedUser.error)")
        // A URL that does not parse is named without what its user part holds.
        let malformed = try SharkProcess.run(["info", "postgresql://app:s3cret@db:54x32/app"])
        #expect(malformed.status == 64)
        #expect(!malformed.error.contains("s3cret"), "\(malformed.error)")
        let both = try SharkProcess.run(
            ["info", server.url(schema: "public"), "--password-file", wrong, "--password-env", "X"])
        #expect(both.status == 64)
    }
}

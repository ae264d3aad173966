import Foundation
import Testing

@Suite("shark info")
struct InfoCommandTests {
    @Test("describes a plain database: driver, entities with row counts and columns, indexes, sync state")
    func plain() throws {
        let directory = try Fixtures.directory()
        let path = try Fixtures.plainDatabase(in: directory)
        let before = try DiskState(of: path)
        let result = try SharkProcess.run(["info", path])
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output.contains("driver      sqlite (SQLite 3."))
        #expect(result.output.contains("Member  3 rows, key id (uuid)"))
        #expect(result.output.contains("Team  2 rows, key id (string)"))
        #expect(result.output.contains("index shark_index_Member_name on name"))
        #expect(result.output.contains("lineage cli-tests, site \(Fixtures.site.uuidString)"))
        #expect(result.error.isEmpty)
        #expect(try DiskState(of: path) == before, "info must not write")
    }

    @Test("--json parses back, with every entity and the sync vector")
    func json() throws {
        let directory = try Fixtures.directory()
        let path = try Fixtures.plainDatabase(in: directory)
        let result = try SharkProcess.run(["info", path, "--json", "--check"])
        #expect(result.status == 0, "\(result.error)")
        let object = try #require(try JSONSerialization.jsonObject(with: result.outputData) as? [String: Any])
        #expect(object["driver"] as? String == "sqlite")
        #expect(object["journalMode"] as? String == "wal")
        let entities = try #require(object["entities"] as? [[String: Any]])
        let member = try #require(entities.first { $0["name"] as? String == "Member" })
        #expect(member["rows"] as? Int == 3)
        let columns = try #require(member["columns"] as? [[String: Any]])
        #expect(columns.map { $0["name"] as? String } == ["id", "name", "age", "joined", "salary", "active", "team"])
        #expect(columns.first { $0["name"] as? String == "team" }?["refersTo"] as? String == "Team")
        let sync = try #require(object["sync"] as? [String: Any])
        let vector = try #require(sync["vector"] as? [String: Int])
        #expect(vector[Fixtures.site.uuidString] == 2)
        let integrity = try #require(object["integrity"] as? [String: Any])
        #expect(integrity["ok"] as? Bool == true)
    }

    @Test("an encrypted database: the key from a file or a variable, the cipher settings shown")
    func encrypted() throws {
        let directory = try Fixtures.directory()
        let path = try Fixtures.encryptedDatabase(in: directory)
        let keyFile = directory.appendingPathComponent("key").path
        try Data((Fixtures.passphrase + "\n").utf8).write(to: URL(fileURLWithPath: keyFile))
        let before = try DiskState(of: path)
        let fromFile = try SharkProcess.run(["info", path, "--key-file", keyFile])
        #expect(fromFile.status == 0, "\(fromFile.error)")
        #expect(fromFile.output.contains("driver      sqlcipher (SQLCipher"))
        #expect(fromFile.output.contains("cipher      aes-256-cbc") || fromFile.output.contains("cipher      AES"))
        #expect(fromFile.output.contains("Member  3 rows"))
        let fromVariable = try SharkProcess.run(
            ["info", path, "--json"], environment: ["SHARK_KEY": Fixtures.passphrase])
        #expect(fromVariable.status == 0, "\(fromVariable.error)")
        let named = try SharkProcess.run(
            ["info", path, "--key-env", "TEAM_KEY"], environment: ["TEAM_KEY": Fixtures.passphrase])
        #expect(named.status == 0, "\(named.error)")
        #expect(try DiskState(of: path) == before, "info must not write")
    }
}

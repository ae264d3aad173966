import Foundation
import SharkORM
import SharkSQLite
import SharkSync
import Testing

@Suite("shark export, import, inspect, verify")
struct SyncCommandTests {
    @Test("export writes a change log of everything, read-only; inspect and verify read it back")
    func exportInspectVerify() throws {
        let directory = try Fixtures.directory()
        let path = try Fixtures.plainDatabase(in: directory)
        let before = try DiskState(of: path)
        let log = directory.appendingPathComponent("team.sharklog").path
        let export = try SharkProcess.run(["export", path, "-o", log, "--json"])
        #expect(export.status == 0, "\(export.error)")
        let summary = try #require(try JSONSerialization.jsonObject(with: export.outputData) as? [String: Any])
        #expect(summary["lineage"] as? String == Fixtures.lineage)
        #expect((summary["bytes"] as? Int ?? 0) > 0)
        var after = try DiskState(of: path)
        after.siblings.removeAll { $0 == "team.sharklog" }
        #expect(after == before, "export must not write to the database")

        let verify = try SharkProcess.run(["verify", log])
        #expect(verify.status == 0, "\(verify.error)")
        #expect(verify.output.contains("ok, 5 row(s) in 3 frame(s), lineage cli-tests"))

        let inspect = try SharkProcess.run(["inspect", log])
        #expect(inspect.status == 0, "\(inspect.error)")
        #expect(inspect.output.contains("lineage   cli-tests"))
        #expect(inspect.output.contains("Member: 3 row(s), key uuid"))
        #expect(inspect.output.contains("  \(Fixtures.ada.uuidString)  present"))
        #expect(inspect.output.contains("    name = Ada"))
        // The file's own logical types: dates, decimals and Bools as such, without the database.
        #expect(inspect.output.contains("    joined = 2023-11-14T22:13:20.000Z"))
        #expect(inspect.output.contains("    salary = 1234.5"))
        #expect(inspect.output.contains("    active = true"))
        #expect(inspect.output.contains("joined date in real"))

        // With the database's (for files written before change logs carried them): the same.
        let typed = try SharkProcess.run(["inspect", log, "--database", path])
        #expect(typed.status == 0, "\(typed.error)")
        #expect(typed.output.contains("    joined = 2023-11-14T22:13:20.000Z"))
        #expect(typed.output.contains("    active = true"))

        let json = try SharkProcess.run(["inspect", log, "--json"])
        #expect(json.status == 0, "\(json.error)")
        let contents = try #require(try JSONSerialization.jsonObject(with: json.outputData) as? [String: Any])
        #expect(contents["rowCount"] as? Int == 5)
        let entities = try #require(contents["entities"] as? [[String: Any]])
        #expect(Set(entities.compactMap { $0["name"] as? String }) == ["Member", "Team"])
        let rows = try #require(entities.first { $0["name"] as? String == "Member" }?["rows"] as? [[String: Any]])
        #expect(rows.compactMap { $0["key"] as? String }.contains(Fixtures.cy.uuidString))
    }

    @Test("digest prints each database's digest, and exits 1 when they differ")
    func digest() throws {
        let directory = try Fixtures.directory()
        // The same rows, versions and site on a plain and an encrypted database.
        let plain = try Fixtures.plainDatabase(in: directory)
        let vault = try Fixtures.encryptedDatabase(in: directory)
        let key = ["SHARK_KEY": Fixtures.passphrase]
        let same = try SharkProcess.run(["digest", plain, vault], environment: key)
        #expect(same.status == 0, "\(same.error)")
        let lines = same.output.split(separator: "\n")
        #expect(lines.count == 3 && lines[2] == "equal", "\(same.output)")
        #expect(lines[0].contains("5 row(s)"))
        let hex = lines[0].split(separator: " ")[1]
        #expect(hex.count == 64 && lines[1].contains(hex))

        // One of them imports a peer's change: they differ.
        let log = try Fixtures.peerChangeLog(in: directory)
        #expect(try SharkProcess.run(["import", plain, log]).status == 0)
        let different = try SharkProcess.run(["digest", plain, vault, "--json"], environment: key)
        #expect(different.status == 1, "\(different.error)")
        let report = try #require(try JSONSerialization.jsonObject(with: different.outputData) as? [String: Any])
        #expect(report["equal"] as? Bool == false)
        let databases = try #require(report["databases"] as? [[String: Any]])
        #expect(databases.map { $0["rows"] as? Int } == [6, 5])

        // The other imports it too: equal again.
        #expect(try SharkProcess.run(["import", vault, log], environment: key).status == 0)
        #expect(try SharkProcess.run(["digest", plain, vault], environment: key).status == 0)
        // A database that never synced: as for export, a wrong command line.
        let plainStore = directory.appendingPathComponent("unsynced.sqlite").path
        let store = try Store(.sqlite(path: plainStore))
        try store.prepare(Team.self)
        store.close()
        #expect(try SharkProcess.run(["digest", plainStore]).status == 64)
    }

    @Test("export --since a peer's vector holds only what the peer lacks; to standard output with -o -")
    func exportSince() throws {
        let directory = try Fixtures.directory()
        let path = try Fixtures.plainDatabase(in: directory)
        let info = try SharkProcess.run(["info", path, "--json"])
        let infoFile = directory.appendingPathComponent("info.json").path
        try info.outputData.write(to: URL(fileURLWithPath: infoFile))
        let nothing = try SharkProcess.run(["export", path, "-o", "-", "--since", infoFile])
        #expect(nothing.status == 0, "\(nothing.error)")
        #expect(try ChangeLogContents(reading: nothing.outputData).rowCount == 0)
        let halfway = try SharkProcess.run(["export", path, "-o", "-", "--since", "\(Fixtures.site.uuidString):1"])
        #expect(halfway.status == 0, "\(halfway.error)")
        #expect(try ChangeLogContents(reading: halfway.outputData).rowCount == 3)
    }

    @Test("import applies a peer's change log atomically and idempotently")
    func importLog() throws {
        let directory = try Fixtures.directory()
        let path = try Fixtures.plainDatabase(in: directory)
        let log = try Fixtures.peerChangeLog(in: directory)
        let first = try SharkProcess.run(["import", path, log])
        #expect(first.status == 0, "\(first.error)")
        #expect(first.output.contains("peer.sharklog: 1 row(s) applied"))
        let again = try SharkProcess.run(["import", path, log, "--json"])
        #expect(again.status == 0, "\(again.error)")
        let summary = try #require(try JSONSerialization.jsonObject(with: again.outputData) as? [String: Any])
        let files = try #require(summary["files"] as? [[String: Any]])
        #expect(files.first?["rowsApplied"] as? Int == 0)
        let query = try SharkProcess.run(["query", path, "Member", "--where", "name = ?", "Dee", "--json"])
        #expect((try JSONSerialization.jsonObject(with: query.outputData) as? [Any])?.count == 1)
    }

    @Test("an encrypted change log needs its key, from a file or a variable")
    func encryptedLog() throws {
        let directory = try Fixtures.directory()
        let path = try Fixtures.plainDatabase(in: directory)
        let key = ChangeLogKey.random()
        let log = try Fixtures.peerChangeLog(in: directory, key: key)
        let keyFile = directory.appendingPathComponent("log.key").path
        try Data(hexadecimal(key.bytes).utf8).write(to: URL(fileURLWithPath: keyFile))

        let withoutKey = try SharkProcess.run(["verify", log])
        #expect(withoutKey.status == 77)
        #expect(withoutKey.errorLines.count == 1)
        let verify = try SharkProcess.run(["verify", log, "--log-key-file", keyFile])
        #expect(verify.status == 0, "\(verify.error)")
        let inspect = try SharkProcess.run(["inspect", log], environment: ["SHARK_LOG_KEY": hexadecimal(key.bytes)])
        #expect(inspect.status == 0, "\(inspect.error)")
        #expect(inspect.output.contains("encrypted"))
        let imported = try SharkProcess.run(
            ["import", path, log, "--log-key-env", "MY_LOG_KEY"], environment: ["MY_LOG_KEY": hexadecimal(key.bytes)])
        #expect(imported.status == 0, "\(imported.error)")

        let sealed = directory.appendingPathComponent("sealed.sharklog").path
        let export = try SharkProcess.run(["export", path, "-o", sealed, "--log-key-file", keyFile])
        #expect(export.status == 0, "\(export.error)")
        #expect(try ChangeLogContents(reading: Data(contentsOf: URL(fileURLWithPath: sealed)), key: key).isEncrypted)
    }
}

@Suite("shark with a rotated change-log key")
struct RotatedLogKeyTests {
    @Test("the first key of a key file seals, the ones after it open older files; a bad key list is refused")
    func rotatedKeys() throws {
        let directory = try Fixtures.directory()
        let path = try Fixtures.plainDatabase(in: directory)
        let first = ChangeLogKey.random()
        let second = ChangeLogKey.random(id: 1)
        let log = try Fixtures.peerChangeLog(in: directory, key: first)
        func keyFile(_ name: String, _ text: String) throws -> String {
            let file = directory.appendingPathComponent(name).path
            try Data(text.utf8).write(to: URL(fileURLWithPath: file))
            return file
        }
        let both = try keyFile("both.key", "1:\(hexadecimal(second.bytes))\n0:\(hexadecimal(first.bytes))\n")
        let verify = try SharkProcess.run(["verify", log, "--log-key-file", both])
        #expect(verify.status == 0, "\(verify.error)")
        // Windows line ends and comment lines read the same.
        let windows = try keyFile(
            "windows.key", "# rotated in May\r\n1:\(hexadecimal(second.bytes))\r\n0:\(hexadecimal(first.bytes))\r\n")
        let fromWindows = try SharkProcess.run(["verify", log, "--log-key-file", windows])
        #expect(fromWindows.status == 0, "\(fromWindows.error)")
        let plainWindows = try keyFile("plain-windows.key", "\(hexadecimal(first.bytes))\r\n")
        #expect(try SharkProcess.run(["verify", log, "--log-key-file", plainWindows]).status == 0)
        let inspect = try SharkProcess.run(
            ["inspect", log, "--json"],
            environment: [
                "SHARK_LOG_KEY": "1:\(hexadecimal(second.bytes)), \(hexadecimal(first.bytes))"
            ])
        #expect(inspect.status == 0, "\(inspect.error)")
        #expect((try JSONSerialization.jsonObject(with: inspect.outputData) as? [String: Any])?["keyID"] as? Int == 0)

        // What it writes carries the current key's id, and older readers of the first key alone refuse it.
        let sealed = directory.appendingPathComponent("rotated.sharklog").path
        let export = try SharkProcess.run(["export", path, "-o", sealed, "--log-key-file", both])
        #expect(export.status == 0, "\(export.error)")
        let rotated = try second.retiring([first])
        #expect(try ChangeLogContents(reading: Data(contentsOf: URL(fileURLWithPath: sealed)), key: rotated).keyID == 1)
        let shown = try SharkProcess.run(["inspect", sealed, "--log-key-file", both])
        #expect(shown.output.contains("encrypted with key 1"), "\(shown.output)")
        let firstOnly = try keyFile("first.key", hexadecimal(first.bytes))
        let refused = try SharkProcess.run(["verify", sealed, "--log-key-file", firstOnly])
        #expect(refused.status == 77)
        #expect(refused.error.contains("key 1"), "\(refused.error)")

        // The new key alone does not open the first key's file.
        let secondOnly = try keyFile("second.key", "1:\(hexadecimal(second.bytes))")
        #expect(try SharkProcess.run(["verify", log, "--log-key-file", secondOnly]).status == 77)
        // The current key must come first, each id once, and every entry a key.
        let backwards = try keyFile("backwards.key", "0:\(hexadecimal(first.bytes))\n1:\(hexadecimal(second.bytes))")
        #expect(try SharkProcess.run(["verify", log, "--log-key-file", backwards]).status == 64)
        for bad in ["x:\(hexadecimal(first.bytes))", "4294967296:\(hexadecimal(first.bytes))", "1:abc", ",\n"] {
            let result = try SharkProcess.run(["verify", log, "--log-key-file", try keyFile("bad.key", bad)])
            #expect(result.status == 77, "\(bad): \(result.error)")
            #expect(result.errorLines.count == 1)
        }
    }
}

private func hexadecimal(_ data: Data) -> String { data.map { String(format: "%02x", $0) }.joined() }

@Suite("shark with pipes and keys in the environment")
struct PipeAndEnvironmentTests {
    @Test("change logs travel through pipes: export -o -, import -, verify -")
    func pipes() throws {
        let directory = try Fixtures.directory()
        let path = try Fixtures.plainDatabase(in: directory)
        let peer = try Fixtures.peerChangeLog(in: directory)
        let log = try Data(contentsOf: URL(fileURLWithPath: peer))
        let verify = try SharkProcess.run(["verify", "-"], input: log)
        #expect(verify.status == 0, "\(verify.error)")
        let imported = try SharkProcess.run(["import", path, "-"], input: log)
        #expect(imported.status == 0, "\(imported.error)")
        #expect(imported.output.contains("-: 1 row(s) applied"))
        let viaDevice = try SharkProcess.run(["inspect", "/dev/stdin"], input: log)
        #expect(viaDevice.status == 0, "\(viaDevice.error)")
    }

    @Test("SHARK_LOG_KEY in the environment does not stop plain files; an explicit key for one does")
    func environmentKey() throws {
        let directory = try Fixtures.directory()
        let peer = try Fixtures.peerChangeLog(in: directory)
        let key = String(repeating: "ab", count: 32)
        let plain = try SharkProcess.run(["verify", peer], environment: ["SHARK_LOG_KEY": key])
        #expect(plain.status == 0, "\(plain.error)")
        let explicit = try SharkProcess.run(["verify", peer, "--log-key-env", "K"], environment: ["K": key])
        #expect(explicit.status == 77)
        #expect(explicit.error.contains("leave out"))
    }

    @Test("--since reads any sequence number, and refuses what is not one")
    func since() throws {
        let directory = try Fixtures.directory()
        let path = try Fixtures.plainDatabase(in: directory)
        let huge = try SharkProcess.run([
            "export", path, "-o", "-", "--since", "{\"\(Fixtures.site.uuidString)\": 18446744073709551615}",
        ])
        #expect(huge.status == 0, "\(huge.error)")
        #expect(try ChangeLogContents(reading: huge.outputData).rowCount == 0)
        for bad in [
            "{\"\(Fixtures.site.uuidString)\": true}", "{\"nope\": 1}", "x:1", "{\"\(Fixtures.site.uuidString)\": -1}",
        ] {
            let result = try SharkProcess.run(["export", path, "-o", "-", "--since", bad])
            #expect(result.status == 64, "\(bad): \(result.error)")
        }
    }
}

import Foundation
import SharkORM
import SharkSQLite
import Testing

/// Bad input gets one clear line on standard error, an exit code of its kind, and leaves
/// every file as it was.
@Suite("shark on bad input")
struct BadInputTests {
    /// Runs `arguments` and checks the failure: `status`, one line on standard error that
    /// mentions `mentioning`, nothing on standard output, `files` unchanged on disk.
    private func expectFailure(
        _ arguments: [String], environment: [String: String] = [:], status: Int32, mentioning: String,
        files: [String], sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let before = try files.map { try DiskState(of: $0) }
        let result = try SharkProcess.run(arguments, environment: environment)
        #expect(result.status == status, "\(arguments): \(result.error)", sourceLocation: sourceLocation)
        #expect(result.errorLines.count == 1, "\(arguments): \(result.error)", sourceLocation: sourceLocation)
        #expect(result.error.hasPrefix("shark: error: "), sourceLocation: sourceLocation)
        #expect(result.error.contains(mentioning), "\(result.error)", sourceLocation: sourceLocation)
        #expect(result.output.isEmpty, "\(arguments) printed \(result.output)", sourceLocation: sourceLocation)
        let after = try files.map { try DiskState(of: $0) }
        #expect(after == before, "\(arguments) changed a file", sourceLocation: sourceLocation)
    }

    @Test("a missing file: exit 66, nothing created")
    func missingFile() throws {
        let directory = try Fixtures.directory()
        let missing = directory.appendingPathComponent("nowhere.sqlite").path
        for command in [
            ["info", missing], ["query", missing, "Member"], ["export", missing, "-o", missing + ".log"],
        ] {
            try expectFailure(command, status: 66, mentioning: "no such file", files: [])
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty, "\(command) created a file"
            )
        }
        let path = try Fixtures.plainDatabase(in: directory)
        try expectFailure(["import", path, missing], status: 66, mentioning: "nowhere.sqlite", files: [path])
        try expectFailure(["inspect", missing], status: 66, mentioning: "no such file", files: [])
    }

    @Test("a wrong key, or none: exit 77, the database unchanged")
    func wrongKey() throws {
        let directory = try Fixtures.directory()
        let path = try Fixtures.encryptedDatabase(in: directory)
        try expectFailure(
            ["info", path], environment: ["SHARK_KEY": "not the key"], status: 77, mentioning: "key", files: [path])
        try expectFailure(["query", path, "Member"], status: 77, mentioning: "--key-file", files: [path])
        try expectFailure(
            ["rekey", path], environment: ["SHARK_KEY": "not the key", "SHARK_NEW_KEY": "x"], status: 77,
            mentioning: "key", files: [path])
        try expectFailure(
            ["decrypt", path, "-o", directory.appendingPathComponent("out").path],
            environment: ["SHARK_KEY": "not the key"], status: 77, mentioning: "key", files: [path])
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("out").path))
    }

    @Test("not a database: exit 65 (or 77 when a key was tried), the file unchanged")
    func notADatabase() throws {
        let directory = try Fixtures.directory()
        let text = directory.appendingPathComponent("notes.txt").path
        try Data(String(repeating: "just some text\n", count: 500).utf8).write(to: URL(fileURLWithPath: text))
        let empty = directory.appendingPathComponent("empty.sqlite").path
        #expect(FileManager.default.createFile(atPath: empty, contents: Data()))
        try expectFailure(["info", empty], status: 65, mentioning: "empty", files: [empty])
        try expectFailure(["info", text], status: 65, mentioning: "is not a database", files: [text])
        try expectFailure(
            ["encrypt", text, "-o", text + ".enc"], status: 65, mentioning: "not a database", files: [text])
        // Whole pages of noise could be an encrypted database: only a key tells.
        let noise = directory.appendingPathComponent("noise.db").path
        try Data((0..<8192).map { _ in UInt8.random(in: 0...255) }).write(to: URL(fileURLWithPath: noise))
        try expectFailure(
            ["info", noise], environment: ["SHARK_KEY": "k"], status: 77, mentioning: "not a database", files: [noise])
        try expectFailure(["query", noise, "Member"], status: 77, mentioning: "--key-file", files: [noise])
        // A plain database whose pages were overwritten.
        let path = try Fixtures.plainDatabase(in: directory)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        bytes.replaceSubrange(100..<4096, with: Data(repeating: 0xA5, count: 3996))
        try bytes.write(to: URL(fileURLWithPath: path))
        try expectFailure(["query", path, "Member"], status: 65, mentioning: path, files: [path])
    }

    @Test("a damaged, truncated or foreign change log: exit 65, the database unchanged")
    func corruptChangeLog() throws {
        let directory = try Fixtures.directory()
        let path = try Fixtures.plainDatabase(in: directory)
        let log = try Fixtures.peerChangeLog(in: directory)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: log))
        let truncated = directory.appendingPathComponent("truncated.sharklog").path
        try bytes.prefix(bytes.count - 10).write(to: URL(fileURLWithPath: truncated))
        bytes[bytes.count / 2] ^= 0x10
        let flipped = directory.appendingPathComponent("flipped.sharklog").path
        try bytes.write(to: URL(fileURLWithPath: flipped))
        for file in [truncated, flipped] {
            try expectFailure(["import", path, file], status: 65, mentioning: "damaged", files: [path, file])
            try expectFailure(["verify", file], status: 65, mentioning: "damaged", files: [file])
            try expectFailure(["inspect", file, "--json"], status: 65, mentioning: "damaged", files: [file])
        }
        let text = directory.appendingPathComponent("text.sharklog").path
        try Data("hello".utf8).write(to: URL(fileURLWithPath: text))
        try expectFailure(["import", path, text], status: 65, mentioning: "not a SharkORM change log", files: [path])
        // The one that fails stops the import; the earlier ones stay imported.
        try expectFailure(["import", path, log, flipped], status: 65, mentioning: "flipped.sharklog", files: [flipped])
    }

    @Test("an unknown entity or a malformed predicate: exit 64, naming what is wrong")
    func badQuery() throws {
        let directory = try Fixtures.directory()
        let path = try Fixtures.plainDatabase(in: directory)
        try expectFailure(
            ["query", path, "Planet"], status: 64, mentioning: "there are: Member, Team", files: [path])
        try expectFailure(
            ["query", path, "Member", "--where", "age >"], status: 64, mentioning: "offset", files: [path])
        try expectFailure(
            ["query", path, "Member", "--where", "age > 3; DROP TABLE Member"], status: 64, mentioning: ";",
            files: [path])
        try expectFailure(
            ["query", path, "Member", "--where", "shoe = 3"], status: 64, mentioning: "shoe", files: [path])
        try expectFailure(
            ["query", path, "Member", "--where", "age > ?", "old"], status: 64, mentioning: "an integer for age",
            files: [path])
        try expectFailure(
            ["query", path, "Member", "--where", "id = ?", "not-a-uuid"], status: 64, mentioning: "a UUID for id",
            files: [path])
        try expectFailure(
            ["query", path, "Member", "--where", "age > ?"], status: 64, mentioning: "argument", files: [path])
        try expectFailure(
            ["query", path, "Member", "--order", "age DESC,"], status: 64, mentioning: "offset", files: [path])
    }

    @Test("an existing output file is never replaced: exit 73")
    func existingOutput() throws {
        let directory = try Fixtures.directory()
        let path = try Fixtures.plainDatabase(in: directory)
        let other = try Fixtures.plainDatabase(in: directory, name: "other.sqlite")
        try expectFailure(
            ["encrypt", path, "-o", other], environment: ["SHARK_KEY": "k"], status: 73, mentioning: "exists",
            files: [path, other])
        try expectFailure(["export", path, "-o", other], status: 73, mentioning: "--force", files: [path, other])
    }
}

/// What a review of the first version found: each a case a user can hit.
@Suite("shark on awkward input")
struct AwkwardInputTests {
    @Test("command-line errors are one line too, with where to find help")
    func usageErrors() throws {
        for arguments in [["nope"], ["query"], ["query", "x.db"], ["info", "--bogus", "x.db"], ["encrypt", "a.db"]] {
            let result = try SharkProcess.run(arguments)
            #expect(result.status == 64, "\(arguments)")
            #expect(result.errorLines.count == 1, "\(arguments): \(result.error)")
            #expect(result.error.hasPrefix("shark: error: "), "\(arguments)")
            #expect(result.error.contains("--help"))
        }
        let help = try SharkProcess.run(["query", "--help"])
        #expect(help.status == 0)
        #expect(help.output.contains("Examples:"))
        let bench = try SharkProcess.run(["bench", "--help"])
        #expect(bench.status == 0)
        #expect(bench.output.contains("shark-bench"))
    }

    @Test("bench without shark-bench built says how to build it: exit 69")
    func benchUnavailable() throws {
        // A copy of shark outside any checkout, so that no shark-bench is found near it.
        let directory = try Fixtures.directory()
        let shark = directory.appendingPathComponent("shark")
        try FileManager.default.copyItem(at: SharkProcess.executable, to: shark)
        let result = try SharkProcess.run(
            ["bench", "--rows", "10"], environment: ["PATH": "/usr/bin:/bin"], in: directory, executable: shark)
        #expect(result.status == 69, "\(result.error)")
        #expect(result.errorLines.count == 1)
        #expect(result.error.contains("swift build -c release --package-path Benchmarks"))
    }

    @Test("bench finds the shark-bench of shark's own checkout from any directory")
    func benchFromAnyDirectory() throws {
        // A checkout's layout: shark in .build/debug, shark-bench (a stand-in script that
        // prints its arguments) in Benchmarks/.build/release.
        let checkout = try Fixtures.directory()
        let debug = checkout.appendingPathComponent(".build/debug")
        let release = checkout.appendingPathComponent("Benchmarks/.build/release")
        try FileManager.default.createDirectory(at: debug, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: release, withIntermediateDirectories: true)
        try Data("// swift-tools-version: 6.1\n".utf8).write(
            to: checkout.appendingPathComponent("Benchmarks/Package.swift"))
        let shark = debug.appendingPathComponent("shark")
        try FileManager.default.copyItem(at: SharkProcess.executable, to: shark)
        let benchmark = release.appendingPathComponent("shark-bench")
        try Data("#!/bin/sh\necho \"stand-in shark-bench $*\"\n".utf8).write(to: benchmark)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: benchmark.path)

        let elsewhere = try Fixtures.directory()
        let result = try SharkProcess.run(
            ["bench", "--rows", "10"], environment: ["PATH": "/usr/bin:/bin"], in: elsewhere, executable: shark)
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output == "stand-in shark-bench --rows 10\n")

        // Without it, the way to build it names that checkout's Benchmarks package.
        try FileManager.default.removeItem(at: benchmark)
        let missing = try SharkProcess.run(
            ["bench", "--rows", "10"], environment: ["PATH": "/usr/bin:/bin"], in: elsewhere, executable: shark)
        #expect(missing.status == 69)
        #expect(
            missing.error.contains(
                "--package-path \(checkout.appendingPathComponent("Benchmarks").standardizedFileURL.path)"))
    }

    @Test("export refuses to write over the database it reads")
    func exportOverItself() throws {
        let directory = try Fixtures.directory()
        let path = try Fixtures.plainDatabase(in: directory)
        let before = try DiskState(of: path)
        let result = try SharkProcess.run(["export", path, "-o", path, "--force"])
        #expect(result.status == 64)
        #expect(result.error.contains("is the database itself"))
        let link = directory.appendingPathComponent("link.sqlite").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: path)
        let viaLink = try SharkProcess.run(["export", link, "-o", path + "-wal", "--force"])
        #expect(viaLink.status == 64)
        var after = try DiskState(of: path)
        after.siblings.removeAll { $0 == "link.sqlite" }
        #expect(after == before)
    }

    @Test("import checks the database and every file before it writes anything")
    func importChecksFirst() throws {
        let directory = try Fixtures.directory()
        let path = directory.appendingPathComponent("never-synced.sqlite").path
        let store = try Store(.sqlite(path: path))
        try store.commit(Team(id: "t", title: "T"))
        store.close()
        let log = try Fixtures.peerChangeLog(in: directory)
        let before = try DiskState(of: path)
        let result = try SharkProcess.run(["import", path, log])
        #expect(result.status == 64, "\(result.error)")
        #expect(result.error.contains("never synced"))
        #expect(try DiskState(of: path) == before)
    }

    @Test("the cipher page size is one shark can open again")
    func pageSize() throws {
        let directory = try Fixtures.directory()
        let path = try Fixtures.plainDatabase(in: directory)
        for size in ["8192", "1000", "999999999999"] {
            let result = try SharkProcess.run(
                ["encrypt", path, "-o", directory.appendingPathComponent("x").path, "--page-size", size],
                environment: ["SHARK_KEY": "k"])
            #expect(result.status == 64, "\(size): \(result.error)")
        }
        let small = directory.appendingPathComponent("small.encrypted").path
        let result = try SharkProcess.run(
            ["encrypt", path, "-o", small, "--page-size", "1024"], environment: ["SHARK_KEY": "k"])
        #expect(result.status == 0, "\(result.error)")
        let info = try SharkProcess.run(["info", small, "--json"], environment: ["SHARK_KEY": "k"])
        #expect(info.status == 0, "\(info.error)")
    }

    @Test("encrypt and decrypt leave a source with a live write-ahead log alone")
    func liveSource() throws {
        let directory = try Fixtures.directory()
        let path = try Fixtures.plainDatabase(in: directory)
        let writer = try Store(.sqlite(path: path))
        defer { writer.close() }
        try writer.commit(Team(id: "late", title: "Late"))
        let before = try DiskState(of: path)
        let result = try SharkProcess.run(
            ["encrypt", path, "-o", directory.appendingPathComponent("copy").path], environment: ["SHARK_KEY": "k"])
        #expect(result.status == 75, "\(result.error)")
        #expect(result.error.contains("write-ahead log"))
        #expect(try DiskState(of: path) == before)
    }

    @Test("a link to a database read while its writer is live shows the writer's commits")
    func linkToLiveDatabase() throws {
        let directory = try Fixtures.directory()
        let path = try Fixtures.plainDatabase(in: directory)
        let link = directory.appendingPathComponent("link.sqlite").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: path)
        let writer = try Store(.sqlite(path: path))
        defer { writer.close() }
        try writer.commit(Team(id: "late", title: "Late"))
        let result = try SharkProcess.run(["query", link, "Team", "--where", "id = ?", "late", "--json"])
        #expect(result.status == 0, "\(result.error)")
        #expect((try JSONSerialization.jsonObject(with: result.outputData) as? [Any])?.count == 1)
        let info = try SharkProcess.run(["info", link, "--json"])
        let size = try #require(try JSONSerialization.jsonObject(with: info.outputData) as? [String: Any])["bytes"]
        #expect((size as? Int ?? 0) > 4096)
    }

    @Test("a rollback-journal database reads with no side file left")
    func rollbackJournal() throws {
        let directory = try Fixtures.directory()
        let path = try Fixtures.plainDatabase(in: directory)
        let store = try Store(.sqlite(path: path))
        _ = try store.execute("PRAGMA journal_mode = DELETE")
        store.close()
        let before = try DiskState(of: path)
        let result = try SharkProcess.run(["info", path, "--json", "--check"])
        #expect(result.status == 0, "\(result.error)")
        let object = try #require(try JSONSerialization.jsonObject(with: result.outputData) as? [String: Any])
        #expect(object["journalMode"] as? String == "rollback")
        #expect(try DiskState(of: path) == before)
    }
}

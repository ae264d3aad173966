import Foundation
@_spi(SharkDriver) import SharkORM
import SharkTestSupport
import Synchronization
import Testing

@testable import SharkPostgres

@Model
final class PostgresNote {
    var id: Int64 = 0
    var title: String = ""

    init(title: String) { self.title = title }
}

/// The driver's own behaviour, beyond the conformance suite: how it connects (passwords,
/// TLS rules, the Unix socket) and the rules docs/values.md sets for PostgreSQL alone.
@Suite("PostgreSQL driver")
struct PostgresDriverTests {
    /// A store in a new schema of the test server, dropped when it closes.
    func makeStore(_ change: (inout PostgresSettings) -> Void = { _ in }) throws -> Store {
        var settings = try PostgresTestServer.settings(schema: PostgresTestServer.uniqueSchema(), dropsSchema: true)
        change(&settings)
        return try Store(.postgres(settings))
    }

    @Test("plaintext is refused for a host that is not this machine, before connecting")
    func plaintextRefused() throws {
        #expect(throws: PostgresError.insecureConnection(host: "db.example.com")) {
            _ = try Store(.postgres(host: "db.example.com", database: "app", user: "app", tls: .disabled))
        }
        #expect(throws: PostgresError.insecureConnection(host: "10.0.0.7")) {
            _ = try Store(.postgres(host: "10.0.0.7", database: "app", user: "app", tls: .disabled))
        }
        for host in ["localhost", "127.0.0.1", "127.1.2.3", "::1", "[::1]"] {
            #expect(PostgresSettings.isLoopback(host), "\(host)")
        }
        for host in ["127.0.0.1.example.com", "128.0.0.1", "localhost.example.com", "0.0.0.0"] {
            #expect(!PostgresSettings.isLoopback(host), "\(host)")
        }
    }

    @Test("the password comes from a file, the environment or a password file, and a wrong one is refused")
    func passwords() throws {
        let store = try makeStore()
        try store.commit(PostgresNote(title: "by file"))
        #expect(try PostgresNote.query(in: store).count() == 1)
        store.close()

        // A variable that is not set: a typed error naming the source, before any connection.
        #expect {
            _ = try makeStore { $0.password = .environment("SHARK_TEST_NO_SUCH_VARIABLE") }
        } throws: { error in
            guard case PostgresError.passwordUnavailable(let source, _) = error else { return false }
            return source.contains("SHARK_TEST_NO_SUCH_VARIABLE")
        }

        // A wrong password: the server refuses, and the store says so.
        let wrong = FileManager.default.temporaryDirectory.appendingPathComponent("shark-wrong-\(UUID())").path
        try "not the password\n".write(toFile: wrong, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: wrong) }
        #expect {
            _ = try makeStore { $0.password = .file(wrong) }
        } throws: { error in
            guard case PostgresError.connectionFailed(let reason) = error else { return false }
            return reason.contains("28P01")
        }
    }

    @Test("a password file: matching lines, wildcards, escapes, and one others can read is refused")
    func passwordFile() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("shark-pgpass-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("pgpass").path
        let lines = [
            "# a comment", "other:5432:app:app:wrong", "db.example.com:5432:app:app:right\\:one",
            "*:*:*:admin:star",
        ]
        try lines.joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
        let found = try PasswordFile.password(
            in: path, hosts: ["db.example.com"], port: 5432, database: "app", user: "app", source: "test")
        #expect(found == "right:one")
        let star = try PasswordFile.password(
            in: path, hosts: ["anywhere"], port: 6000, database: "x", user: "admin", source: "test")
        #expect(star == "star")
        #expect(throws: PostgresError.self) {
            try PasswordFile.password(in: path, hosts: ["nowhere"], port: 1, database: "x", user: "y", source: "test")
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
        #expect {
            try PasswordFile.password(
                in: path, hosts: ["db.example.com"], port: 5432, database: "app", user: "app", source: "test")
        } throws: { error in
            guard case PostgresError.passwordUnavailable(_, let reason) = error else { return false }
            return reason.contains("chmod 600")
        }
    }

    @Test("the Unix socket form connects to the same server")
    func unixSocket() throws {
        let socket = try #require(PostgresTestServer.socket)
        let folder = (socket as NSString).deletingLastPathComponent
        let port = Int(socket.split(separator: ".").last.map(String.init) ?? "") ?? 5432
        let store = try makeStore { $0.endpoint = .socket(folder: folder, port: port) }
        defer { store.close() }
        try store.commit(PostgresNote(title: "through the socket"))
        #expect(try PostgresNote.query(in: store).fetch().map(\.title) == ["through the socket"])
    }

    @Test("a read-only store on a schema that does not exist is an error, and creates nothing")
    func readOnlyMissingSchema() throws {
        let schema = PostgresTestServer.uniqueSchema()
        #expect {
            _ = try Store(.postgres(try PostgresTestServer.settings(schema: schema, readOnly: true)))
        } throws: { error in
            guard case SharkError.fileNotFound(let path) = error else { return false }
            return path.contains(schema)
        }
        // Opened writable afterwards, it is empty: the read-only attempt made no schema.
        let store = try Store(.postgres(try PostgresTestServer.settings(schema: schema, dropsSchema: true)))
        defer { store.close() }
        #expect(try PostgresNote.query(in: store).count() == 0)
    }

    @Test("strings round-trip exactly, but one holding U+0000 is refused with nothing written")
    func strings() throws {
        let store = try makeStore()
        defer { store.close() }
        let texts = ["", "émoji 🦈 and 𠀀", String(repeating: "x", count: 1_000_000), "e\u{301} é"]
        try store.commit(texts.map { PostgresNote(title: $0) })
        let stored = try PostgresNote.query(in: store).orderBy(\.id).fetch().map(\.title)
        #expect(stored.map { Array($0.utf8) } == texts.map { Array($0.utf8) })
        #expect {
            try store.commit([PostgresNote(title: "fine"), PostgresNote(title: "nul \u{0} inside")])
        } throws: { error in
            guard case SharkError.invalidValue(let detail) = error else { return false }
            return detail.message.contains("U+0000")
        }
        #expect(try PostgresNote.query(in: store).count() == texts.count)
    }
}

/// TLS against the throw-away server, whose certificate (for localhost and 127.0.0.1) a
/// throw-away authority signed: verified connections accept it only with that authority and
/// the right name.
@Suite("PostgreSQL over TLS")
struct PostgresTLSTests {
    func settings(_ tls: PostgresTLS, host: String = "localhost") throws -> PostgresSettings {
        var settings = try PostgresTestServer.settings(schema: PostgresTestServer.uniqueSchema(), dropsSchema: true)
        guard case .tcp(_, let port) = settings.endpoint else { throw PostgresTestServer.Missing() }
        settings.endpoint = .tcp(host: host, port: port)
        settings.tls = tls
        return settings
    }

    @Test("the server's certificate, from the authority given, for the host connected to: accepted")
    func verified() throws {
        let authority = try #require(PostgresTestServer.certificateAuthority)
        let store = try Store(.postgres(try settings(.verified(certificateAuthority: authority))))
        defer { store.close() }
        try store.commit(PostgresNote(title: "over TLS"))
        #expect(try PostgresNote.query(in: store).count() == 1)
    }

    @Test("a certificate for another name, or from an authority not trusted: refused before anything is sent")
    func refused() throws {
        let authority = try #require(PostgresTestServer.certificateAuthority)
        func isRefusal(_ error: any Error) -> Bool {
            guard case PostgresError.connectionFailed = error else { return false }
            return true
        }
        let wrongName = try settings(.verified(certificateAuthority: authority, serverName: "db.example.com"))
        #expect(performing: { _ = try Store(.postgres(wrongName)) }, throws: isRefusal)
        let untrusted = try settings(.verified())  // the system's authorities only
        #expect(performing: { _ = try Store(.postgres(untrusted)) }, throws: isRefusal)
    }
}

@Model
final class PostgresTag {
    var id: Int64 = 0
    var name: String = ""

    static let indexes: [Index<PostgresTag>] = [.unique(\.name)]

    init(name: String) { self.name = name }
}

@Model
final class PostgresBareKey {
    var id: Int64 = 0

    init() {}
}

/// What PostgreSQL does unlike SQLite, and how the driver keeps the store's promises there.
@Suite("PostgreSQL transactions and statements")
struct PostgresStatementTests {
    func makeStore() throws -> Store {
        try Store(
            .postgres(try PostgresTestServer.settings(schema: PostgresTestServer.uniqueSchema(), dropsSchema: true)))
    }

    @Test("a failed statement the app caught aborts the transaction: COMMIT says so, nothing is stored")
    func abortedTransaction() throws {
        let store = try makeStore()
        defer { store.close() }
        try store.commit(PostgresTag(name: "taken"))
        let kept = PostgresTag(name: "new")
        #expect(throws: SharkError.self) {
            try store.write { tx in
                try tx.commit(kept)
                do { try tx.commit(PostgresTag(name: "taken")) } catch SharkError.uniqueConstraint {}
            }
        }
        #expect(try PostgresTag.query(in: store).fetch().map(\.name) == ["taken"])
        // Caught inside a savepoint, the failure leaves the transaction going, as on every driver.
        try store.write { tx in
            try tx.commit(PostgresTag(name: "also new"))
            do {
                try tx.transaction { inner in try inner.commit(PostgresTag(name: "taken")) }
            } catch SharkError.uniqueConstraint {}
        }
        #expect(try PostgresTag.query(in: store).orderBy(\.name).fetch().map(\.name) == ["also new", "taken"])
    }

    @Test("a model with nothing but its key: one row of defaults per insert, alone or in bulk")
    func bareKeys() throws {
        let store = try makeStore()
        defer { store.close() }
        let one = PostgresBareKey()
        try store.commit(one)
        try store.commit([PostgresBareKey(), PostgresBareKey()])
        #expect(one.id > 0)
        #expect(try PostgresBareKey.query(in: store).count() == 3)
    }

    @Test("64 rows or more in one insert are streamed with COPY, their keys taken from the sequence first")
    func bulkInsertsCopy() throws {
        let statements = Mutex<[String]>([])
        let settings = try PostgresTestServer.settings(schema: PostgresTestServer.uniqueSchema(), dropsSchema: true)
        let store = try Store(
            .postgres(settings).traced { event in statements.withLock { $0.append(event.statement) } })
        defer { store.close() }
        try store.commit((1...63).map { PostgresTag(name: "small \($0)") })
        #expect(!statements.withLock { $0 }.contains { $0.hasPrefix("COPY") })
        let tags = (1...64).map { PostgresTag(name: "large \($0)") }
        try store.commit(tags)
        let copies = statements.withLock { $0 }.filter { $0.hasPrefix("COPY") }
        #expect(copies == [#"COPY "PostgresTag" ("id", "name") FROM STDIN"#])
        #expect(tags.allSatisfy { $0.id > 63 })
        #expect(Set(tags.map(\.id)).count == 64)
        for tag in tags { #expect(try store.find(PostgresTag.self, id: tag.id)?.name == tag.name) }
        #expect(try PostgresTag.query(in: store).count() == 127)
        // Bare keys: COPY of the key column alone.
        try store.commit((1...100).map { _ in PostgresBareKey() })
        #expect(try PostgresBareKey.query(in: store).count() == 100)
    }

    @Test("a table under row-level security is written by INSERT, which it allows, not by COPY, which it refuses")
    func rowLevelSecurityInserts() throws {
        let statements = Mutex<[String]>([])
        let settings = try PostgresTestServer.settings(schema: PostgresTestServer.uniqueSchema(), dropsSchema: true)
        let store = try Store(
            .postgres(settings).traced { event in statements.withLock { $0.append(event.statement) } })
        defer { store.close() }
        try store.prepare(PostgresTag.self)
        // Forced, so that it binds the table's owner too: COPY FROM would fail.
        try store.execute(#"ALTER TABLE "PostgresTag" ENABLE ROW LEVEL SECURITY"#)
        try store.execute(#"ALTER TABLE "PostgresTag" FORCE ROW LEVEL SECURITY"#)
        try store.execute(#"CREATE POLICY everyone ON "PostgresTag" USING (true) WITH CHECK (true)"#)
        let tags = (1...100).map { PostgresTag(name: "guarded \($0)") }
        try store.commit(tags)
        #expect(!statements.withLock { $0 }.contains { $0.hasPrefix("COPY") })
        #expect(try PostgresTag.query(in: store).count() == 100)
        #expect(Set(tags.map(\.id)).count == 100)
    }

    @Test("a server error's code is PostgreSQL's number for its SQLSTATE, read back by sqlState(ofCode:)")
    func sqlStateCodes() throws {
        for state in ["42P01", "23505", "40001", "40P01", "25P02", "XX000", "57P01"] {
            #expect(PostgresError.sqlState(ofCode: PostgresError.code(ofSQLState: state)) == state)
        }
        #expect(PostgresError.code(ofSQLState: "42P01") != PostgresError.code(ofSQLState: "40000"))
    }
}

import Foundation
@_spi(SharkDriver) import SharkORM
import SharkTestSupport
import Testing

@testable import SharkPostgres

@Suite("PostgreSQL raw SQL text")
struct PostgresStatementTextTests {
    @Test("statements are counted as PostgreSQL's lexer counts them")
    func statements() {
        #expect(PostgresStatementText("SELECT 1").statements == ["SELECT 1"])
        #expect(PostgresStatementText("SELECT 1;  -- done\n ; /* really */").statements == ["SELECT 1"])
        #expect(PostgresStatementText("SELECT 1; SELECT 2").statements.count == 2)
        #expect(PostgresStatementText("   -- nothing\n /* at /* all */ */ ;;").statements.isEmpty)
        // Semicolons inside quotes, identifiers, dollar quotes and nested comments.
        for text in [
            "SELECT ';'", "SELECT E'\\';'", #"SELECT 1 AS ";""#, "SELECT $$;$$", "SELECT $body$ ; $$ ; $body$",
            "SELECT 1 /* ; /* ; */ ; */", "SELECT 'it''s; fine'",
        ] {
            #expect(PostgresStatementText(text).statements.count == 1, "\(text)")
        }
    }

    @Test("parameters are $n outside quotes and comments")
    func parameters() {
        #expect(PostgresStatementText("SELECT $1, $2").highestParameter == 2)
        #expect(PostgresStatementText("SELECT $3 -- $9").highestParameter == 3)
        #expect(PostgresStatementText("SELECT '$4', \"$5\", $$ $6 $$, $1").highestParameter == 1)
        #expect(PostgresStatementText("SELECT ? FROM t").highestParameter == 0)
        #expect(PostgresStatementText("SELECT a$1 FROM t").highestParameter == 0)  // a name with a dollar
        // Every character beyond ASCII is part of a name, as in PostgreSQL's lexer.
        #expect(PostgresStatementText("SELECT x€$1 FROM t").highestParameter == 0)
        #expect(PostgresStatementText(#"DROP TABLE IF EXISTS x€$q$, "Person", y$q$"#).names.contains("Person"))
    }

    @Test("transaction statements and names are recognised")
    func words() {
        for text in [
            "BEGIN", "begin work", "START TRANSACTION", "COMMIT", "end", "ROLLBACK TO s", "SAVEPOINT s",
            "RELEASE s", "ABORT", "PREPARE TRANSACTION 'x'", "/* c */ commit",
        ] {
            #expect(PostgresStatementText(text).controlsTransactions, "\(text)")
        }
        for text in ["SELECT 1", "PREPARE q AS SELECT 1", "UPDATE t SET \"begin\" = 1"] {
            #expect(!PostgresStatementText(text).controlsTransactions, "\(text)")
        }
        #expect(PostgresStatementText(#"DROP TABLE "Person", audit"#).names.isSuperset(of: ["Person", "audit"]))
        #expect(PostgresStatementText("DROP TABLE Person").names.contains("person"))
        // A line comment ends at either line break.
        #expect(PostgresStatementText("--x\rCOMMIT\nWORK").controlsTransactions)
        #expect(PostgresStatementText("--x\rDELETE FROM t /*\nSELECT 1 --*/").leadingWords.first == "DELETE")
    }
}

@Suite("PostgreSQL raw SQL")
struct PostgresRawSQLTests {
    @Test("arguments typed by where they stand; results of every common type")
    func values() throws {
        let store = try makeStore()
        defer { store.close() }
        try store.commit(PostgresNote(title: "first"))
        // Text compared with a bigint column, a UUID's text with a uuid.
        #expect(try store.rows(#"SELECT title FROM "PostgresNote" WHERE id = $1"#, "1").rows == [[.text("first")]])
        let uuid = UUID()
        #expect(try store.rows("SELECT $1::uuid", .text(uuid.uuidString)).rows == [[.blob(uuidBytes(uuid))]])
        let row = try store.rows(
            "SELECT 1::int2, 2::int4, 3::int8, 1.5::float4, 2.5::float8, true, 'x'::varchar, 'y'::char(1), "
                + #"'{"a":1}'::json, '{"b": 2}'::jsonb, 'b'::name, 12.50::numeric, '\x0102'::bytea, NULL, 'NaN'::float8"#
        ).rows
        let expected: [Value] = [
            .integer(1), .integer(2), .integer(3), .real(1.5), .real(2.5), .integer(1), .text("x"), .text("y"),
            .text(#"{"a":1}"#), .text(#"{"b": 2}"#), .text("b"), .text("12.5"), .blob(Data([1, 2])), .null, .null,
        ]
        #expect(row == [expected])
        // A type SharkORM does not read names the cast that reads it.
        #expect {
            _ = try store.rows("SELECT now() AS moment")
        } throws: { error in
            "\(error)".contains("moment::text")
        }
        #expect(try store.rows("SELECT now()::text").rows.count == 1)
        // A function that returns nothing (void) reads as NULL.
        #expect(try store.rows("SELECT pg_sleep(0)").rows == [[.null]])
    }

    @Test("what a write writes is learnt before it runs, DDL and data-changing WITH clauses included")
    func writtenEntities() async throws {
        let store = try makeStore()
        defer { store.close() }
        try store.commit(PostgresNote(title: "first"))
        try store.execute("CREATE TABLE audit (note text)")
        var events = store.events().makeAsyncIterator()
        #expect(
            try store.execute(#"WITH gone AS (DELETE FROM "PostgresNote" RETURNING id) SELECT count(*) FROM gone"#) == 0
        )
        #expect(await events.next()?.entities.keys.sorted() == ["PostgresNote"])
        try store.execute(#"ALTER TABLE "PostgresNote" ADD COLUMN extra text"#)
        #expect(await events.next()?.entities.keys.sorted() == ["PostgresNote"])
        #expect(try store.execute("INSERT INTO audit VALUES ($1), ($2)", "a", "b") == 2)
        #expect(await events.next()?.entities.keys.sorted() == ["audit"])
        #expect(
            try store.execute(
                #"MERGE INTO audit USING (SELECT 'c' AS v) AS s ON false WHEN NOT MATCHED THEN INSERT VALUES (s.v)"#)
                == 1)
        #expect(await events.next()?.entities.keys.sorted() == ["audit"])
        let notes: [[Value]] = [[.text("a")], [.text("b")], [.text("c")]]
        #expect(try store.rows("SELECT note FROM audit ORDER BY note").rows == notes)
        // A delete that cascades writes the tables whose foreign keys cascade.
        try store.execute("CREATE TABLE parent (id bigint PRIMARY KEY)")
        try store.execute("CREATE TABLE child (parent bigint REFERENCES parent ON DELETE CASCADE)")
        // DDL counts as writing the store's tables its text names: parent.
        #expect(await events.next()?.entities.keys.sorted() == ["parent"])
        try store.execute("INSERT INTO parent VALUES (1)")
        #expect(await events.next()?.entities.keys.sorted() == ["parent"])
        try store.execute("INSERT INTO child VALUES (1)")
        #expect(await events.next()?.entities.keys.sorted() == ["child"])
        #expect(try store.execute("DELETE FROM parent") == 1)
        #expect(await events.next()?.entities.keys.sorted() == ["child", "parent"])
        // Code that no plan shows (DO, CALL) counts as writing every table.
        try store.execute("DO $$ BEGIN DELETE FROM audit; END $$")
        #expect(await events.next()?.entities.keys.sorted() == ["PostgresNote", "audit", "child", "parent"])
    }

    @Test("an empty result names its columns without running the query again")
    func emptyResults() throws {
        let store = try makeStore()
        defer { store.close() }
        try store.execute("CREATE TABLE audit (note text)")
        try store.execute(
            "CREATE FUNCTION note_once() RETURNS TABLE (noted bigint) LANGUAGE plpgsql AS "
                + "$$ BEGIN INSERT INTO audit VALUES ('called'); END $$")
        let result = try store.write { _ in try store.rows("SELECT * FROM note_once()") }
        #expect(result == RawResult(columns: ["noted"], rows: [], changes: 0))
        #expect(try store.execute("SELECT * FROM note_once()") == 0)
        #expect(try store.rows("SELECT count(*) FROM audit").rows == [[.integer(2)]])
        // A column named like the probe's is the statement's own.
        #expect(try store.rows("SELECT 1 AS shark_probe, 2 AS b").rows == [[.integer(1), .integer(2)]])
    }

    @Test("transactions are the store's: BEGIN, COMMIT and savepoints are refused")
    func transactionStatements() throws {
        let store = try makeStore()
        defer { store.close() }
        try store.commit(PostgresNote(title: "first"))
        try store.write { _ in
            for statement in ["COMMIT", "ROLLBACK", "BEGIN", "SAVEPOINT s", "RELEASE s"] {
                #expect {
                    try store.execute(statement)
                } throws: { error in
                    guard case SharkError.invalidQuery(let detail) = error else { return false }
                    return detail.reason == .rawTransactionControl
                }
            }
            try store.commit(PostgresNote(title: "second"))
        }
        #expect(try PostgresNote.query(in: store).count() == 2)
        #expect {
            try store.execute("UPDATE \"PostgresNote\" SET title = ?", "x")
        } throws: { error in
            "\(error)".contains("$1")
        }
    }

    /// A store in a new schema of the test server, dropped when it closes.
    private func makeStore() throws -> Store {
        try Store(
            .postgres(try PostgresTestServer.settings(schema: PostgresTestServer.uniqueSchema(), dropsSchema: true)))
    }

    private func uuidBytes(_ uuid: UUID) -> Data { withUnsafeBytes(of: uuid.uuid) { Data($0) } }
}

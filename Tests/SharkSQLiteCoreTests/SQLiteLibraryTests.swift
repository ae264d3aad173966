import CSQLite
import Foundation
@_spi(SharkDriver) import SharkORM
import Testing

@testable import SharkSQLite
@testable import SharkSQLiteCore

@Suite("The SQLite function table and its loader")
struct SQLiteLibraryTests {
    @Test("the linked system SQLite fills every required entry")
    func systemLibrary() {
        let library = SystemSQLite.library
        #expect(library.versionNumber >= 3_015_000)
        #expect(library.version.hasPrefix("3."))
        #expect(library.api.pointee.open_v2 != nil && library.api.pointee.step != nil)
        #expect(library.api.pointee.key == nil)  // plain SQLite has no sqlite3_key
    }

    @Test("loading a library that does not exist fails with a message")
    func missingLibrary() {
        var api = shark_sqlite3_api()
        var message = [CChar](repeating: 0, count: 512)
        let code = shark_sqlite3_api_load("/nonexistent/libnothing.so", 1, &api, &message, message.count)
        #expect(code != 0)
        #expect(text(message).contains("cannot load"))
    }

    @Test("a library without the sqlite3 symbols is refused")
    func notSQLite() {
        var api = shark_sqlite3_api()
        var message = [CChar](repeating: 0, count: 512)
        let code = shark_sqlite3_api_load("libz.so.1", 1, &api, &message, message.count)
        #expect(code != 0)
        #expect(text(message).contains("has no symbol sqlite3_"))
    }

    @Test("feature levels follow the version number")
    func features() {
        let cipher = SQLiteFeatures(versionNumber: 3_015_002)
        #expect(!cipher.hasPrepareV3 && !cipher.hasUpsert && !cipher.hasDropColumn && !cipher.hasReturning)
        let modern = SQLiteFeatures(versionNumber: 3_040_001)
        #expect(modern.hasPrepareV3 && modern.hasUpsert && modern.hasRenameColumn && modern.hasDropColumn)
        #expect(modern.canRefuseDoubleQuotedStrings && !cipher.canRefuseDoubleQuotedStrings)
    }
}

@Suite("SQL generation")
struct SQLGenerationTests {
    @Test("values are bound, never spliced into the text")
    func valuesAreBound() {
        var compiler = QueryCompiler()
        let sql = compiler.compile(
            .and([
                .comparison(.greaterOrEqual, .column("age"), .value(.integer(18))),
                .like(.column("name"), .value(.text("x'; DROP TABLE t; --"))),
            ]))
        #expect(sql == "((\"age\" >= ?) AND (\"name\" LIKE ?))")
        #expect(compiler.arguments == [.integer(18), .text("x'; DROP TABLE t; --")])
    }

    @Test("identifiers are quoted")
    func identifiers() {
        #expect(SQLText.identifier("we\"ird") == "\"we\"\"ird\"")
    }

    @Test("DDL literals escape quotes and render blobs in hex")
    func literals() {
        #expect(SQLText.literal(.text("it's")) == "'it''s'")
        #expect(SQLText.literal(.blob(Data([0, 255]))) == "X'00FF'")
        #expect(SQLText.literal(.null) == "NULL")
    }

    @Test("select ends with the key so ties are deterministic; limit and offset are bound")
    func select() {
        let schema = EntitySchema(
            name: "Person", keyKind: .autoIncrement,
            columns: [
                ColumnSchema(name: "id", type: .integer, isNullable: false),
                ColumnSchema(name: "age", type: .integer, isNullable: false),
            ])
        var query = EntityQuery(entity: "Person")
        query.ordering = [Ordering(.column("age"), ascending: false)]
        query.limit = 10
        query.offset = 5
        var compiler = QueryCompiler()
        let statements = EntityStatements(schema)
        let sql = compiler.select(query, statements: statements, columns: statements.selectColumns)
        #expect(sql == "SELECT \"id\", \"age\" FROM \"Person\" ORDER BY \"age\" DESC, \"id\" LIMIT ? OFFSET ?")
        #expect(compiler.arguments == [.integer(10), .integer(5)])
    }

    @Test("constraint messages are parsed into entity and columns")
    func constraintMessages() {
        let (table, columns) = SQLiteErrors.constrainedColumns(in: "UNIQUE constraint failed: Person.a, Person.b")
        #expect(table == "Person" && columns == ["a", "b"])
    }
}

/// The NUL-terminated message the loader wrote.
private func text(_ buffer: [CChar]) -> String {
    String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

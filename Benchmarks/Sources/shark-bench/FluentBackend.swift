import FluentKit
import FluentPostgresDriver
import Foundation
import Logging
import NIOCore
import NIOPosix
import PostgresKit
@_spi(SharkDriver) import SharkORM

/// The workloads through Fluent 4 (FluentKit with its PostgreSQL driver) as a Swift server
/// app without Vapor uses it: `Databases(threadPool:on:)`, one database, the models' async
/// API, one connection (the other backends have one writer too). Its async calls run on a
/// `SuspendingDriverExecutor`, one wait per workload, like the raw baseline's.
final class FluentBackend: Backend {
    let server: PostgresBenchServer
    let schema = PostgresBenchServer.freshSchema()
    let executor = SuspendingDriverExecutor(name: "Fluent")
    private let databases: Databases
    let database: any Database
    private var prepared: [FluentRow10] = []
    private var fetched: [FluentRow10] = []

    init(server: PostgresBenchServer) throws {
        self.server = server
        let databases = Databases(threadPool: .singleton, on: MultiThreadedEventLoopGroup.singleton)
        var configuration = SQLPostgresConfiguration(
            hostname: server.host, port: server.port, username: server.user, password: try server.password,
            database: server.database, tls: .disable)
        configuration.searchPath = [schema]
        databases.use(.postgres(configuration: configuration, maxConnectionsPerEventLoop: 1), as: .psql)
        self.databases = databases
        var logger = Logger(label: "shark-bench Fluent")
        logger.logLevel = .critical
        database = databases.database(.psql, logger: logger, on: databases.eventLoopGroup.any())!
        let database = self.database
        let schema = self.schema
        do {
            try Self.createTables(database: database, schema: schema, executor: executor)
        } catch {
            // Shut down, or the connection pool traps when it is released.
            _ = try? executor.wait { await databases.shutdownAsync() }
            server.dropSchema(schema, on: executor)
            executor.shutdown()
            throw error
        }
    }

    /// Creates the schema and Fluent's table of `Row10` in it.
    private static func createTables(database: any Database, schema: String, executor: SuspendingDriverExecutor)
        throws
    {
        try executor.wait {
            let sql = database as! any SQLDatabase
            try await sql.raw("CREATE SCHEMA \(unsafeRaw: schema)").run()
            // Fluent's own types: a Date is a timestamptz, text compares by the database's collation.
            try await database.schema(FluentRow10.schema)
                .field("id", .int64, .identifier(auto: true))
                .field("a", .int64, .required).field("b", .int64, .required)
                .field("c", .double, .required).field("d", .double, .required)
                .field("e", .string, .required).field("f", .string, .required)
                .field("g", .bool, .required).field("h", .int64, .required)
                .field("i", .string).field("j", .datetime, .required)
                .create()
            try await sql.create(index: "row10_a").on(FluentRow10.schema).column("a").run()
        }
    }

    /// Runs `body` with the database on the executor's thread, blocking until it is done.
    func run<T: Sendable>(_ body: @escaping @Sendable (any Database) async throws -> T) throws -> T {
        let database = self.database
        do {
            return try executor.wait { try await body(database) }
        } catch {
            // Fluent's errors describe themselves only when reflected.
            throw BenchError.wrongResult("Fluent: \(String(reflecting: error))")
        }
    }

    func prepareInsert(_ rows: [InputRow]) {
        prepared = rows.map(FluentRow10.init)
    }

    func insert(_ rows: [InputRow]) throws {
        let prepared = self.prepared
        try run { database in
            try await database.transaction { transaction in
                // One INSERT a chunk: PostgreSQL takes at most 65,535 parameters a statement.
                var start = 0
                while start < prepared.count {
                    let end = min(start + 5_000, prepared.count)
                    try await Array(prepared[start..<end]).create(on: transaction)
                    start = end
                }
            }
        }
    }

    func fetchAll() throws -> Int {
        fetched = try run { database in try await FluentRow10.query(on: database).all() }
        return fetched.count
    }

    func ranges(_ starts: [Int], width: Int) throws -> Int {
        try run { database in
            var rows = 0
            for start in starts {
                rows += try await FluentRow10.query(on: database)
                    .filter(\.$a >= start).filter(\.$a <= start + width - 1).all().count
            }
            return rows
        }
    }

    func updateAll() throws {
        for object in fetched { object.b = InputRow.updatedB(a: object.a) }
        let fetched = self.fetched
        try run { database in
            try await database.transaction { transaction in
                for object in fetched { try await object.update(on: transaction) }
            }
        }
    }

    func lookups(_ keys: [Int64]) throws -> Int {
        try run { database in
            var found = 0
            for key in keys where try await FluentRow10.find(key, on: database) != nil { found += 1 }
            return found
        }
    }

    func queries(_ values: [Int]) throws -> Int {
        try run { database in
            var rows = 0
            for value in values { rows += try await FluentRow10.query(on: database).filter(\.$a == value).all().count }
            return rows
        }
    }

    func sumOfH() throws -> Int64 {
        // `sum(\.$h)` throws on PostgreSQL: sum(bigint) is a numeric, which does not decode as
        // Int64. What a Fluent app writes instead: the sum as a Decimal.
        try run { database in
            let sum = try await FluentRow10.query(on: database).aggregate(.sum, \.$h, as: Decimal?.self)
            return Int64(truncating: (sum ?? 0) as NSDecimalNumber)
        }
    }

    func prepareJoin(members: Int, teams: Int) throws {
        try run { database in
            try await database.schema(FluentTeam.schema)
                .field("id", .int64, .identifier(auto: true)).field("name", .string, .required).create()
            try await database.schema(FluentMember.schema)
                .field("id", .int64, .identifier(auto: true)).field("name", .string, .required)
                .field("team", .int64).create()
            // Keys given: a batch create does not read back the keys the database chose.
            let stored = (0..<teams).map { FluentTeam(id: Int64($0 + 1), name: "team \($0)") }
            try await stored.create(on: database)
            var start = 0
            while start < members {
                let end = min(start + 5_000, members)
                let chunk = (start..<end).map { FluentMember(name: "member \($0)", team: stored[$0 % teams].id) }
                try await chunk.create(on: database)
                start = end
            }
        }
    }

    func joinPages(_ starts: [Int64], width: Int) throws -> Int {
        try run { database in
            var loaded = 0
            for start in starts {
                let page = try await FluentMember.query(on: database)
                    .filter(\.$id >= start).filter(\.$id <= start + Int64(width) - 1)
                    .with(\.$team).all()
                for member in page where member.team != nil { loaded += 1 }
            }
            return loaded
        }
    }

    func removeEveryOther() throws -> Int {
        let doomed = stride(from: 0, to: fetched.count, by: 2).map { fetched[$0] }
        try run { database in
            try await database.transaction { transaction in
                for object in doomed { try await object.delete(on: transaction) }
            }
        }
        return doomed.count
    }

    func close() {
        let databases = self.databases
        _ = try? executor.wait { await databases.shutdownAsync() }
        server.dropSchema(schema, on: executor)
        executor.shutdown()
    }
}

/// Row10 as a Fluent model.
final class FluentRow10: FluentKit.Model, @unchecked Sendable {
    static let schema = "row10"

    @ID(custom: "id") var id: Int64?
    @Field(key: "a") var a: Int
    @Field(key: "b") var b: Int
    @Field(key: "c") var c: Double
    @Field(key: "d") var d: Double
    @Field(key: "e") var e: String
    @Field(key: "f") var f: String
    @Field(key: "g") var g: Bool
    @Field(key: "h") var h: Int64
    @OptionalField(key: "i") var i: String?
    @Field(key: "j") var j: Date

    init() {}

    init(_ row: InputRow) {
        a = row.a
        b = row.b
        c = row.c
        d = row.d
        e = row.e
        f = row.f
        g = row.g
        h = row.h
        i = row.i
        j = row.j
    }
}

/// A team and its members, for J.
final class FluentTeam: FluentKit.Model, @unchecked Sendable {
    static let schema = "team"

    @ID(custom: "id") var id: Int64?
    @Field(key: "name") var name: String

    init() {}

    init(id: Int64, name: String) {
        self.id = id
        self.name = name
    }
}

final class FluentMember: FluentKit.Model, @unchecked Sendable {
    static let schema = "member"

    @ID(custom: "id") var id: Int64?
    @Field(key: "name") var name: String
    @OptionalParent(key: "team") var team: FluentTeam?

    init() {}

    init(name: String, team: Int64?) {
        self.name = name
        self.$team.id = team
    }
}

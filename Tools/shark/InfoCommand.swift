import ArgumentParser
import Foundation
import SharkORM
import SharkSQLCipher
import SharkSQLite
import SharkSync

/// `shark info DB`: what a database holds and how it is stored.
struct InfoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Show a database's driver, versions, entities, indexes and sync state.",
        discussion: """
            Examples:
              shark info app.sqlite
              shark info vault.sqlite --key-file vault.key --check
              SHARK_KEY=… shark info vault.sqlite --json | jq '.entities[].rows'
              shark info "postgresql://app@db.internal/app?schema=app&sslrootcert=ca.pem" --password-file pw

            Opens the file (or the PostgreSQL schema) read-only. With --check, also runs SQLite's \
            integrity check and exits with 1 when it finds problems.
            """)

    @OptionGroup var database: DatabaseOptions

    @Flag(help: "Run an integrity check too (reads every page).")
    var check = false

    @Flag(help: "Print JSON for scripts.")
    var json = false

    func run() throws {
        var intact = true
        try reportingFailures {
            let store = try database.open()
            defer { store.close() }
            let report = try withProgress(check ? "checking \(database.path)" : "reading \(database.path)") {
                try DatabaseReport(store: store, path: database.path, checksIntegrity: check)
            }
            Terminal.write(json ? report.json.rendered : report.text)
            intact = report.integrityProblems?.isEmpty ?? true
        }
        if !intact { throw ExitCode(1) }
    }
}

/// What `shark info` shows.
struct DatabaseReport {
    struct Entity {
        var schema: EntitySchema
        /// Nil when the table cannot be read (a damaged file, a table dropped by hand).
        var rows: Int?
        var isInternal: Bool
    }

    struct SyncState {
        var lineage: String
        var site: UUID
        var vector: VersionVector
    }

    var path: String
    var bytes: Int
    var driver: String
    /// The SQLite library's version; nil on PostgreSQL.
    var sqliteVersion: String?
    /// The server's version and the schema, on PostgreSQL.
    var server: (version: String, schema: String)?
    var cipher: CipherSettings?
    var pageSize: Int
    var pageCount: Int
    var journalMode: String?
    var entities: [Entity]
    /// The tables and views no recorded schema describes: another program's, and SQLite's and
    /// SharkORM's own bookkeeping (`ForeignTable.keeper`).
    var otherTables: [ForeignTable] = []
    var sync: SyncState?
    /// Why the sync state could not be read, when it could not.
    var syncProblem: String?
    var integrityProblems: [String]?
    /// What could not be read (the page count of a damaged file, a missing table).
    var readProblems: [String] = []

    init(store: Store, path: String, checksIntegrity: Bool) throws {
        self.path = path
        driver = store.driverName
        bytes = driver == "postgres" ? 0 : DatabaseFile.size(of: path)
        if driver == "postgres" {
            // What the server says of itself and of the schema: its files are its own.
            let about =
                try store.rows(
                    "SELECT current_setting('server_version'), current_schema()::text, coalesce(sum("
                        + "pg_total_relation_size(c.oid)), 0)::bigint FROM pg_class c JOIN pg_namespace n ON n.oid = "
                        + "c.relnamespace WHERE n.nspname = current_schema() AND c.relkind = 'r'"
                ).rows.first ?? []
            func text(_ index: Int) -> String {
                if index < about.count, case .text(let text) = about[index] { return text }
                return "?"
            }
            server = (text(0), text(1))
            bytes = Int(about.count > 2 ? about[2].coercedToInt64() : 0)
            if checksIntegrity {
                throw CommandFailure(
                    "--check runs SQLite's integrity check: PostgreSQL checks its own storage (its amcheck "
                        + "extension)", exitCode: CommandFailure.usage)
            }
        } else if driver == "sqlcipher" {
            let settings = try SQLCipher.settings(of: store)
            cipher = settings
            sqliteVersion = settings.sqliteVersion
        } else {
            sqliteVersion = SharkSQLite.sqliteVersion
        }
        // Past opening, what cannot be read is reported and the rest still shown: a damaged
        // file is what `--check` is for.
        var problems: [String] = []
        func integer(_ sql: String, _ what: String) -> Int? {
            do {
                return Int(try store.rows(sql).rows.first?.first?.coercedToInt64() ?? 0)
            } catch {
                problems.append("\(what): \(CommandFailure(describing: error).message)")
                return nil
            }
        }
        if server == nil {
            pageSize = integer("PRAGMA page_size", "page size") ?? 0
            pageCount = integer("PRAGMA page_count", "page count") ?? 0
            journalMode = DatabaseFile.journalMode(of: path)
        } else {
            pageSize = 0
            pageCount = 0
            journalMode = nil
        }
        var schemas: [EntitySchema] = []
        do {
            schemas = try store.recordedSchemas()
        } catch {
            problems.append("the recorded schemas: \(CommandFailure(describing: error).message)")
        }
        entities = schemas.map { schema in
            let quoted = "\"" + schema.name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
            return Entity(
                schema: schema, rows: integer("SELECT count(*) FROM \(quoted)", "the rows of \(schema.name)"),
                isInternal: schema.name.hasPrefix("SharkSync") || schema.name.hasPrefix("_shark_"))
        }
        do {
            // Read from SQLite's catalog: on PostgreSQL, only the models' tables are shown.
            if server == nil { otherTables = try ForeignTable.all(in: store, excluding: Set(schemas.map(\.name))) }
        } catch {
            problems.append("the tables no model describes: \(CommandFailure(describing: error).message)")
        }
        if entities.contains(where: { $0.schema.name == "SharkSyncSite" }) {
            do {
                let engine = try SyncEngine(recordedIn: store)
                sync = SyncState(lineage: engine.lineage, site: engine.site, vector: try engine.versionVector())
            } catch {
                syncProblem = CommandFailure(describing: error).message
            }
        }
        if checksIntegrity {
            integrityProblems = try store.checkIntegrity().problems
        }
        readProblems = problems
    }

    var text: String {
        var lines: [String] = []
        func field(_ name: String, _ value: String) {
            lines.append(name.padding(toLength: 12, withPad: " ", startingAt: 0) + value)
        }
        if let server {
            field("database", "\(path) (schema \(server.schema), \(Readable.bytes(bytes)))")
            field("driver", "postgres (PostgreSQL \(server.version))")
        } else {
            field("file", "\(path) (\(Readable.bytes(bytes)))")
            let sqlite = sqliteVersion ?? ""
            if let cipher {
                field("driver", "sqlcipher (SQLCipher \(cipher.cipherVersion), SQLite \(sqlite))")
                field(
                    "cipher",
                    "\(cipher.cipher), \(cipher.pageSize)-byte pages, \(cipher.kdfIterations) KDF iterations"
                        + (cipher.usesHMAC ? ", HMAC" : ", no HMAC"))
            } else {
                field("driver", "sqlite (SQLite \(sqlite))")
            }
            field("pages", "\(pageCount) of \(pageSize) bytes")
        }
        if let journalMode { field("journal", journalMode) }
        let visible = entities.filter { !$0.isInternal }
        field("entities", visible.isEmpty ? "none" : "\(visible.count)")
        for entity in visible {
            lines.append("")
            lines += Self.describe(entity)
        }
        let tables = otherTables.filter { $0.kind == .table && ForeignTable.keeper(of: $0.name) == nil }
        let views = otherTables.filter { $0.kind == .view }
        let bookkeeping = otherTables.filter { $0.kind == .table && ForeignTable.keeper(of: $0.name) != nil }
        for (title, group) in [("tables", tables), ("views", views)] where !group.isEmpty {
            lines.append("")
            field(title, "\(group.count), no model describes \(group.count == 1 ? "it" : "them")")
            for table in group {
                lines.append("")
                lines += table.described
            }
        }
        if !bookkeeping.isEmpty {
            lines.append("")
            field(
                "internal",
                bookkeeping.map {
                    "\($0.name) (\(ForeignTable.keeper(of: $0.name) ?? "")) \($0.rows.map(String.init) ?? "?") rows"
                }
                .joined(separator: ", "))
        }
        if let sync {
            lines.append("")
            field("sync", "lineage \(sync.lineage), site \(sync.site.uuidString)")
            let metadata = entities.filter(\.isInternal).map { "\($0.schema.name) \($0.rows.map(String.init) ?? "?")" }
            field("  metadata", metadata.joined(separator: ", ") + " rows")
            for site in sync.vector.entries.keys.sorted(by: { $0.uuidString < $1.uuidString }) {
                field("  seen", "\(site.uuidString): \(sync.vector[site])" + (site == sync.site ? " (this store)" : ""))
            }
        } else if let syncProblem {
            lines.append("")
            field("sync", "unreadable: \(syncProblem)")
        }
        if !readProblems.isEmpty {
            lines.append("")
            field("unreadable", readProblems.joined(separator: "; "))
        }
        if let integrityProblems {
            lines.append("")
            field("integrity", integrityProblems.isEmpty ? "ok" : "\(integrityProblems.count) problem(s)")
            lines += integrityProblems.map { "  " + $0 }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private static func describe(_ entity: Entity) -> [String] {
        let schema = entity.schema
        let rows = entity.rows.map { "\($0) row\($0 == 1 ? "" : "s")" } ?? "rows unreadable"
        var lines = ["\(schema.name)  \(rows), key \(schema.key.name) (\(schema.keyKind.rawValue))"]
        var table = TextTable(headers: ["column", "storage", "type", "null", "default", "refers to"])
        for column in schema.columns {
            table.append(
                [
                    column.name, column.type.rawValue, column.logicalType?.rawValue ?? "",
                    column.isNullable ? "yes" : "no",
                    column.defaultValue.map { ShownValue($0, column: column).text } ?? "",
                    column.relationship.map { "\($0.target)" } ?? "",
                ].map { (text: $0, isNumber: false) })
        }
        lines += table.rendered.split(separator: "\n").map { "  " + $0 }
        for index in schema.indexes {
            lines.append(
                "  index \(index.name) on \(index.columns.joined(separator: ", "))"
                    + (index.isUnique ? " (unique)" : ""))
        }
        return lines
    }

    var json: JSONText {
        var members: [(String, JSONText)] = [
            ("path", .string(path)), ("bytes", .integer(bytes)), ("driver", .string(driver)),
            ("sqliteVersion", sqliteVersion.map(JSONText.string) ?? .null),
            ("serverVersion", server.map { .string($0.version) } ?? .null),
            ("schema", server.map { .string($0.schema) } ?? .null),
        ]
        if let cipher {
            members.append(
                (
                    "cipher",
                    .object([
                        ("version", .string(cipher.cipherVersion)), ("cipher", .string(cipher.cipher)),
                        ("pageSize", .integer(cipher.pageSize)), ("kdfIterations", .integer(cipher.kdfIterations)),
                        ("hmac", .bool(cipher.usesHMAC)),
                    ])
                ))
        } else {
            members.append(("cipher", .null))
        }
        members += [
            ("pageSize", server == nil ? .integer(pageSize) : .null),
            ("pageCount", server == nil ? .integer(pageCount) : .null),
            ("journalMode", journalMode.map(JSONText.string) ?? .null),
            ("entities", .array(entities.map(Self.json))),
            ("tables", .array(otherTables.map(\.json))),
        ]
        if let sync {
            members.append(
                (
                    "sync",
                    .object([
                        ("lineage", .string(sync.lineage)), ("site", .string(sync.site.uuidString)),
                        ("vector", VectorText.json(sync.vector)),
                    ])
                ))
        } else {
            members.append(("sync", syncProblem.map { .object([("error", .string($0))]) } ?? .null))
        }
        members.append(("unreadable", .array(readProblems.map(JSONText.string))))
        if let integrityProblems {
            members.append(
                (
                    "integrity",
                    .object([
                        ("ok", .bool(integrityProblems.isEmpty)),
                        ("problems", .array(integrityProblems.map(JSONText.string))),
                    ])
                ))
        }
        return .object(members)
    }

    private static func json(_ entity: Entity) -> JSONText {
        let schema = entity.schema
        return .object([
            ("name", .string(schema.name)), ("rows", entity.rows.map(JSONText.integer) ?? .null),
            ("keyKind", .string(schema.keyKind.rawValue)),
            ("internal", .bool(entity.isInternal)),
            (
                "columns",
                .array(
                    schema.columns.map { column in
                        .object([
                            ("name", .string(column.name)), ("storage", .string(column.type.rawValue)),
                            ("type", column.logicalType.map { .string($0.rawValue) } ?? .null),
                            ("nullable", .bool(column.isNullable)),
                            ("default", column.defaultValue.map { ShownValue($0, column: column).json } ?? .null),
                            ("refersTo", column.relationship.map { .string($0.target) } ?? .null),
                            ("previousNames", .array((column.previousNames ?? []).map(JSONText.string))),
                        ])
                    })
            ),
            (
                "indexes",
                .array(
                    schema.indexes.map { index in
                        .object([
                            ("name", .string(index.name)), ("columns", .array(index.columns.map(JSONText.string))),
                            ("unique", .bool(index.isUnique)),
                        ])
                    })
            ),
        ])
    }
}

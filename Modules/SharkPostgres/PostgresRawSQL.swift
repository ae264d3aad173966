import Foundation
import PostgresNIO
@_spi(SharkDriver) import SharkORM

/// Raw SQL on PostgreSQL, in PostgreSQL's dialect: `$1`, `$2` for the arguments, and model
/// names quoted as they are declared (`SELECT name FROM "Person" WHERE "payrollNumber" = $1`).
///
/// What the core asks of raw SQL, PostgreSQL's way:
/// - **One statement, its arguments counted.** The text is read as PostgreSQL's lexer reads
///   it (``PostgresStatementText``) before anything runs: a second statement, no statement, or
///   a number of arguments other than the highest `$n` is refused (PostgreSQL itself would
///   bind an argument the text never uses to nothing, since postgres-nio declares each one's
///   type). Transactions and savepoints are the store's: `BEGIN`, `COMMIT` and the rest are
///   refused.
/// - **The entities a write writes**, for the events and for the entities an observer
///   protects, learnt before it runs: for a query or data change, from `EXPLAIN`'s plan
///   (every `ModifyTable` node, data-changing `WITH` clauses included), with the tables whose
///   foreign keys cascade from those, and every table of the store when one of those has a
///   trigger of the app's (its body is not in the plan); for what PostgreSQL cannot explain
///   (DDL, `TRUNCATE`, `COPY`), every table of the store the text names, and all of them for
///   `DO`, `CALL` and schema-wide statements. A function a query calls may write more than its
///   plan shows: raw SQL that calls one is the app's to keep away from protected entities.
/// - **Raw reads only read**: outside a write transaction only a query, `SHOW` or `EXPLAIN`
///   runs, in a `READ ONLY` transaction (a savepoint inside a read's) that is rolled back
///   afterwards, so PostgreSQL refuses what writes (SQLSTATE 25006, a function's writes
///   included), and what it sets for the session is undone.
extension PostgresDriverConnection: RawSQLConnection {
    func executeRaw(_ sql: String, arguments: [Value], protecting protected: Set<String>) throws -> RawResult {
        let text = try Self.checked(sql, arguments: arguments)
        let statement = PostgresStatement(sql, bindings: Self.bindings(of: arguments), arguments: arguments)
        let written = try writtenTables(by: text, statement)
        if let refused = written.sorted().first(where: protected.contains) {
            throw SharkError.invalidQuery(
                .rawStatementWritesProtected,
                "raw SQL may not write \(refused): its changes are tracked row by row (by sync, say), which raw SQL "
                    + "cannot report; write it through models instead")
        }
        let outcome = try perform { session in try await session.result(statement) }
        var result = try Self.rawResult(outcome.rows, changes: outcome.changes, written: written)
        if result.rows.isEmpty && written.isEmpty && text.isQuery {
            result.columns = try columnNames(of: text, statement)
        }
        return result
    }

    func readRaw(_ sql: String, arguments: [Value]) throws -> RawResult {
        let text = try Self.checked(sql, arguments: arguments)
        guard text.isRead else {
            throw SharkError.invalidQuery(
                .rawStatementMayWrite,
                "\(text.leadingWords.first ?? "") statements may change the database or the session: run it with "
                    + "execute(_:arguments:), or inside a write transaction")
        }
        let statement = PostgresStatement(sql, bindings: Self.bindings(of: arguments), arguments: arguments)
        let nested = inTransaction
        let (rows, probed) = try perform { session in
            try await session.execute(nested ? "SAVEPOINT shark_raw_read" : "BEGIN READ ONLY")
            do {
                var rows = try await session.rows(statement)
                let probed = rows.isEmpty && text.isQuery
                if probed { rows = try await session.rows(Self.columnProbe(text, statement)) }
                try await session.execute(nested ? "ROLLBACK TO SAVEPOINT shark_raw_read" : "ROLLBACK")
                if nested { try await session.execute("RELEASE SAVEPOINT shark_raw_read") }
                // Rolled back to before the failure, if any: the read goes on.
                session.refusals.happened.store(false, ordering: .relaxed)
                return (rows, probed)
            } catch {
                try? await session.execute(nested ? "ROLLBACK TO SAVEPOINT shark_raw_read" : "ROLLBACK")
                if nested { try? await session.execute("RELEASE SAVEPOINT shark_raw_read") }
                session.refusals.happened.store(false, ordering: .relaxed)
                throw Self.readFailure(error)
            }
        }
        if probed {
            // The probe's row: the statement's columns, and no row.
            return RawResult(columns: rows.first.map { $0.dropFirst().map(\.columnName) } ?? [], rows: [], changes: 0)
        }
        return try Self.rawResult(rows, changes: 0, written: [])
    }

    // MARK: Checking the text

    /// The text read as PostgreSQL reads it, refused when it is not one statement given as
    /// many arguments as it has parameters, or when it controls transactions.
    private static func checked(_ sql: String, arguments: [Value]) throws -> PostgresStatementText {
        let text = PostgresStatementText(sql)
        guard let first = text.statements.first else {
            throw SharkError.invalidQuery(
                .rawStatementMissing, "the SQL text holds no statement: \(sql.debugDescription)")
        }
        guard text.statements.count == 1 else {
            throw SharkError.invalidQuery(
                .rawStatementNotSingle,
                "raw SQL runs one statement at a time, but the text goes on after the first: "
                    + text.statements[1].prefix(60).debugDescription)
        }
        guard text.highestParameter == arguments.count else {
            let hint =
                text.highestParameter == 0 && first.contains("?")
                ? " (PostgreSQL numbers its parameters: $1, $2, …; `?` is an operator there)" : ""
            throw SharkError.invalidQuery(
                .rawArgumentCount,
                "the statement has \(text.highestParameter) parameter(s) ($1…$n) but \(arguments.count) "
                    + "argument(s) were given\(hint)")
        }
        guard !text.controlsTransactions else {
            throw SharkError.invalidQuery(
                .rawTransactionControl,
                "\(text.leadingWords.joined(separator: " ")): transactions and savepoints are the store's; use "
                    + "store.write { … } and tx.transaction { … }")
        }
        return text
    }

    /// Raw arguments as parameters: integers, reals and bytes typed; text left for the server
    /// to type from where it stands (a UUID's or a number's text compared with such a column).
    private static func bindings(of arguments: [Value]) -> PostgresBindings {
        var bindings = PostgresBindings()
        for argument in arguments {
            switch argument {
            case .null: bindings.appendNull()
            case .integer(let integer): bindings.append(WireValue(payload: .bigint(integer)))
            // A NaN is stored as NULL, as on every driver.
            case .real(let real) where real.isNaN: bindings.appendNull()
            case .real(let real): bindings.append(WireValue(payload: .double(real)))
            case .text(let text): bindings.append(WireValue(payload: .untypedText(text)))
            case .blob(let bytes): bindings.append(WireValue(payload: .bytes(bytes)))
            }
        }
        return bindings
    }

    // MARK: What a statement writes

    /// The tables `statement` writes: from its plan when PostgreSQL can explain it, else the
    /// store's tables its text names.
    private func writtenTables(by text: PostgresStatementText, _ statement: PostgresStatement) throws -> Set<String> {
        if text.isExplainable {
            let explain = PostgresStatement(
                "EXPLAIN (FORMAT JSON) " + text.statements[0], bindings: statement.bindings,
                arguments: statement.arguments)
            let plan = try perform { session in
                try await session.rows(explain).first.map { try PostgresValues.value(of: $0.first!) }
            }
            guard case .text(let json)? = plan, let parsed = try? JSONSerialization.jsonObject(with: Data(json.utf8))
            else { return [] }
            var tables: Set<String> = []
            var changedOrRemoved: Set<String> = []
            Self.collectModifiedTables(in: parsed, into: &tables, changedOrRemoved: &changedOrRemoved)
            return try tables.isEmpty ? [] : alsoWritten(by: tables, cascadingFrom: changedOrRemoved)
        }
        let all = try storeTables()
        // DO and CALL run code whose writes no text shows; DROP or ALTER SCHEMA reaches every
        // table in it.
        if ["DO", "CALL"].contains(text.leadingWords.first) || text.leadingWords.dropFirst().first == "SCHEMA" {
            return all
        }
        return all.intersection(text.names)
    }

    /// The store's tables (those of the schema the connection works in), but for its own
    /// bookkeeping (`_shark_schema`).
    private func storeTables() throws -> Set<String> {
        let names = try perform { session in
            try await session.rows("SELECT tablename::text FROM pg_tables WHERE schemaname = current_schema()")
                .map { try PostgresValues.value(of: $0.first!) }
        }
        return Set(names.compactMap { if case .text(let name) = $0, !name.hasPrefix("_shark") { name } else { nil } })
    }

    /// `tables` and what writing them writes too: the tables whose foreign keys cascade from
    /// those of `cascadingFrom` (rows updated or deleted there: a delete rule's `ON DELETE
    /// CASCADE`, `SET NULL`), followed until no new one comes; and when one of them has a
    /// trigger of the app's, whose body no plan shows, every table of the store.
    private func alsoWritten(by tables: Set<String>, cascadingFrom: Set<String>) throws -> Set<String> {
        let (cascades, triggered) = try perform { session in
            let cascades = try await session.rows(
                "SELECT c.relname::text, r.relname::text FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid "
                    + "JOIN pg_class r ON r.oid = k.confrelid JOIN pg_namespace n ON n.oid = c.relnamespace "
                    + "WHERE k.contype = 'f' AND (k.confdeltype <> 'a' AND k.confdeltype <> 'r' "
                    + "OR k.confupdtype <> 'a' AND k.confupdtype <> 'r') AND n.nspname = current_schema()"
            ).map { row in
                let cells = Array(row)
                return (try PostgresValues.value(of: cells[0]), try PostgresValues.value(of: cells[1]))
            }
            let triggered = try await session.rows(
                "SELECT DISTINCT c.relname::text FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid "
                    + "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE NOT t.tgisinternal "
                    + "AND n.nspname = current_schema()"
            ).map { try PostgresValues.value(of: $0.first!) }
            return (cascades, triggered)
        }
        if triggered.contains(where: { if case .text(let name) = $0 { tables.contains(name) } else { false } }) {
            return try storeTables()
        }
        var written = tables
        var cascading = cascadingFrom
        var grew = true
        while grew {
            grew = false
            for case (.text(let referring), .text(let referred)) in cascades
            where cascading.contains(referred) && !cascading.contains(referring) {
                written.insert(referring)
                cascading.insert(referring)
                grew = true
            }
        }
        return written
    }

    /// Every `ModifyTable` node's relation in an `EXPLAIN (FORMAT JSON)` plan, and apart
    /// those whose rows may be updated or deleted (what a foreign key's rule cascades from):
    /// an update, a delete, a merge, an insert `ON CONFLICT DO UPDATE`.
    private static func collectModifiedTables(
        in node: Any, into tables: inout Set<String>, changedOrRemoved: inout Set<String>
    ) {
        if let list = node as? [Any] {
            for element in list {
                collectModifiedTables(in: element, into: &tables, changedOrRemoved: &changedOrRemoved)
            }
        } else if let object = node as? [String: Any] {
            if object["Node Type"] as? String == "ModifyTable", let name = object["Relation Name"] as? String {
                tables.insert(name)
                if object["Operation"] as? String != "Insert" || object["Conflict Resolution"] as? String == "UPDATE" {
                    changedOrRemoved.insert(name)
                }
            }
            for (_, value) in object {
                collectModifiedTables(in: value, into: &tables, changedOrRemoved: &changedOrRemoved)
            }
        }
    }

    // MARK: Results

    private static func rawResult(_ rows: [PostgresRow], changes: Int, written: Set<String>) throws -> RawResult {
        var result = RawResult(columns: [], rows: [], changes: changes, writtenEntities: written)
        if let first = rows.first { result.columns = first.map(\.columnName) }
        result.rows = try rows.map { row in
            try row.map { cell in
                // A numeric as PostgreSQL writes it ("12.5"), not the models' sortable form.
                let value = try PostgresValues.value(of: cell, logicalType: .decimal)
                // A NaN reads as NULL, as on every driver.
                if case .real(let real) = value, real.isNaN { return .null }
                return value
            }
        }
        return result
    }

    /// A query that returns exactly one row, of NULLs after a first column, with the columns
    /// of `text`'s query, which it never runs. postgres-nio names a result's columns only in
    /// its rows, so an empty result learns its column names from this one: the query stands
    /// behind a constant false condition, which PostgreSQL checks once before it would read
    /// the query (a function it calls is not called again).
    private static func columnProbe(_ text: PostgresStatementText, _ statement: PostgresStatement)
        -> PostgresStatement
    {
        PostgresStatement(
            "SELECT true AS shark_probe, shark_query.* FROM (SELECT) AS shark_one LEFT JOIN (SELECT * FROM ("
                + text.statements[0] + ") AS shark_statement WHERE false) AS shark_query ON true",
            bindings: statement.bindings, arguments: statement.arguments)
    }

    /// The columns of a query that returned no row.
    private func columnNames(of text: PostgresStatementText, _ statement: PostgresStatement) throws -> [String] {
        let probe = Self.columnProbe(text, statement)
        let row = try perform { session in try await session.rows(probe).first }
        return row.map { $0.dropFirst().map(\.columnName) } ?? []
    }

    /// A raw read's failure: PostgreSQL's refusal to write in a read-only transaction (or to
    /// run VACUUM and the like inside one) says the statement may write.
    private static func readFailure(_ error: any Error) -> any Error {
        switch error {
        case SharkError.readOnly:
            return SharkError.invalidQuery(
                .rawStatementMayWrite,
                "this statement may change the database: run it with execute(_:arguments:), or inside a write "
                    + "transaction")
        case SharkError.driver(let code, let message, _) where code == PostgresError.code(ofSQLState: "25001"):
            return SharkError.invalidQuery(.rawStatementMayWrite, "this statement cannot run in a read: \(message)")
        default:
            return error
        }
    }
}

extension PostgresStatementText {
    /// Whether the statement is one `EXPLAIN` takes: a query or a data change.
    var isExplainable: Bool {
        switch leadingWords.first {
        case "SELECT", "INSERT", "UPDATE", "DELETE", "MERGE", "VALUES", "WITH", "TABLE": return true
        default: return false
        }
    }

    /// Whether the statement is of a kind that reads (a query, `SHOW`, `EXPLAIN`): the only
    /// ones a raw read runs. (The read-only transaction it runs in refuses a write such a
    /// statement makes, through a function, say.) `ANALYZE`, `LOCK`, `CHECKPOINT`, `PREPARE`
    /// and the like are not reads, even where a read-only transaction would let them run.
    var isRead: Bool {
        switch leadingWords.first {
        case "SELECT", "VALUES", "TABLE", "WITH", "SHOW", "EXPLAIN": return true
        default: return false
        }
    }

    /// Whether the statement is a query whose result can be read as a subquery (to learn the
    /// columns of an empty result).
    var isQuery: Bool {
        switch leadingWords.first {
        case "SELECT", "VALUES", "TABLE": return !names.contains("into")
        case "WITH": return !names.contains("insert") && !names.contains("update") && !names.contains("delete")
        default: return false
        }
    }
}

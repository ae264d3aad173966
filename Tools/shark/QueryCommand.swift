import ArgumentParser
import Foundation
import SharkORM

/// `shark query DB ENTITY`: an entity's rows, filtered and ordered by SharkORM's string
/// predicates, with values shown by their logical types.
struct QueryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "query",
        abstract: "Print the rows of an entity, filtered, ordered and limited.",
        discussion: """
            Examples:
              shark query app.sqlite Person
              shark query app.sqlite Person --where "age > ? AND name LIKE ?" 30 "A%" --order "name DESC"
              shark query app.sqlite Person --where "department.name = ?" Sales --format csv > sales.csv
              shark query app.sqlite Person --where "balance < ?" --limit 5 --json -- -100

            The predicate is parsed by SharkORM's string-predicate parser, never spliced into SQL: \
            each ? takes the next argument, read as the type of the property it is compared with \
            (a number, a UUID, a date such as 2024-05-01, true or false). Put arguments that start \
            with - after --. Opens the file read-only.
            """)

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case table, json, csv
    }

    @OptionGroup var database: DatabaseOptions

    @Argument(
        help: ArgumentHelp("The entity (as recorded in the database; case does not matter).", valueName: "entity"))
    var entity: String

    @Argument(help: ArgumentHelp("The arguments of --where's placeholders, in order.", valueName: "argument"))
    var arguments: [String] = []

    @Option(
        name: .customLong("where"),
        help: ArgumentHelp("A predicate, e.g. \"age > ? AND name LIKE 'A%'\".", valueName: "predicate"))
    var predicate: String?

    @Option(help: ArgumentHelp("An ordering, e.g. \"name, age DESC\" (default: by key).", valueName: "ordering"))
    var order: String?

    @Option(help: "At most this many rows.")
    var limit: Int?

    @Option(help: "Skip this many rows first.")
    var offset: Int?

    @Option(help: "table (the default), json or csv.")
    var format: Format = .table

    @Flag(help: "The same as --format json.")
    var json = false

    func validate() throws {
        if predicate == nil, !arguments.isEmpty {
            throw ValidationError("arguments are given without --where: \(arguments.joined(separator: " "))")
        }
        if let limit, limit < 0 { throw ValidationError("--limit must be 0 or more") }
        if let offset, offset < 0 { throw ValidationError("--offset must be 0 or more") }
    }

    func run() throws {
        try reportingFailures {
            let store = try database.open()
            defer { store.close() }
            let schemas = try store.recordedSchemas()
            let schema = try Self.schema(named: entity, in: schemas, store: store, path: database.path)
            let parser = PredicateParser(schema: schema) { name in schemas.first { $0.name == name } }
            let filter = try predicate.map { try parser.predicate($0, textArguments: arguments) }
            let ordering = try order.map { try parser.ordering($0) } ?? []
            let recorded = LogicalTypes(schemas)
            let types = schema.columns.map { recorded.of($0.name, in: schema.name) }
            // Rows are written as they are read, a window at a time: a table of ten million
            // rows goes out with the memory of one window.
            let total = try Self.rowCount(of: schema.name, in: store, where: filter, limit: limit, offset: offset)
            let progress = Progress("querying \(schema.name)", total: total, unit: "rows")
            defer { progress.finish() }
            var output = RowOutput(columns: schema.columns.map(\.name), format: json ? .json : format)
            try store.batchRows(
                of: schema.name, where: filter, orderedBy: ordering, limit: limit, offset: offset,
                size: Self.windowSize
            ) { rows in
                let shown = rows.map { row in zip(row.values, types).map { ShownValue($0, logicalType: $1) } }
                progress.pause()
                output.write(shown)
                progress.advance(by: rows.count)
            }
            progress.finish()
            output.finish()
        }
    }

    /// How many rows are read and written at a time.
    static let windowSize = 1_000

    /// How many rows the query returns, for the progress bar: a count, cheap next to the rows.
    private static func rowCount(
        of entity: String, in store: Store, where filter: QueryExpression?, limit: Int?, offset: Int?
    ) throws -> Int {
        let matching = try store.countRows(of: entity, where: filter)
        let afterOffset = max(0, matching - (offset ?? 0))
        return limit.map { min($0, afterOffset) } ?? afterOffset
    }

    /// The schema of `name` (exactly, or else regardless of case): a recorded entity's, or
    /// else that of a table or view no model describes (another program's), as SQLite
    /// describes it; a usage error naming the entities and tables there are otherwise.
    static func schema(named name: String, in schemas: [EntitySchema], store: Store, path: String) throws
        -> EntitySchema
    {
        if let exact = schemas.first(where: { $0.name == name }) { return exact }
        if let folded = schemas.first(where: { $0.name.lowercased() == name.lowercased() }) { return folded }
        if let table = try store.unrecordedSchema(of: name) { return table }
        let recorded = Set(schemas.map(\.name))
        let others = (try? ForeignTable.all(in: store, excluding: recorded).map(\.name)) ?? []
        let names = schemas.map(\.name).filter { !$0.hasPrefix("SharkSync") && !$0.hasPrefix("_shark_") } + others
        throw CommandFailure(
            "no entity or table \(name) in \(path); there are: "
                + (names.isEmpty ? "none" : names.joined(separator: ", ")),
            exitCode: CommandFailure.usage)
    }
}

/// The rows of `shark query` written as they come, in one of its formats: CSV and JSON as
/// they would be whole; a table aligned on the widest cell seen so far (a window's cells
/// widen the columns for the windows after it, never for the rows already written).
struct RowOutput {
    let columns: [String]
    let format: QueryCommand.Format
    private var written = 0
    private var widths: [Int]?

    init(columns: [String], format: QueryCommand.Format) {
        self.columns = columns
        self.format = format
    }

    mutating func write(_ rows: [[ShownValue]]) {
        guard !rows.isEmpty else { return }
        switch format {
        case .table:
            var table = TextTable(headers: columns)
            if let widths { table.minimumWidths = widths }
            for row in rows { table.append(row.map { (text: $0.text, isNumber: $0.isNumber) }) }
            let (text, widths) = table.render(includingHeader: self.widths == nil)
            self.widths = widths
            Terminal.write(text)
        case .json:
            var text = ""
            for row in rows {
                text += (written == 0 ? "[\n  " : ",\n  ")
                let object = JSONText.object(zip(columns, row.map(\.json)).map { ($0, $1) }).rendered
                text += object.dropLast().replacingOccurrences(of: "\n", with: "\n  ")
                written += 1
            }
            Terminal.write(text)
            return
        case .csv:
            var lines = written == 0 ? [columns.map { ShownValue.text($0).csvField }.joined(separator: ",")] : []
            lines += rows.map { $0.map(\.csvField).joined(separator: ",") }
            Terminal.write(lines.joined(separator: "\r\n") + "\r\n")
        }
        written += rows.count
    }

    /// Ends the output: the row count under a table, the closing bracket of JSON, and the
    /// header alone for a result without rows.
    mutating func finish() {
        switch format {
        case .table:
            if widths == nil { Terminal.write(TextTable(headers: columns).render(includingHeader: true).text) }
            Terminal.write("(\(written) row\(written == 1 ? "" : "s"))\n")
        case .json:
            Terminal.write(written == 0 ? "[]\n" : "\n]\n")
        case .csv:
            if written == 0 {
                Terminal.write(columns.map { ShownValue.text($0).csvField }.joined(separator: ",") + "\r\n")
            }
        }
    }
}

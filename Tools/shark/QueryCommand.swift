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
            let rows = try withProgress("querying \(schema.name)") {
                try store.fetchRows(of: schema.name, where: filter, orderedBy: ordering, limit: limit, offset: offset)
            }
            let recorded = LogicalTypes(schemas)
            let types = schema.columns.map { recorded.of($0.name, in: schema.name) }
            let shown = rows.map { row in zip(row.values, types).map { ShownValue($0, logicalType: $1) } }
            Terminal.write(Self.render(shown, columns: schema.columns.map(\.name), as: json ? .json : format))
        }
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
        let names = schemas.map(\.name).filter { !$0.hasPrefix("SharkSync") } + others
        throw CommandFailure(
            "no entity or table \(name) in \(path); there are: "
                + (names.isEmpty ? "none" : names.joined(separator: ", ")),
            exitCode: CommandFailure.usage)
    }

    static func render(_ rows: [[ShownValue]], columns: [String], as format: Format) -> String {
        switch format {
        case .table:
            var table = TextTable(headers: columns)
            for row in rows { table.append(row.map { (text: $0.text, isNumber: $0.isNumber) }) }
            return table.rendered + "(\(rows.count) row\(rows.count == 1 ? "" : "s"))\n"
        case .json:
            return JSONText.array(rows.map { row in .object(zip(columns, row.map(\.json)).map { ($0, $1) }) }).rendered
        case .csv:
            var lines = [columns.map { ShownValue.text($0).csvField }.joined(separator: ",")]
            lines += rows.map { $0.map(\.csvField).joined(separator: ",") }
            return lines.joined(separator: "\r\n") + "\r\n"
        }
    }
}

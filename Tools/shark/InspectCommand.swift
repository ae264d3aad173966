import ArgumentParser
import Foundation
import SharkORM
import SharkSync

/// `shark inspect FILE`: a change log in readable form.
struct InspectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Show what a change log holds: its header, then each changed row.",
        discussion: """
            Examples:
              shark inspect laptop.sharklog
              shark inspect laptop.sharklog --json | jq '.entities[] | {name, rows: (.rows | length)}'
              shark inspect sealed.sharklog --log-key-file log.key --limit 10
              shark inspect laptop.sharklog --database notes.sqlite

            The file is checked whole first, as an import would check it. Each value is shown \
            with its version: the row's causal length (odd while it exists, even once removed), \
            the hybrid-clock time and counter, and the site and transaction that wrote it. Values \
            show by the logical types the file carries (UUIDs, dates, decimals, Bools); a file \
            written before change logs carried them shows storage classes, unless --database \
            names a database whose recorded types show them.
            """)

    @Argument(help: ArgumentHelp("The change-log file.", valueName: "file"))
    var file: String

    @OptionGroup var logKey: LogKeyOptions

    @Option(help: "Show at most this many rows per entity.")
    var limit: Int?

    @Option(
        help: ArgumentHelp(
            "A database of the file's lineage whose recorded logical types show the values (read-only).",
            valueName: "database"))
    var database: String?

    @OptionGroup var databaseKey: DatabaseKeyOptions

    @Flag(help: "Print JSON for scripts.")
    var json = false

    func run() throws {
        try reportingFailures {
            let (data, contents) = try withProgress("reading \(file)") { try ChangeLogFile.read(file, keys: logKey) }
            let rows = max(0, limit ?? Int.max)
            // The file's own logical types, where it carries them; a database's, when given,
            // for files written before they were.
            var types = LogicalTypes(contents)
            if let database {
                let store = try DatabaseFile.open(database, key: databaseKey)
                defer { store.close() }
                types = LogicalTypes(try store.recordedSchemas())
            }
            Terminal.write(
                json
                    ? Self.json(contents, bytes: data.count, rowsPerEntity: rows, types: types).rendered
                    : Self.text(contents, bytes: data.count, rowsPerEntity: rows, types: types))
        }
    }

    static func text(_ contents: ChangeLogContents, bytes: Int, rowsPerEntity: Int, types: LogicalTypes) -> String {
        var lines: [String] = []
        func field(_ name: String, _ value: String) {
            lines.append(name.padding(toLength: 10, withPad: " ", startingAt: 0) + value)
        }
        field(
            "file",
            "\(Readable.bytes(bytes)), format \(contents.formatVersion), \(contents.frameCount) frame(s)"
                + (contents.isEncrypted ? ", encrypted with key \(contents.keyID)" : ""))
        field("id", contents.fileID.uuidString)
        field("lineage", contents.lineage)
        field("source", contents.source.uuidString)
        field("since", vectorText(contents.since))
        field("vector", vectorText(contents.vector))
        field("rows", "\(contents.rowCount)")
        if let digest = contents.digest {
            field(
                "digest", "\(digest.contentHex) (\(digest.rowCount) live rows, schema \(digest.schemaHex.prefix(16)))")
        }
        for entity in contents.entities {
            lines.append("")
            let columns = entity.columns.map { column in
                "\(column.name) \(column.logicalType.map { "\($0.rawValue) in " } ?? "")\(column.type.rawValue)"
                    + (column.previousNames.isEmpty ? "" : " (was \(column.previousNames.joined(separator: ", ")))")
            }
            lines.append(
                "\(entity.name): \(entity.rows.count) row(s), key \(entity.keyKindName); \(columns.joined(separator: ", "))"
            )
            for row in entity.rows.prefix(rowsPerEntity) {
                let key = ShownValue(row.key, logicalType: types.key(of: entity)).text
                lines.append("  \(key)  \(row.isRemoval ? "removed" : "present") \(versionText(row.version))")
                for value in row.values {
                    let shown = ShownValue(value.value, logicalType: types.of(value.column, in: entity.name)).text
                    let version = value.version == row.version ? "" : "  \(versionText(value.version))"
                    lines.append("    \(value.column) = \(shown)\(version)")
                }
            }
            if entity.rows.count > rowsPerEntity { lines.append("  … \(entity.rows.count - rowsPerEntity) more") }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    static func vectorText(_ vector: VersionVector) -> String {
        vector.entries.isEmpty ? "nothing" : vector.description
    }

    static func versionText(_ version: ChangeLogContents.Version) -> String {
        "(causal length \(version.causalLength), \(ShownValue.dateText(version.date)) #\(version.counter), "
            + "site \(version.site.uuidString.prefix(8)) transaction \(version.sequence))"
    }

    static func json(_ contents: ChangeLogContents, bytes: Int, rowsPerEntity: Int, types: LogicalTypes) -> JSONText {
        func version(_ version: ChangeLogContents.Version) -> JSONText {
            .object([
                ("causalLength", .integer(version.causalLength)), ("time", .string(ShownValue.dateText(version.date))),
                ("milliseconds", .integer(version.milliseconds)), ("counter", .integer(version.counter)),
                ("site", .string(version.site.uuidString)), ("sequence", .integer(version.sequence)),
            ])
        }
        return .object([
            ("bytes", .integer(bytes)), ("formatVersion", .integer(contents.formatVersion)),
            ("encrypted", .bool(contents.isEncrypted)),
            ("keyID", contents.isEncrypted ? .integer(Int(contents.keyID)) : .null),
            ("frames", .integer(contents.frameCount)),
            ("fileID", .string(contents.fileID.uuidString)), ("lineage", .string(contents.lineage)),
            ("source", .string(contents.source.uuidString)), ("since", VectorText.json(contents.since)),
            ("vector", VectorText.json(contents.vector)), ("rowCount", .integer(contents.rowCount)),
            (
                "digest",
                contents.digest.map { digest in
                    .object([
                        ("content", .string(digest.contentHex)), ("schema", .string(digest.schemaHex)),
                        ("rows", .integer(digest.rowCount)),
                    ])
                } ?? .null
            ),
            (
                "entities",
                .array(
                    contents.entities.map { entity in
                        .object([
                            ("name", .string(entity.name)), ("keyKind", .string(entity.keyKindName)),
                            (
                                "columns",
                                .array(
                                    entity.columns.map { column in
                                        .object([
                                            ("name", .string(column.name)), ("storage", .string(column.type.rawValue)),
                                            ("type", column.logicalType.map { .string($0.rawValue) } ?? .null),
                                            ("previousNames", .array(column.previousNames.map(JSONText.string))),
                                        ])
                                    })
                            ),
                            (
                                "rows",
                                .array(
                                    entity.rows.prefix(rowsPerEntity).map { row in
                                        .object([
                                            (
                                                "key",
                                                ShownValue(row.key, logicalType: types.key(of: entity))
                                                    .json
                                            ),
                                            ("removed", .bool(row.isRemoval)), ("version", version(row.version)),
                                            (
                                                "values",
                                                .array(
                                                    row.values.map { value in
                                                        .object([
                                                            ("column", .string(value.column)),
                                                            (
                                                                "value",
                                                                ShownValue(
                                                                    value.value,
                                                                    logicalType: types.of(value.column, in: entity.name)
                                                                ).json
                                                            ),
                                                            ("version", version(value.version)),
                                                        ])
                                                    })
                                            ),
                                        ])
                                    })
                            ),
                        ])
                    })
            ),
        ])
    }
}

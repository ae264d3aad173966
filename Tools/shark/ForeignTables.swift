import Foundation
import SharkORM

/// The tables and views of a database that no recorded schema describes: another program's
/// (the `sqlite3` shell's, an app on another library's), and SharkORM's and SQLite's own
/// bookkeeping, shown apart. Read from `sqlite_master` and `PRAGMA table_info`/`index_list`,
/// so `shark info` shows every object in the file whoever made it.
struct ForeignTable {
    struct Column {
        var name: String
        var declaredType: String
        var isNullable: Bool
        var defaultText: String?
        /// Its position in the primary key, 1-based; nil when not part of it.
        var keyPosition: Int?
    }

    struct TableIndex {
        var name: String
        var columns: [String]
        var isUnique: Bool
    }

    enum Kind: String {
        case table, view
    }

    var name: String
    var kind: Kind
    var isWithoutRowID: Bool
    var columns: [Column]
    var indexes: [TableIndex]
    /// Nil when the rows could not be counted (a view over a missing table, a damaged page).
    var rows: Int?

    /// Who keeps a table: SQLite itself (`sqlite_sequence`, `sqlite_stat1`), SharkORM
    /// (`_shark_schema`, the migrations' record), or neither: the app's or another program's.
    static func keeper(of name: String) -> String? {
        let lowered = name.lowercased()
        if lowered.hasPrefix("sqlite_") { return "SQLite" }
        if lowered.hasPrefix("_shark") { return "SharkORM" }
        return nil
    }

    /// Every table and view of `store`'s file whose name is not in `recorded`, in name order.
    static func all(in store: Store, excluding recorded: Set<String>) throws -> [ForeignTable] {
        let objects = try store.rows(
            "SELECT name, type, coalesce(sql, '') FROM sqlite_master WHERE type IN ('table', 'view') ORDER BY name")
        return try objects.rows.compactMap { row -> ForeignTable? in
            let name = row[0].coercedToText()
            guard !recorded.contains(name) else { return nil }
            let kind = Kind(rawValue: row[1].coercedToText()) ?? .table
            let sql = row[2].coercedToText()
            let quoted = quote(name)
            let columns = try store.rows("PRAGMA table_info(\(quoted))").rows.map { info in
                let position = info[5].coercedToInt64()
                return Column(
                    name: info[1].coercedToText(), declaredType: info[2].coercedToText(),
                    isNullable: info[3].coercedToInt64() == 0,
                    defaultText: info[4].isNull ? nil : info[4].coercedToText(),
                    keyPosition: position > 0 ? Int(position) : nil)
            }
            var indexes: [TableIndex] = []
            if kind == .table {
                for index in try store.rows("PRAGMA index_list(\(quoted))").rows {
                    let indexName = index[1].coercedToText()
                    let indexColumns = try store.rows("PRAGMA index_info(\(quote(indexName)))").rows.map {
                        $0[2].isNull ? "(expression)" : $0[2].coercedToText()
                    }
                    indexes.append(
                        TableIndex(name: indexName, columns: indexColumns, isUnique: index[2].coercedToInt64() == 1))
                }
                indexes.sort { $0.name < $1.name }
            }
            let rows = try? store.rows("SELECT count(*) FROM \(quoted)").rows.first?.first?.coercedToInt64()
            let withoutRowID = sql.range(
                of: #"WITHOUT\s+ROWID\s*;?\s*$"#, options: [.regularExpression, .caseInsensitive])
            return ForeignTable(
                name: name, kind: kind, isWithoutRowID: withoutRowID != nil, columns: columns, indexes: indexes,
                rows: rows.map(Int.init))
        }
    }

    static func quote(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// The lines `shark info` prints for it.
    var described: [String] {
        let count = rows.map { "\($0) row\($0 == 1 ? "" : "s")" } ?? "rows unreadable"
        let key = columns.filter { $0.keyPosition != nil }.sorted { $0.keyPosition! < $1.keyPosition! }.map(\.name)
        var facts = [count]
        if kind == .table {
            facts.append(key.isEmpty ? "no declared key (rowid)" : "key \(key.joined(separator: ", "))")
        }
        if isWithoutRowID { facts.append("WITHOUT ROWID") }
        var lines = ["\(name)  \(facts.joined(separator: ", "))"]
        var table = TextTable(headers: ["column", "declared", "null", "default", "key"])
        for column in columns {
            table.append(
                [
                    column.name, column.declaredType, column.isNullable ? "yes" : "no", column.defaultText ?? "",
                    column.keyPosition.map(String.init) ?? "",
                ].map { (text: $0, isNumber: false) })
        }
        lines += table.rendered.split(separator: "\n").map { "  " + $0 }
        for index in indexes {
            lines.append(
                "  index \(index.name) on \(index.columns.joined(separator: ", "))"
                    + (index.isUnique ? " (unique)" : ""))
        }
        return lines
    }

    var json: JSONText {
        .object([
            ("name", .string(name)), ("kind", .string(kind.rawValue)), ("rows", rows.map(JSONText.integer) ?? .null),
            ("withoutRowID", .bool(isWithoutRowID)),
            ("keeper", ForeignTable.keeper(of: name).map(JSONText.string) ?? .null),
            (
                "columns",
                .array(
                    columns.map { column in
                        .object([
                            ("name", .string(column.name)), ("declaredType", .string(column.declaredType)),
                            ("nullable", .bool(column.isNullable)),
                            ("default", column.defaultText.map(JSONText.string) ?? .null),
                            ("keyPosition", column.keyPosition.map(JSONText.integer) ?? .null),
                        ])
                    })
            ),
            (
                "indexes",
                .array(
                    indexes.map { index in
                        .object([
                            ("name", .string(index.name)), ("columns", .array(index.columns.map(JSONText.string))),
                            ("unique", .bool(index.isUnique)),
                        ])
                    })
            ),
        ])
    }
}

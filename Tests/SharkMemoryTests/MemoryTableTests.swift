import Foundation
@_spi(SharkDriver) import SharkORM
import Testing

@testable import SharkDriverConformance
@testable import SharkMemory

/// One entity's storage under a transaction: what a write copies.
@Suite("Memory tables")
struct MemoryTableTests {
    /// A table of `Person` rows (indexed on age, unique on payroll number), keys 1...count.
    private func table(count: Int) throws -> MemoryTable {
        let schema = Person.schema
        var table = MemoryTable(schema: schema)
        let template = schema.columns.map { $0.defaultValue ?? ($0.isNullable ? Value.null : $0.backfillValue) }
        for key in 1...count { try table.insert(row(template, schema, key: key, age: key % 100)) }
        return table
    }

    private func row(_ template: [Value], _ schema: EntitySchema, key: Int, age: Int) -> Row {
        var row = template
        row[0] = .integer(Int64(key))
        row[schema.columnIndex(named: "age")!] = .integer(Int64(age))
        row[schema.columnIndex(named: "payrollNumber")!] = .integer(Int64(key))
        row[schema.columnIndex(named: "name")!] = .text("p\(key)")
        return row
    }

    /// Every node a search for the row with `key` walks, in the rows and in each index.
    private func paths(_ table: MemoryTable, key: Int) -> [[ObjectIdentifier]] {
        let row = table.row(forKey: .integer(Int64(key)))!
        return [table.ordered.pathIdentities(to: KeyedRow(row))]
            + table.indexes.map { $0.entries.pathIdentities(to: $0.entry(for: row)) }
    }

    @Test(
        "a transaction copies the path to a row once: its later writes there copy no node, of the rows or of an index")
    func writesCopyAPathOnce() throws {
        let committed = try table(count: 5_000)
        let schema = committed.schema
        var working = committed  // a transaction's copy: it shares every node
        for key in [2_500, 17, 4_999] {
            let old = working.row(forKey: .integer(Int64(key)))!
            var new = old
            new[schema.columnIndex(named: "name")!] = .text("renamed")
            try working.replace(old, with: new)
            let copied = paths(working, key: key)
            #expect(copied != paths(committed, key: key))
            // The same row again (a column no index holds, so every index entry stays where it
            // is and points at the new row): nothing more is copied.
            var again = new
            again[schema.columnIndex(named: "email")!] = .text("x@example.com")
            try working.replace(new, with: again)
            #expect(paths(working, key: key) == copied)
        }
        // A removal and an insert on a copied path copy nothing either.
        let before = paths(working, key: 17)
        let removed = working.delete(key: .integer(18))
        #expect(removed?[0] == .integer(18))
        #expect(paths(working, key: 17) == before)
        // The committed table never changed.
        #expect(committed.row(forKey: .integer(2_500))?[schema.columnIndex(named: "name")!] == .text("p2500"))
        #expect(committed.count == 5_000 && working.count == 4_999)
    }

    @Test("a list of keys is read in SQLite's order, each key once; the integer 1 and the real 1.0 both stay")
    func keyListsAreSortedAndDistinct() {
        let values: [Value] = [
            .integer(3), .real(1.0), .integer(1), .text("a"), .integer(3), .integer(1), .null, .real(2.5), .real(1.0),
        ]
        #expect(
            SQLiteSemantics.sortedDistinct(values) == [
                .null, .integer(1), .real(1.0), .real(2.5), .integer(3), .text("a"),
            ])
    }
}

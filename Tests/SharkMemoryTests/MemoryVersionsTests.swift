import Foundation
@_spi(SharkDriver) import SharkORM
import SharkTestSupport
import Testing

@testable import SharkDriverConformance
@testable import SharkMemory

/// The transaction that works in place and its undo log, against a model that copies whole
/// dictionaries: random writes, savepoints, readers arriving at any moment, rollbacks and
/// commits, with an undo log small enough to freeze many times a run.
@Suite("Memory versions")
struct MemoryVersionsTests {
    /// Per table, key → age (people) or key → code (samples).
    typealias Contents = [String: [Int64: Int64]]

    static var seeds: [UInt64] {
        if let text = ProcessInfo.processInfo.environment["SHARK_VERSIONS_SEED"], let seed = UInt64(text) {
            return [seed]
        }
        return (0..<6).map { _ in UInt64.random(in: 1...UInt64(UInt32.max)) }
    }

    @Test(
        "random writes, savepoints, readers, rollbacks and commits agree with copies of the whole state",
        arguments: seeds)
    func againstCopies(seed: UInt64) throws {
        var random = SeededGenerator(state: seed)
        let versions = MemoryVersions(undoLimit: Int.random(in: 1...12, using: &random))
        var committed: Contents = [:]
        var working: Contents?
        var savepoints: [(name: String, contents: Contents)] = []
        // Snapshots taken along the way, with what they showed: they must never change.
        var kept: [(MemoryDatabaseState, Contents)] = []
        var nextKey: Int64 = 1

        for step in 0..<1_500 {
            let context = "seed \(seed), step \(step)"
            guard working != nil else {
                versions.begin()
                working = committed
                continue
            }
            switch Int.random(in: 0..<100, using: &random) {
            case 0..<30:
                let key = nextKey
                nextKey += 1
                let name = committed["Person"] == nil && working!["Person"] == nil ? nil : "Person"
                guard let name else {
                    versions.modifyDatabase { $0.set(MemoryTable(schema: Person.schema)) }
                    working!["Person"] = [:]
                    continue
                }
                let age = Int64.random(in: 0..<20, using: &random)
                try versions.change(tableNamed: name) { table in
                    try table.insert(Self.row(Person.schema, key: key, value: age))
                    return ((), .inserted(key: .integer(key)))
                }
                working![name]![key] = age
            case 30..<45:
                guard let (key, _) = working!["Person"]?.randomElement(using: &random) else { continue }
                let age = Int64.random(in: 0..<20, using: &random)
                try versions.change(tableNamed: "Person") { table in
                    let old = table.row(forKey: .integer(key))!
                    try table.replace(old, with: Self.row(Person.schema, key: key, value: age))
                    return ((), .replaced(old: old))
                }
                working!["Person"]![key] = age
            case 45..<55:
                guard let (key, _) = working!["Person"]?.randomElement(using: &random) else { continue }
                try versions.change(tableNamed: "Person") { table in
                    let old = table.delete(key: .integer(key))!
                    return ((), .deleted(old: old))
                }
                working!["Person"]![key] = nil
            case 55..<58:
                // A table created (or, once there, migrated to the same shape) mid-transaction.
                if working!["Sample"] == nil {
                    versions.modifyDatabase { $0.set(MemoryTable(schema: Sample.schema)) }
                    working!["Sample"] = [:]
                } else {
                    let key = nextKey
                    nextKey += 1
                    try versions.change(tableNamed: "Sample") { table in
                        try table.insert(Self.row(Sample.schema, key: key, value: key))
                        return ((), .inserted(key: .integer(key)))
                    }
                    working!["Sample"]![key] = key
                }
            case 58..<68:
                let snapshot = versions.snapshot()
                #expect(Self.contents(of: snapshot) == committed, "\(context): a reader's snapshot")
                if kept.count < 40 { kept.append((snapshot, committed)) }
            case 68..<76:
                let name = "s\(step)"
                versions.createSavepoint(name)
                savepoints.append((name, working!))
            case 76..<84:
                guard let index = savepoints.indices.randomElement(using: &random) else { continue }
                versions.rollbackToSavepoint(savepoints[index].name)
                working = savepoints[index].contents
                savepoints.removeSubrange((index + 1)...)
            case 84..<88:
                guard let index = savepoints.indices.randomElement(using: &random) else { continue }
                versions.releaseSavepoint(savepoints[index].name)
                savepoints.removeSubrange(index...)
            case 88..<94:
                versions.commit()
                committed = working!
                working = nil
                savepoints = []
            default:
                versions.rollback()
                working = nil
                savepoints = []
            }
            if let state = versions.working {
                #expect(Self.contents(of: state) == working, "\(context): the working state")
                #expect(state.tables.flatMap { $0.integrityProblems() } == [], "\(context): its indexes")
            }
        }
        #expect(Self.contents(of: versions.snapshot()) == committed, "seed \(seed): the last snapshot")
        for (snapshot, contents) in kept {
            #expect(Self.contents(of: snapshot) == contents, "seed \(seed): a snapshot changed")
            #expect(snapshot.tables.flatMap { $0.integrityProblems() } == [], "seed \(seed): a snapshot's indexes")
        }
    }

    @Test("a reader arriving after the log froze rebuilds the state from before the transaction")
    func readerAfterTheLogFroze() throws {
        let versions = MemoryVersions(undoLimit: 3)
        versions.begin()
        versions.modifyDatabase { $0.set(MemoryTable(schema: Person.schema)) }
        for key in 1...5 as ClosedRange<Int64> {
            try versions.change(tableNamed: "Person") { table in
                try table.insert(Self.row(Person.schema, key: key, value: key))
                return ((), .inserted(key: .integer(key)))
            }
        }
        versions.commit()
        versions.begin()
        // Eight changes: the log holds the first three, the rest are made on a copy.
        for key in 6...13 as ClosedRange<Int64> {
            try versions.change(tableNamed: "Person") { table in
                try table.insert(Self.row(Person.schema, key: key, value: key))
                return ((), .inserted(key: .integer(key)))
            }
        }
        let before = Self.contents(of: versions.snapshot())
        #expect(before["Person"]?.keys.sorted() == Array(1...5))
        versions.rollback()
        #expect(Self.contents(of: versions.snapshot()) == before)
    }

    /// A row of `schema` with `key`, its age (people) or code (samples) set to `value`, and
    /// every unique column set from the key.
    static func row(_ schema: EntitySchema, key: Int64, value: Int64) -> Row {
        var row = schema.columns.map { $0.defaultValue ?? ($0.isNullable ? Value.null : $0.backfillValue) }
        row[0] = .integer(key)
        if let payroll = schema.columnIndex(named: "payrollNumber") { row[payroll] = .integer(key) }
        if let age = schema.columnIndex(named: "age") { row[age] = .integer(value) }
        if let code = schema.columnIndex(named: "code") { row[code] = .integer(value) }
        return row
    }

    /// Each table's rows, as the model holds them.
    static func contents(of state: MemoryDatabaseState) -> Contents {
        var contents: Contents = [:]
        for table in state.tables {
            let column = table.schema.columnIndex(named: table.schema.name == "Person" ? "age" : "code")!
            var rows: [Int64: Int64] = [:]
            for row in table.orderedRows() {
                if case .integer(let key) = row[0], case .integer(let value) = row[column] { rows[key] = value }
            }
            contents[table.schema.name] = rows
        }
        return contents
    }
}

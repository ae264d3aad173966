import Foundation
@_spi(SharkDriver) @_spi(SharkReplication) import SharkORM
import SharkSync
import Testing

@testable import SharkDriverConformance

/// The reason an error carries, or nil when it is not of the expected case.
private func queryReason(_ body: () throws -> Void) -> SharkError.QueryReason? {
    do { try body() } catch SharkError.invalidQuery(let detail) { return detail.reason } catch {}
    return nil
}

private func valueReason(_ body: () throws -> Void) -> SharkError.ValueReason? {
    do { try body() } catch SharkError.invalidValue(let detail) { return detail.reason } catch {}
    return nil
}

private func syncError(_ body: () throws -> Void) -> SyncError? {
    do { try body() } catch let error as SyncError { return error } catch {}
    return nil
}

@Suite("Typed error reasons")
struct ErrorReasonTests {
    @Test("every reason of every error detail is listed in docs/errors.md")
    func documented() throws {
        let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/errors.md")
        let text = try String(contentsOf: docs, encoding: .utf8)
        func listed<R: CaseIterable & RawRepresentable>(_: R.Type, under heading: String) -> [String]
        where R.RawValue == String {
            guard let start = text.range(of: "### `\(heading)`") else { return ["no heading \(heading)"] }
            let section = text[start.upperBound...].prefix { $0 != "#" }
            return R.allCases.map(\.rawValue).filter { !section.contains("| `.\($0)` |") }
        }
        #expect(listed(SharkError.QueryReason.self, under: "SharkError.QueryReason").isEmpty)
        #expect(listed(SharkError.ValueReason.self, under: "SharkError.ValueReason").isEmpty)
        #expect(listed(SharkError.UnsupportedReason.self, under: "SharkError.UnsupportedReason").isEmpty)
        #expect(listed(SharkError.MisuseReason.self, under: "SharkError.MisuseReason").isEmpty)
        #expect(listed(SharkError.DecodingReason.self, under: "SharkError.DecodingReason").isEmpty)
        #expect(listed(SyncError.CorruptReason.self, under: "SyncError.CorruptReason").isEmpty)
        #expect(listed(SyncError.LimitReason.self, under: "SyncError.LimitReason").isEmpty)
        #expect(listed(SyncError.KeyReason.self, under: "SyncError.KeyReason").isEmpty)
        #expect(listed(SyncError.MisuseReason.self, under: "SyncError.MisuseReason").isEmpty)
        #expect(listed(SyncError.InternalReason.self, under: "SyncError.InternalReason").isEmpty)
    }

    @Test(
        "queries, values, drivers and transactions throw their reasons, the same on every driver",
        arguments: TestDriver.allCases)
    func coreReasons(driver: TestDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        try store.commit(Person(name: "Ada", age: 36, payrollNumber: 1))
        #expect(queryReason { _ = try Person.query(in: store).where(\.scratch == 1).fetch() } == .notPersisted)
        #expect(queryReason { try Person.query(in: store).batch(size: 0) { _ in } } == .invalidBatchSize)
        var deep: QueryPredicate<Person> = \.age == 1
        for _ in 0..<30 { deep = !deep }
        #expect(queryReason { _ = try Person.query(in: store).where(deep).count() } == .nestedTooDeep)
        #expect(
            queryReason { try store.write { tx in _ = try tx.insertRow(["nope": 1], into: "Person") } }
                == .unknownColumn)
        #expect(
            valueReason { _ = try Person.query(in: store).updateAll(.set(\.age, to: \.age / 0)) } == .divisionByZero)
        #expect(
            valueReason { _ = try Person.query(in: store).updateAll(.set(\.age, to: \.age + Int.max)) }
                == .integerOverflow)
        switch driver {
        case .memory, .suspending:
            do {
                _ = try store.rows("SELECT 1")
                Issue.record("raw SQL ran on the memory driver"); return
            } catch SharkError.unsupported(let detail) {
                #expect(detail.reason == .rawSQL)
            }
        case .sqlite, .sqlcipher:
            #expect(queryReason { _ = try store.rows("DELETE FROM Person") } == .rawStatementMayWrite)
            #expect(queryReason { _ = try store.rows("SELECT ?") } == .rawArgumentCount)
            #expect(queryReason { _ = try store.execute("SELECT 1; SELECT 2") } == .rawStatementNotSingle)
        }
        // A transaction used after its body returned.
        let escaped = try store.write { tx in tx }
        do {
            try escaped.commit(Person(name: "Late", payrollNumber: 2))
            Issue.record("an ended transaction committed"); return
        } catch SharkError.transactionMisuse(let detail) {
            #expect(detail.reason == .ended)
        }
        // A string literal still makes an expected error, matched by its message.
        #expect(SharkError.invalidQuery("x") == SharkError.invalidQuery(.notPersisted, "x"))
        #expect(SharkError.invalidQuery("x").description == "invalid query: x")
    }

    @Test("a stored value read as another type names its reason", arguments: TestDriver.allCases)
    func decodingReason(driver: TestDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        try store.commit(Person(name: "Ada", age: 36, payrollNumber: 1))
        let key = try #require(try Person.query(in: store).fetch().first?.id)
        // Text in an integer column, as another program could leave it (row calls refuse it).
        let schema = try store.recordedSchema(of: "Person")
        let age = try #require(schema.columnIndex(named: "age"))
        var row = [Value](repeating: .null, count: schema.columns.count)
        row[age] = .text("old")
        var columns = ColumnSet()
        columns.insert(Int32(age))
        _ = try store.write { tx in
            try tx.updateRow(withKey: .integer(key), row: row, columns: columns, schema: schema)
        }
        do {
            _ = try Person.query(in: store).fetch()
            Issue.record("text read as an Int"); return
        } catch SharkError.decoding(let detail) {
            #expect(detail.reason == .wrongStorageClass)
        }
    }

    @Test("damaged, oversized and mis-keyed change logs and misused engines throw their reasons")
    func syncReasons() throws {
        let sender = try SyncEngine(
            store: try TestDriver.memory.makeStore(), lineage: "reasons", models: [SyncNote.self])
        let receiver = try SyncEngine(
            store: try TestDriver.memory.makeStore(), lineage: "reasons", models: [SyncNote.self])
        try sender.store.commit(SyncNote(title: "hello"))
        let file = try sender.exportChanges()
        guard
            case .corrupt(let truncated) = syncError({ try receiver.importChanges(from: file.prefix(file.count - 3)) })
        else { Issue.record("a truncated file was not refused as damaged"); return }
        #expect(truncated.reason == .truncated)
        let sealed = try sender.exportChanges(key: .random())
        guard case .keyMismatch(let keyless) = syncError({ try receiver.importChanges(from: sealed) }) else {
            Issue.record("a sealed file was read without a key"); return
        }
        #expect(keyless.reason == .keyRequired)
        guard case .keyMismatch(let needless) = syncError({ try receiver.importChanges(from: file, key: .random()) })
        else { Issue.record("a key was taken for a plain file"); return }
        #expect(needless.reason == .keyNotExpected)
        var limits = ChangeLogLimits()
        limits.maximumHeaderBytes = 8
        guard case .tooLarge(let large) = syncError({ try receiver.importChanges(from: file, limits: limits) }) else {
            Issue.record("a header over the limit was read"); return
        }
        #expect(large.reason == .headerBytes)
        guard
            case .misuse(let inside) = syncError({
                try receiver.store.write { _ in _ = try receiver.importChanges(from: file) }
            })
        else { Issue.record("an import ran inside a transaction"); return }
        #expect(inside.reason == .insideTransaction)
    }
}

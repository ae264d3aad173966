import Foundation
@_spi(SharkDriver) @_spi(SharkReplication) import SharkORM
import Testing

/// The reason an error carries, or nil when it is not of the expected case.
private func queryReason(_ body: () throws -> Void) -> SharkError.QueryReason? {
    do { try body() } catch SharkError.invalidQuery(let detail) { return detail.reason } catch {}
    return nil
}

private func valueReason(_ body: () throws -> Void) -> SharkError.ValueReason? {
    do { try body() } catch SharkError.invalidValue(let detail) { return detail.reason } catch {}
    return nil
}

/// The same typed reason for the same mistake on every driver.
@Suite("Typed error reasons")
struct ErrorReasonTests {
    func coreReasons(driver: ConformanceDriver) throws {
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
        if !driver.hasRawSQL {
            do {
                _ = try store.rows("SELECT 1")
                Issue.record("raw SQL ran on the memory driver"); return
            } catch SharkError.unsupported(let detail) {
                #expect(detail.reason == .rawSQL)
            }
        } else {
            #expect(
                queryReason {
                    _ = try store.rows(driver.sql("DELETE FROM Person", postgresql: #"DELETE FROM "Person""#))
                } == .rawStatementMayWrite)
            #expect(
                queryReason { _ = try store.rows(driver.sql("SELECT ?", postgresql: "SELECT $1")) } == .rawArgumentCount
            )
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

    func decodingReason(driver: ConformanceDriver) throws {
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
}

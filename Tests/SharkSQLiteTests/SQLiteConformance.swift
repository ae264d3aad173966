import SharkDriverConformance
import SharkSQLite
import Testing

/// The conformance suite on the SQLite driver, each check its own test case.
@Test("conformance", arguments: ConformanceSuite.cases(for: .sqliteFiles))
func conformance(_ check: ConformanceCase) async throws { try await check.run() }

extension ConformanceDriver {
    static let sqliteFiles = ConformanceDriver(name: "sqlite", hasRawSQL: true, temporary: { .sqliteTemporary }) {
        .sqlite(path: $0, readOnly: $1)
    }
}

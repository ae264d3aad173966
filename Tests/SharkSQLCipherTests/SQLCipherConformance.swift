import SharkDriverConformance
import SharkSQLCipher
import Testing

/// The conformance suite on the SQLCipher driver, each check its own test case.
@Test("conformance", arguments: ConformanceSuite.cases(for: .sqlcipherFiles))
func conformance(_ check: ConformanceCase) async throws { try await check.run() }

extension ConformanceDriver {
    static let sqlcipherFiles = ConformanceDriver(
        name: "sqlcipher", hasRawSQL: true, temporary: { .sqlcipherTemporary(key: key) }
    ) { .sqlcipher(path: $0, key: key, readOnly: $1) }
}

/// The key of every store the suite opens.
private let key = SQLCipherKey.passphrase("conformance suite")

import SharkDriverConformance
import SharkTestSupport
import Testing

/// The conformance suite on the SQLite driver, each check its own test case (the one call any
/// driver's test target makes; `TestDriver.sqlite.conformance` describes the driver).
@Test("conformance", arguments: ConformanceSuite.cases(for: TestDriver.sqlite.conformance))
func conformance(_ check: ConformanceCase) async throws { try await check.run() }

import RemoteDriver
import SharkDriverConformance
import Testing

/// The conformance suite on the remote driver, each check its own test case: the one call a
/// driver's test target makes.
@Test("conformance", arguments: ConformanceSuite.cases(for: .remote))
func conformance(_ check: ConformanceCase) async throws { try await check.run() }

extension ConformanceDriver {
    /// The remote driver as the suite sees it: a fresh, empty store per check; no files to
    /// reopen, no raw SQL.
    static let remote = ConformanceDriver(name: "remote") { .remote }
}

import SharkDriverConformance
import SharkMemory
import Testing

/// The conformance suite on the memory engine, each check its own test case.
@Test("conformance", arguments: ConformanceSuite.cases(for: .memoryEngine))
func conformance(_ check: ConformanceCase) async throws { try await check.run() }

extension ConformanceDriver {
    static let memoryEngine = ConformanceDriver(name: "memory") { .memory }
}

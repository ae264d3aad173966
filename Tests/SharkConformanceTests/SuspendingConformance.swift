import SharkDriverConformance
import Testing

/// The conformance suite on a driver whose every call suspends (`SuspendingDriver`).
@Test("conformance on a suspending driver", arguments: ConformanceSuite.cases(for: TestDriver.suspending.conformance))
func suspendingConformance(_ check: ConformanceCase) async throws { try await check.run() }

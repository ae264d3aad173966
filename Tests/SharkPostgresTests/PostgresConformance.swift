import SharkDriverConformance
import Testing

/// The conformance suite on PostgreSQL, against the throw-away server scripts/test.sh starts:
/// every check but those ``PostgresExclusions`` lists, each with its reason.
@Test("conformance", arguments: PostgresExclusions.cases)
func conformance(_ check: ConformanceCase) async throws { try await check.run() }

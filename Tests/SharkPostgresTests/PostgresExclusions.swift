import SharkDriverConformance
import SharkTestSupport
import Testing

/// The conformance checks not run on PostgreSQL, each with the reason. A check is left out
/// only when it is about something PostgreSQL has no counterpart for (SQLite's files, a
/// storage class another program wrote into a typed column) or when PostgreSQL's rule is
/// documented as different (docs/values.md, "PostgreSQL"); the test below prints the list
/// into the test log and fails on a name that no longer matches a check.
enum PostgresExclusions {
    /// Reasons, keyed by "suite › check".
    static let reasons: [String: String] = [
        "Errors are typed and leave nothing half-written › a directory":
            "a path to a file: a PostgreSQL store is a schema on a server (bad connections: PostgresDriverTests)",
        "Errors are typed and leave nothing half-written › a location that does not exist":
            "a path to a file: a PostgreSQL store is a schema on a server (bad connections: PostgresDriverTests)",
        "Errors are typed and leave nothing half-written › an unwritable location":
            "a path to a file: a PostgreSQL store is a schema on a server (bad connections: PostgresDriverTests)",
        "Read-only stores › a file recorded before integer widths were reads through today's models":
            "rewrites SQLite's schema record with SQLite's SQL",
        "Read-only stores › a missing file is an error, never created":
            "compares the error with the file's path; a missing read-only schema is refused by PostgresDriverTests",
        "Read-only stores › reads models and rows; refuses writes; leaves the file byte for byte":
            "compares the bytes of the file",
        "Round trip of every supported type › strings: empty, 1 MB, emoji, NUL inside":
            "PostgreSQL text cannot hold U+0000: such a string is refused with invalidValue (docs/values.md); "
            + "the rest of the check runs in PostgresDriverTests",
        "Value rules › LIKE: any pattern length, NUL characters compared, the same on every driver":
            "stores strings with U+0000, which PostgreSQL text cannot hold (docs/values.md)",
        "Typed error reasons › a stored value read as another type names its reason":
            "PostgreSQL's columns are typed: a value of another storage class cannot be stored, so none is misread",
    ]

    static var cases: [ConformanceCase] {
        ConformanceSuite.cases(for: PostgresTestServer.conformance).filter { reasons[key(of: $0.check)] == nil }
    }

    static func key(of check: ConformanceCheck) -> String { "\(check.suite) › \(check.name)" }
}

@Suite("Conformance checks not run on PostgreSQL")
struct PostgresExclusionTests {
    @Test("each names a check of the suite, and the log lists it with its reason")
    func listed() {
        let names = Set(ConformanceSuite.checks.map(PostgresExclusions.key(of:)))
        for (check, reason) in PostgresExclusions.reasons.sorted(by: { $0.key < $1.key }) {
            #expect(names.contains(check), "no conformance check is named \(check)")
            print("not run on PostgreSQL: \(check) — \(reason)")
        }
        // The driver offers everything a check may require (raw SQL in PostgreSQL's dialect,
        // stores that reopen): the suite leaves none of its checks out.
        for check in ConformanceSuite.checks where !check.applies(to: PostgresTestServer.conformance) {
            Issue.record("the suite gives PostgreSQL no case of \(PostgresExclusions.key(of: check))")
        }
        let run = PostgresExclusions.cases.count
        print("conformance on PostgreSQL: \(run) of \(ConformanceSuite.checks.count) checks run")
    }
}

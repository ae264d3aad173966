import Testing

/// One check of the conformance suite: a behaviour every driver must show, run on the
/// driver under test.
public struct ConformanceCheck: Sendable {
    /// What a check needs of a driver beyond the seam.
    public enum Requirement: Sendable {
        /// Nothing: every driver runs it.
        case any
        /// Files that reopen (``ConformanceDriver/isPersistent``).
        case persistent
        /// Raw SQL (``ConformanceDriver/hasRawSQL``).
        case rawSQL
    }

    /// The group the check belongs to ("Aggregates").
    public let suite: String
    /// What the check shows.
    public let name: String
    public let requirement: Requirement
    let body: @Sendable (ConformanceDriver) async throws -> Void

    public init(
        suite: String, name: String, requires requirement: Requirement = .any,
        _ body: @escaping @Sendable (ConformanceDriver) async throws -> Void
    ) {
        self.suite = suite
        self.name = name
        self.requirement = requirement
        self.body = body
    }

    /// Whether `driver` can run this check.
    public func applies(to driver: ConformanceDriver) -> Bool {
        switch requirement {
        case .any: return true
        case .persistent: return driver.isPersistent
        case .rawSQL: return driver.hasRawSQL
        }
    }
}

/// A check on one driver: one test case of a driver's test target, named by both.
public struct ConformanceCase: Sendable, CustomTestStringConvertible {
    public let check: ConformanceCheck
    public let driver: ConformanceDriver

    public var testDescription: String { "\(check.suite) › \(check.name) [\(driver.name)]" }

    /// Runs the check; its expectations record their issues in the running test.
    public func run() async throws { try await check.body(driver) }
}

/// The conformance suite: every check a driver must pass, so that code tested on one driver
/// runs on all. A driver's test target runs it with one parameterized test,
/// `@Test("conformance", arguments: ConformanceSuite.cases(for: driver)) func conformance(_
/// check: ConformanceCase) async throws { try await check.run() }`, in which each check
/// reports as its own test case, described as "suite › check [driver]".
///
/// ```swift
/// import SharkDriverConformance
/// import SharkMemory
///
/// let memory = ConformanceDriver(name: "memory") { .memory }
/// let cases = ConformanceSuite.cases(for: memory)   // what the test's `arguments:` takes
/// print(cases.count, cases.first?.testDescription ?? "")
/// ```
public enum ConformanceSuite {
    /// The checks `driver` can run, each as a case of a parameterized test.
    public static func cases(for driver: ConformanceDriver) -> [ConformanceCase] {
        checks.filter { $0.applies(to: driver) }.map { ConformanceCase(check: $0, driver: driver) }
    }
}

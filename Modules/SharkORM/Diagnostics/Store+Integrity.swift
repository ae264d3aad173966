/// What ``Store/checkIntegrity()`` found.
public struct IntegrityReport: Sendable, Hashable {
    /// One description per problem, in the driver's words; empty when the store is intact.
    public var problems: [String]

    /// Whether no problem was found.
    public var isIntact: Bool { problems.isEmpty }

    public init(problems: [String]) { self.problems = problems }
}

extension Store {
    /// Checks the stored data for damage, without blocking writers.
    ///
    /// A damaged file can open and answer queries for a long time before a read reaches a
    /// damaged page: run this after a crash, a copy between machines or a suspicious error.
    /// SQLite and SQLCipher stores run SQLite's `integrity_check` (every page, index and
    /// constraint); the memory engine checks every index against its rows.
    ///
    /// ```swift
    /// let report = try store.checkIntegrity()
    /// if !report.isIntact { print(report.problems.joined(separator: "\n")) }
    /// ```
    public func checkIntegrity() throws -> IntegrityReport {
        try checkOpen()
        guard let checking = driver as? any IntegrityChecking else {
            throw SharkError.unsupported(.integrityCheck, "the \(driver.name) driver cannot check its storage")
        }
        return IntegrityReport(problems: try checking.checkIntegrity())
    }
}

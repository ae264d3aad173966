import Foundation
import Logging
@_spi(SharkDriver) import SharkORM
import Synchronization
import Testing

@Suite("Tracing")
struct TracingTests {
    func redactedByDefault(driver: ConformanceDriver) throws {
        let log = StatementLog()
        let store = try driver.makeStore(log: log)
        defer { store.close() }
        try store.commit(Person(name: "Secret Name", payrollNumber: 1))
        _ = try Person.query(in: store).where(\.name == "Secret Name").fetch()
        let select = try #require(log.all.last)
        #expect(select.statement.hasPrefix("SELECT") && select.rows == 1)
        #expect(select.arguments == ["?"])
        #expect(!log.all.contains { $0.description.contains("Secret Name") })
        #expect(log.all.allSatisfy { $0.driver == driver.name && $0.duration >= .zero })
        // Durations a person reads: "19.6 µs", never "1.96e-05 seconds".
        let units = [" ns", " µs", " ms", " s"]
        #expect(log.all.allSatisfy { event in units.contains { event.description.hasSuffix($0) } })
        #expect(!log.all.contains { $0.description.contains("seconds") })
    }

    func failuresTraced(driver: ConformanceDriver) throws {
        let log = StatementLog()
        let store = try driver.makeStore(log: log)
        defer { store.close() }
        try store.commit(Person(name: "Ada", payrollNumber: 1))
        #expect(throws: SharkError.self) { try store.commit(Person(name: "Grace", payrollNumber: 1)) }
        let failed = log.all.filter { $0.error != nil }
        #expect(failed.count == 1)
        #expect(failed.first?.statement.hasPrefix("INSERT") == true)
        #expect(failed.first?.error?.contains("payrollNumber") == true)
    }

    func revealed(driver: ConformanceDriver) throws {
        let log = StatementLog()
        let store = try driver.makeStore { $0.traced { log.record($0) }.revealingArguments() }
        defer { store.close() }
        try store.commit(Person(name: "Ada", payrollNumber: 1))
        _ = try Person.query(in: store).where(\.name == "Ada").fetch()
        #expect(log.all.last?.arguments == ["'Ada'"])
    }

    func logger(driver: ConformanceDriver) throws {
        let messages = Mutex<[String]>([])
        let handler = CapturingLogHandler { message in messages.withLock { $0.append(message) } }
        let logger = Logger(label: "shark.test") { _ in handler }
        let store = try driver.makeStore { $0.logged(to: logger, level: .info) }
        defer { store.close() }
        try store.commit(Person(name: "Ada", payrollNumber: 1))
        #expect(messages.withLock { $0.contains { $0.hasPrefix("INSERT INTO \"Person\"") } })
    }
}

struct CapturingLogHandler: LogHandler {
    let capture: @Sendable (String) -> Void
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    init(_ capture: @escaping @Sendable (String) -> Void) { self.capture = capture }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) { capture(event.message.description) }
}

import Foundation
@_spi(SharkDriver) import SharkORM
import SharkSync
import SharkTestSupport

@testable import SharkDriverConformance

/// The site id of test replica `number`: `00000000-0000-0000-0000-<number>`, so that tests
/// know the order in which sites break ties.
func testSite(_ number: Int) -> UUID {
    UUID(uuidString: String(format: "00000000-0000-0000-0000-%012d", number))!
}

/// A replica syncing `models` on a fresh store of `driver`, as site `number`.
func syncReplica(
    _ driver: TestDriver, site number: Int, lineage: String, models: [any Model.Type],
    options: SyncOptions = SyncOptions()
) throws -> SyncEngine {
    var options = options
    options.site = testSite(number)
    return try SyncEngine(store: try driver.makeStore(), lineage: lineage, models: models, options: options)
}

/// Each replica sends the other what it lacks: `a` to `b`, then `b` to `a`.
func exchangeChanges(_ a: SyncEngine, _ b: SyncEngine) throws {
    try b.importChanges(from: try a.exportChanges(since: try b.versionVector()))
    try a.importChanges(from: try b.exportChanges(since: try a.versionVector()))
}

/// Ends a random history: delivers the files still in flight (`network`, each to its
/// receiver's index) in a random order, then has every replica send every other what it
/// lacks, twice, so that what one learns reaches all.
func settle(
    _ engines: [SyncEngine], inFlight network: [(to: Int, file: Data)], using random: inout some RandomNumberGenerator
) throws {
    for delivery in network.shuffled(using: &random) { try engines[delivery.to].importChanges(from: delivery.file) }
    for _ in 0..<2 {
        for sender in engines.indices {
            for receiver in engines.indices where receiver != sender {
                try engines[receiver].importChanges(
                    from: try engines[sender].exportChanges(since: try engines[receiver].versionVector()))
            }
        }
    }
}

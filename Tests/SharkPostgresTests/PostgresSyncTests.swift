import Foundation
@_spi(SharkDriver) import SharkORM
import SharkSync
import SharkTestSupport
import Testing

@testable import SharkPostgres

/// One PostgreSQL database is one sync site, however many stores write it: their
/// transactions take turns (docs/architecture.md, "Sync on a shared database"), so sequence
/// numbers follow commit order and an export never claims a transaction that has not
/// committed.
@Suite("PostgreSQL as one sync site")
struct PostgresSyncTests {
    /// Fewer than the many-writer test without sync: synced writers take turns.
    static let transfers = 1_600

    private static func options(slot: Int) -> SyncOptions {
        var options = SyncOptions()
        options.assignKeys(of: WorkerAccount.self, .appAssigned)
        options.assignKeys(of: WorkerTransfer.self, .slot(slot))
        return options
    }

    private static func engine(on store: Store, slot: Int) throws -> SyncEngine {
        try SyncEngine(
            store: store, lineage: "transfers", models: [WorkerAccount.self, WorkerTransfer.self],
            options: options(slot: slot))
    }

    /// Whether `store`'s accounts hold what its transfers say: the total kept, each balance
    /// its opening plus its history. What a consistent snapshot of the workers' database
    /// shows, and a snapshot with half a transfer does not.
    private static func holdsItsHistory(_ store: Store) throws -> Bool {
        let accounts = try WorkerAccount.query(in: store).fetch()
        let opening = PostgresManyWritersTests.opening
        var expected = Dictionary(uniqueKeysWithValues: accounts.map { ($0.id, opening) })
        for transfer in try WorkerTransfer.query(in: store).fetch() {
            expected[transfer.source, default: 0] -= transfer.amount
            expected[transfer.destination, default: 0] += transfer.amount
        }
        return accounts.count == Int(PostgresManyWritersTests.accounts)
            && accounts.reduce(0) { $0 + $1.balance } == PostgresManyWritersTests.accounts * opening
            && accounts.allSatisfy { expected[$0.id] == $0.balance }
    }

    @Test("many writers with sync on: each export taken while they write is a committed state; the replica converges")
    func manyWritersWithSync() throws {
        let seed = PostgresManyWritersTests.seed(of: "many writers with sync")
        let schema = PostgresTestServer.uniqueSchema()
        let store = try Store(.postgres(try PostgresTestServer.settings(schema: schema, dropsSchema: true)))
        defer { store.close() }
        let sync = try Self.engine(on: store, slot: 1)
        try store.commit(
            (1...PostgresManyWritersTests.accounts).map { number in
                let account = WorkerAccount(balance: PostgresManyWritersTests.opening)
                account.id = number
                return account
            })
        #expect(try WorkerTransfer.query(in: store).count() == 0)
        let replicaStore = try TestDriver.sqlite.makeStore()
        defer { replicaStore.close() }
        let replica = try Self.engine(on: replicaStore, slot: 2)

        let running = try PostgresManyWritersTests.startWorkers(
            schema: schema, seed: seed, transfers: Self.transfers, sync: true)
        // While they write: each export since the replica's vector brings the replica to a
        // state the workers' schema had between two commits, and never takes back what an
        // earlier one brought (a vector that claimed an uncommitted transaction would skip
        // its changes for good, and the final counts and digests would differ).
        var exports = 0
        var inconsistent = 0
        var seenTransfers: [Int] = []
        let started = Date()
        while running.contains(where: { $0.0.isRunning }),
            Date().timeIntervalSince(started) < PostgresManyWritersTests.deadline
        {
            try replica.importChanges(from: try sync.exportChanges(since: try replica.versionVector()))
            exports += 1
            if try !Self.holdsItsHistory(replicaStore) { inconsistent += 1 }
            seenTransfers.append(try WorkerTransfer.query(in: replicaStore).count())
            Thread.sleep(forTimeInterval: 0.05)
        }
        let outcome = PostgresManyWritersTests.collect(running)
        print(
            "many writers with sync: \(outcome.made) transfers, \(outcome.conflicts) attempts lost a race, "
                + "\(exports) exports taken while writing (transfers the replica had after each: "
                + "\(seenTransfers.prefix(8).map(String.init).joined(separator: ", "))…)")
        #expect(outcome.made == Self.transfers)
        #expect(inconsistent == 0, "\(inconsistent) of \(exports) exports were not a committed state")
        #expect(seenTransfers == seenTransfers.sorted(), "an export took back transfers an earlier one brought")

        // The database holds its history; the replica, after a last export, holds the same.
        #expect(try Self.holdsItsHistory(store))
        #expect(try WorkerTransfer.query(in: store).count() == Self.transfers)
        try replica.importChanges(from: try sync.exportChanges(since: try replica.versionVector()))
        #expect(try Self.holdsItsHistory(replicaStore))
        #expect(try WorkerTransfer.query(in: replicaStore).count() == Self.transfers)
        #expect(try sync.digest() == replica.digest())
        // One site for every process: the vector names the database once (and the replica,
        // which wrote nothing, not at all).
        #expect(Array(try sync.versionVector().entries.keys) == [sync.site])
    }

    @Test("a synced store writing inside another's write transaction on one thread throws: it would wait for itself")
    func turnHeldByThisThread() throws {
        let schema = PostgresTestServer.uniqueSchema()
        let first = try Store(.postgres(try PostgresTestServer.settings(schema: schema, dropsSchema: true)))
        defer { first.close() }
        let second = try Store(.postgres(try PostgresTestServer.settings(schema: schema)))
        defer { second.close() }
        let firstSync = try Self.engine(on: first, slot: 5)
        let secondSync = try Self.engine(on: second, slot: 5)
        try first.write { tx in
            try tx.commit(WorkerTransfer())
            #expect {
                try second.commit(WorkerTransfer())
            } throws: { error in
                guard case SharkError.transactionMisuse(let detail) = error else { return false }
                return detail.reason == .turnHeldByThisThread
            }
        }
        // Once the first's transaction ended, the second writes.
        try second.commit(WorkerTransfer())
        #expect(try WorkerTransfer.query(in: first).count() == 2)
        withExtendedLifetime((firstSync, secondSync)) {}
    }

    @Test("stores on one database share its site, number keys in its slot without collisions, export each other's rows")
    func storesShareTheSite() throws {
        let schema = PostgresTestServer.uniqueSchema()
        let first = try Store(.postgres(try PostgresTestServer.settings(schema: schema, dropsSchema: true)))
        defer { first.close() }
        let second = try Store(.postgres(try PostgresTestServer.settings(schema: schema)))
        defer { second.close() }
        let firstSync = try Self.engine(on: first, slot: 3)
        let secondSync = try Self.engine(on: second, slot: 3)
        #expect(firstSync.site == secondSync.site)

        // Interleaved inserts in the one slot: each store numbers after the other's rows.
        var keys: [Int64] = []
        for round in 0..<6 {
            let transfer = WorkerTransfer()
            transfer.amount = Int64(round)
            try (round.isMultiple(of: 2) ? first : second).commit(transfer)
            keys.append(transfer.id)
        }
        #expect(Set(keys).count == 6)
        #expect(keys == keys.sorted())

        // Either store's export has every row, whichever store wrote it.
        let replicaStore = try TestDriver.memory.makeStore()
        defer { replicaStore.close() }
        let replica = try Self.engine(on: replicaStore, slot: 4)
        try replica.importChanges(from: try secondSync.exportChanges())
        #expect(try WorkerTransfer.query(in: replicaStore).orderBy(\.id).fetch().map(\.id) == keys)
        #expect(try replica.versionVector() == firstSync.versionVector())
    }
}

// One process of the many-writer test (Tests/SharkPostgresTests/PostgresManyWritersTests.swift):
// threads that move money between accounts of one PostgreSQL schema through the ORM, each
// transfer a `store.write` that fetches both accounts, changes their balances and records the
// transfer. Other processes do the same at once, so transactions collide; the store runs the
// losers again. It prints how many transfers it made and how many attempts lost a race.
//
// Usage: shark-postgres-transfers SCHEMA SEED THREADS TRANSFERS-PER-THREAD ACCOUNTS [sync]
// (the server from SHARK_POSTGRES_HOST, _PORT, _USER and _PASSWORD_FILE). With `sync`, the
// store syncs both models, as every process writing a synced database must.
import Foundation
import SharkORM
import SharkPostgres
import SharkSync
import Synchronization

@Model(entity: "Account")
final class Account {
    var id: Int64 = 0
    var balance: Int64 = 0

    init(balance: Int64) { self.balance = balance }
}

@Model(entity: "Transfer")
final class Transfer {
    var id: Int64 = 0
    var source: Int64 = 0
    var destination: Int64 = 0
    var amount: Int64 = 0

    init(source: Int64, destination: Int64, amount: Int64) {
        self.source = source
        self.destination = destination
        self.amount = amount
    }
}

/// SplitMix64: the same transfers for the same seed.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

let arguments = CommandLine.arguments
guard arguments.count == 6 || (arguments.count == 7 && arguments[6] == "sync"), let seed = UInt64(arguments[2]),
    let threads = Int(arguments[3]),
    let perThread = Int(arguments[4]), let accounts = Int64(arguments[5])
else {
    FileHandle.standardError.write(
        Data("usage: shark-postgres-transfers SCHEMA SEED THREADS TRANSFERS ACCOUNTS [sync]\n".utf8))
    exit(64)
}
let environment = ProcessInfo.processInfo.environment
guard let host = environment["SHARK_POSTGRES_HOST"], let port = environment["SHARK_POSTGRES_PORT"].flatMap({ Int($0) }),
    let passwordFile = environment["SHARK_POSTGRES_PASSWORD_FILE"]
else {
    FileHandle.standardError.write(Data("no server: SHARK_POSTGRES_HOST, _PORT and _PASSWORD_FILE are not set\n".utf8))
    exit(69)
}

// Lost races, counted from the statements the store reports as failed with a conflict.
let conflicts = Atomic<Int>(0)
let configuration = StoreConfiguration.postgres(
    host: host, port: port, database: "postgres", user: environment["SHARK_POSTGRES_USER"] ?? "shark",
    password: .file(passwordFile), tls: .disabled, schema: arguments[1], connections: threads + 1
).traced { event in
    if let error = event.error, error.contains("[40001]") || error.contains("[40P01]") {
        conflicts.add(1, ordering: .relaxed)
    }
}
let store = try Store(configuration)
// One database is one sync site: each process's engine finds the site the first one made.
// Accounts have the app's keys; transfers are numbered in the site's slot.
var syncOptions = SyncOptions()
syncOptions.assignKeys(of: Account.self, .appAssigned)
syncOptions.assignKeys(of: Transfer.self, .slot(1))
let sync =
    arguments.count == 7
    ? try SyncEngine(store: store, lineage: "transfers", models: [Account.self, Transfer.self], options: syncOptions)
    : nil
let failures = Mutex<[String]>([])
// Transfers whose every attempt lost (Store.transactionAttempts): the app's to retry, as an
// app would after PostgresError.transactionConflict; counted, then made again.
let retriedByApp = Atomic<Int>(0)
let group = DispatchGroup()
for thread in 0..<threads {
    group.enter()
    Thread.detachNewThread {
        defer { group.leave() }
        var random = SeededGenerator(state: seed &* 1_000 &+ UInt64(thread))
        for _ in 0..<perThread {
            let source = Int64.random(in: 1...accounts, using: &random)
            var destination = Int64.random(in: 1...(accounts - 1), using: &random)
            if destination >= source { destination += 1 }
            let amount = Int64.random(in: 1...100, using: &random)
            while true {
                do {
                    try store.write { tx in
                        guard let from = try store.find(Account.self, id: source),
                            let to = try store.find(Account.self, id: destination)
                        else { throw SharkError.notFound(entity: "Account", key: "\(source) or \(destination)") }
                        from.balance -= amount
                        to.balance += amount
                        try tx.commit(from)
                        try tx.commit(to)
                        try tx.commit(Transfer(source: source, destination: destination, amount: amount))
                    }
                } catch PostgresError.transactionConflict {
                    retriedByApp.add(1, ordering: .relaxed)
                    Thread.sleep(forTimeInterval: Double.random(in: 0.01...0.1))
                    continue
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
                break
            }
        }
    }
}
group.wait()
withExtendedLifetime(sync) { store.close() }
let failed = failures.withLock { $0 }
print(
    "transfers \(threads * perThread - failed.count) conflicts \(conflicts.load(ordering: .relaxed)) "
        + "retried-by-app \(retriedByApp.load(ordering: .relaxed)) failed \(failed.count)"
)
for failure in failed.prefix(5) { print("failure: \(failure)") }
exit(failed.isEmpty ? 0 : 1)

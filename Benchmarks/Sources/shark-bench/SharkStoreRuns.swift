import Foundation
import SharkMemory
import SharkORM
import SharkSQLCipher
import SharkSQLite

/// What the workloads that need SharkORM itself (O, S) share: a fresh store per backend, and
/// repetitions with the backends alternated.
enum SharkStoreRuns {
    /// The backends such workloads run on.
    static let kinds: [BackendKind] = [.sharkSQLite, .sharkSQLCipher, .sharkMemory]

    /// "release build", or a reminder to measure one.
    static var isDebugBuild: Bool {
        #if DEBUG
            true
        #else
            false
        #endif
    }

    static var buildDescription: String {
        #if DEBUG
            "debug build: measure a release build"
        #else
            "release build"
        #endif
    }

    /// A fresh store of `kind` in `directory`, and what closes it and removes its files.
    static func open(_ kind: BackendKind, directory: String, workload: String) throws -> (Store, () -> Void) {
        let path = directory + "/shark-bench-\(workload)-\(UUID().uuidString).sqlite"
        let store: Store
        switch kind {
        case .sharkSQLite: store = try Store(.sqlite(path: path))
        case .sharkSQLCipher: store = try Store(.sqlcipher(path: path, key: .passphrase("bench")))
        case .sharkMemory: store = try Store(.memory)
        default: throw BenchError.wrongResult("\(workload) runs on the SharkORM drivers only, not \(kind.rawValue)")
        }
        return (
            store,
            {
                store.close()
                for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
            }
        )
    }

    /// `body` for each of `backends` that is a SharkORM driver, `runs` times, backends
    /// alternated within each repetition, with a progress bar on a terminal.
    static func alternating<Result>(
        _ backends: [BackendKind], runs: Int, label: String, _ body: (BackendKind) throws -> Result
    ) rethrows -> (kinds: [BackendKind], results: [BackendKind: [Result]]) {
        let kinds = backends.filter(Self.kinds.contains)
        var results: [BackendKind: [Result]] = [:]
        let progress = ProgressBar(total: runs * kinds.count)
        defer { progress.finish() }
        for run in 0..<runs {
            for kind in kinds {
                progress.step("\(label): run \(run + 1)/\(runs), \(kind.title)")
                results[kind, default: []].append(try body(kind))
            }
        }
        return (kinds, results)
    }
}

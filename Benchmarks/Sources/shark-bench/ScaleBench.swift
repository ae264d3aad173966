import CHeapStats
import Foundation
import SharkMemory
import SharkORM
import SharkSQLCipher
import SharkSQLite

/// Z: what one operation costs as the store grows. For each size N (10,000, 100,000 and
/// 1,000,000 rows by default) and each repetition, every backend gets a fresh store filled
/// with N rows of the ten-column model (untimed, 50,000 rows a transaction), then runs each
/// point operation on keys drawn uniformly at random over the whole store, each operation
/// timed alone; a run's figure is the median of its probes, and the table gives the median
/// of the runs with their spread. A cost that does not grow with the store has a growth
/// ratio (largest N over smallest) near 1; on the SQL drivers the ratio to compare is the
/// raw C loop's over the same library, since SQLite's own B-trees deepen with N.
///
/// `batch(size:)` reads the whole store in windows of N/100 rows (at least 1,000), by key
/// and ordered by a column without an index: its first five windows against its last five.
enum ScaleBench {
    /// The backends the family runs (GRDB's records are compared by the workloads, not here).
    static let backends: [BackendKind] = [
        .rawSQLite, .rawSQLCipher, .sharkSQLite, .sharkSQLCipher, .sharkMemory, .dictionary,
    ]

    /// Rows a fill commits at once.
    static let fillChunk = 50_000

    static func measure(
        _ kinds: [BackendKind], sizes: [Int], runs: Int, probes: Int, windows: Bool = true, directory: String,
        progress: (String) -> Void
    ) throws -> ScaleFigures {
        var samples = ScaleSamples()
        for rows in sizes {
            for repetition in 0..<runs {
                for kind in Harness.order(of: kinds, repetition: repetition) {
                    progress("\(rows.formatted()) rows, repetition \(repetition + 1)/\(runs): \(kind.title)")
                    try runOnce(
                        kind, rows: rows, probes: probes, windows: windows, directory: directory, into: &samples)
                }
            }
        }
        return samples.figures(sizes: sizes, runs: runs, probes: probes, backends: kinds)
    }

    private static func makeBackend(_ kind: BackendKind, directory: String) throws -> any ScaleBackend {
        let path = directory + "/shark-bench-scale-\(UUID().uuidString).sqlite"
        switch kind {
        case .rawSQLite: return RawScale(RawDatabase(api: RawLibraries.sqlite, path: path))
        case .rawSQLCipher: return RawScale(RawDatabase(api: RawLibraries.sqlcipher, path: path, key: "bench"))
        case .sharkSQLite: return try SharkScale(Store(.sqlite(path: path)), path: path)
        case .sharkSQLCipher:
            return try SharkScale(Store(.sqlcipher(path: path, key: .passphrase("bench"))), path: path)
        case .sharkMemory: return try SharkScale(Store(.memory), path: nil)
        case .dictionary: return DictionaryScale()
        case .grdb, .rawPostgres, .sharkPostgres, .fluent: throw ScaleError.unsupported(kind.title)
        }
    }

    private static func runOnce(
        _ kind: BackendKind, rows: Int, probes: Int, windows: Bool, directory: String,
        into samples: inout ScaleSamples
    ) throws {
        let heapBefore = Int(shark_heap_in_use())
        let backend = try makeBackend(kind, directory: directory)
        defer { backend.close() }
        var filled = 0
        while filled < rows {
            let count = min(fillChunk, rows - filled)
            try untimed { try backend.fill(InputRow.make(from: filled, count: count)) }
            filled += count
        }
        let heapBytes = Int(shark_heap_in_use()) - heapBefore
        samples.footprint(kind, rows, heapBytesPerRow: Double(heapBytes) / Double(rows), fileBytes: backend.fileBytes)

        var random = SeededGenerator(seed: 0x5CA1E &+ UInt64(rows))
        func randomKeys(_ count: Int) -> [Int64] {
            (0..<count).map { _ in Int64.random(in: 1...Int64(rows), using: &random) }
        }
        func time(_ operation: ScaleOperation, _ actions: [ScaleAction]) throws {
            let seconds = try actions.map { action in try measured(action) }
            samples.add(kind, operation, rows, seconds)
        }
        var stored = rows
        var nextRow = rows

        try time(.lookup, randomKeys(probes * 5).map(backend.lookup))
        if kind != .dictionary { try time(.snapshot, randomKeys(probes).compactMap(backend.snapshot)) }
        // A lookup right after a commit of another row, the commit untimed: what a read pays
        // when a write has just changed the store (a SQL reader connection drops its page
        // cache when the file changed; SQLCipher then decrypts the pages it reads again).
        var afterCommit: [Double] = []
        for (changed, looked) in zip(randomKeys(probes), randomKeys(probes)) {
            let write = try untimedValue { try backend.update(changed) }
            try untimed { try write() }
            afterCommit.append(try measured(backend.lookup(looked)))
        }
        samples.add(kind, .lookupAfterCommit, rows, afterCommit)
        try time(.update, randomKeys(probes).map { key in try untimedValue { try backend.update(key) } })
        for (operation, width) in [(ScaleOperation.commitOne, 1), (.commitHundred, 100)] {
            let count = width == 1 ? probes : max(5, probes / 10)
            let actions = try (0..<count).map { _ in
                defer { nextRow += width }
                return try untimedValue { try backend.commitNew(InputRow.make(from: nextRow, count: width)) }
            }
            try time(operation, actions)
            stored += count * width
        }
        let expected = stored
        try time(.count, (0..<20).map { _ in backend.count(expected: expected) })
        if let savepoints = try backend.savepoints(probes) { samples.add(kind, .savepoint, rows, savepoints) }
        var doomed = Set<Int64>()
        while doomed.count < min(probes, rows / 2) { doomed.insert(randomKeys(1)[0]) }
        try time(
            .remove,
            doomed.sorted().shuffled(using: &random).map { key in try untimedValue { try backend.remove(key) } })

        guard windows else { return }
        let window = max(1_000, rows / 100)
        for (ordered, start, end) in [
            (false, ScaleOperation.windowStart, ScaleOperation.windowEnd),
            (true, .orderedWindowStart, .orderedWindowEnd),
        ] {
            guard let seconds = try backend.windows(size: window, ordered: ordered), seconds.count >= 2 else {
                continue
            }
            let edge = min(5, seconds.count / 2)
            samples.add(kind, start, rows, Array(seconds.prefix(edge)))
            // The last window is short; the five before it are full.
            samples.add(kind, end, rows, Array(seconds.dropLast().suffix(edge)))
        }
    }
}

/// Preparation of a timed action, kept out of the callgrind count like `untimed`.
@inline(never)
func untimedValue<T>(_ body: () throws -> T) rethrows -> T {
    try body()
}

/// An operation of Z.
enum ScaleOperation: String, CaseIterable, Codable, Sendable {
    case commitOne = "commit-1"
    case commitHundred = "commit-100"
    case lookup
    case lookupAfterCommit = "lookup-after-commit"
    case update = "update-1"
    case remove = "remove-1"
    case count
    case snapshot
    case savepoint
    case windowStart = "window-first"
    case windowEnd = "window-last"
    case orderedWindowStart = "ordered-window-first"
    case orderedWindowEnd = "ordered-window-last"

    var title: String {
        switch self {
        case .commitOne: "commit of 1 new row"
        case .commitHundred: "commit of 100 new rows"
        case .lookup: "lookup by key"
        case .lookupAfterCommit: "lookup by key right after a commit"
        case .update: "update of one row (its own transaction)"
        case .remove: "removal of one row (its own transaction)"
        case .count: "count() without a filter"
        case .snapshot: "a read transaction with one lookup"
        case .savepoint: "an empty savepoint in a write transaction"
        case .windowStart: "batch(size:) by key: a first window"
        case .windowEnd: "batch(size:) by key: a last window"
        case .orderedWindowStart: "batch(size:) ordered: a first window"
        case .orderedWindowEnd: "batch(size:) ordered: a last window"
        }
    }

    /// Whether it is a window of `batch(size:)`, whose rows grow with N (N/100 a window).
    var isWindow: Bool { [.windowStart, .windowEnd, .orderedWindowStart, .orderedWindowEnd].contains(self) }
}

/// Per-run medians as they come, before they become figures.
struct ScaleSamples {
    private var medians: [String: [Double]] = [:]
    private var heap: [String: [Double]] = [:]
    private var files: [String: [Double]] = [:]

    private static func key(_ kind: BackendKind, _ operation: String, _ rows: Int) -> String {
        "\(kind.rawValue)|\(operation)|\(rows)"
    }

    mutating func add(_ kind: BackendKind, _ operation: ScaleOperation, _ rows: Int, _ seconds: [Double]) {
        guard !seconds.isEmpty else { return }
        medians[Self.key(kind, operation.rawValue, rows), default: []].append(median(seconds) * 1e6)
    }

    mutating func footprint(_ kind: BackendKind, _ rows: Int, heapBytesPerRow: Double, fileBytes: Int?) {
        heap[Self.key(kind, "heap", rows), default: []].append(heapBytesPerRow)
        if let fileBytes { files[Self.key(kind, "file", rows), default: []].append(Double(fileBytes) / Double(rows)) }
    }

    func figures(sizes: [Int], runs: Int, probes: Int, backends: [BackendKind]) -> ScaleFigures {
        var points: [ScaleFigures.Point] = []
        var footprints: [ScaleFigures.Footprint] = []
        for kind in backends {
            for rows in sizes {
                for operation in ScaleOperation.allCases {
                    guard let values = medians[Self.key(kind, operation.rawValue, rows)], !values.isEmpty
                    else { continue }
                    points.append(
                        ScaleFigures.Point(
                            backend: kind.rawValue, operation: operation.rawValue, rows: rows,
                            medianMicroseconds: median(values), minMicroseconds: values.min()!,
                            maxMicroseconds: values.max()!))
                }
                if let perRow = heap[Self.key(kind, "heap", rows)].map(median) {
                    footprints.append(
                        ScaleFigures.Footprint(
                            backend: kind.rawValue, rows: rows, heapBytesPerRow: perRow,
                            fileBytesPerRow: files[Self.key(kind, "file", rows)].map(median)))
                }
            }
        }
        return ScaleFigures(
            sizes: sizes, runs: runs, probes: probes, backends: backends.map(\.rawValue), points: points,
            footprints: footprints)
    }
}

/// Z's results, as `--json` writes them: per backend, operation and size, the median of the
/// runs' medians in microseconds with the runs' spread; per backend and size, the heap the
/// filled store holds per row (and its files' bytes per row).
struct ScaleFigures: Codable {
    struct Point: Codable {
        var backend: String
        var operation: String
        var rows: Int
        var medianMicroseconds: Double
        var minMicroseconds: Double
        var maxMicroseconds: Double
    }

    struct Footprint: Codable {
        var backend: String
        var rows: Int
        var heapBytesPerRow: Double
        var fileBytesPerRow: Double?
    }

    var sizes: [Int]
    var runs: Int
    var probes: Int
    var backends: [String]
    var points: [Point]
    var footprints: [Footprint]

    func point(_ backend: String, _ operation: ScaleOperation, _ rows: Int) -> Point? {
        points.first { $0.backend == backend && $0.operation == operation.rawValue && $0.rows == rows }
    }

    /// The cost at the largest size over the cost at the smallest.
    func growth(_ backend: String, _ operation: ScaleOperation) -> Double? {
        guard let first = sizes.first, let last = sizes.last, first != last,
            let small = point(backend, operation, first), let large = point(backend, operation, last),
            small.medianMicroseconds > 0
        else { return nil }
        return large.medianMicroseconds / small.medianMicroseconds
    }

    /// The raw C loop a SharkORM SQL driver is held against.
    static func baseline(of backend: String) -> String? {
        switch backend {
        case BackendKind.sharkSQLite.rawValue: BackendKind.rawSQLite.rawValue
        case BackendKind.sharkSQLCipher.rawValue: BackendKind.rawSQLCipher.rawValue
        default: nil
        }
    }
}

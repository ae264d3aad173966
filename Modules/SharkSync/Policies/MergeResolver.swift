import Foundation
@_spi(SharkReplication) import SharkORM
import Synchronization

/// An app resolver (`MergePolicy.resolved(_:as:by:)`) as sync applies it: its
/// name, which every replica records and every file's header carries, and the join over
/// stored values, which only an engine opened with the model that declares it has. An engine
/// opened without models (the command line) knows the name alone, and refuses to merge such
/// a column (``SyncError/MergePolicyReason/resolverUnavailable``).
struct MergeResolver: Sendable, Hashable {
    /// The app's join, over stored values and the versions they were written at.
    typealias Join = @Sendable (Value, ColumnVersion, Value, ColumnVersion) throws(SyncError) -> Value

    let name: String
    let join: Join?
    /// Whether the join decodes the column's values as JSON (a `Codable` property): the
    /// column must then store JSON.
    var decodesJSON = false
    /// Recent inputs, which debug builds check the join's laws on (see ``JoinLaws``).
    let samples = JoinSamples()

    static func == (lhs: MergeResolver, rhs: MergeResolver) -> Bool { lhs.name == rhs.name }
    func hash(into hasher: inout Hasher) { hasher.combine(name) }

    /// A name a header can carry and a reader can tell apart: 1 to 200 ASCII letters, digits,
    /// `-`, `_` and `.`.
    static func isValidName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= MergeRule.longestResolverName
            && name.utf8.allSatisfy { byte in
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                    || byte == 0x2D || byte == 0x5F || byte == 0x2E
            }
    }

    /// The join of two concurrent values of `column` (the caller stamps it with
    /// ``version(joining:_:)``). In debug builds the join's laws are checked on these inputs and a recent one
    /// of another merge; a law broken throws ``SyncError/MergePolicyReason/notAJoin``.
    func apply(
        _ local: Value, at localVersion: ColumnVersion, _ incoming: Value, at incomingVersion: ColumnVersion,
        column: String
    ) throws(SyncError) -> Value {
        guard let join else { throw Self.unavailable(name, column: column) }
        let result = try join(local, localVersion, incoming, incomingVersion)
        #if DEBUG
            var inputs = [(local, localVersion), (incoming, incomingVersion)]
            if let earlier = samples.exchange((incoming, incomingVersion)) { inputs.append(earlier) }
            try JoinLaws.check(join, name: name, on: inputs)
        #endif
        return result
    }

    /// The version a joined value carries: the greater of its inputs', never a new write.
    /// Always the greater, even for a value equal to the other input: the version is then the
    /// greatest of the writes the value includes, the same on every replica whatever the order
    /// it joined them in.
    static func version(joining localVersion: ColumnVersion, _ incomingVersion: ColumnVersion) -> ColumnVersion {
        incomingVersion.wins(over: localVersion) ? incomingVersion : localVersion
    }

    /// The error of an engine that has only the resolver's name.
    static func unavailable(_ name: String, column: String) -> SyncError {
        .mergePolicy(
            .resolverUnavailable,
            "\(column) merges by the app's resolver \"\(name)\": only an engine opened with the model that declares it can merge its values (open the store with the app's models, not from its recorded schema)"
        )
    }
}

/// The laws that make an app resolver converge, whatever order files arrive in: a join is
/// commutative (`j(a, b) = j(b, a)`), idempotent (`j(a, a) = a`) and associative
/// (`j(j(a, b), c) = j(a, j(b, c))`), where a joined value carries the greater version of its
/// two inputs (``MergeResolver/version(joining:_:)``). A resolver that compares versions must
/// keep these laws too: "the later version's value" does; "the longer text, and for equal
/// lengths the later version" does not (the shorter text may carry the greater version once
/// joined), where "the longer text, and for equal lengths the greater text" does.
enum JoinLaws {
    /// Checks every law on `inputs` (each pair, and each triple); throws
    /// ``SyncError/MergePolicyReason/notAJoin`` naming the first broken.
    static func check(
        _ join: MergeResolver.Join, name: String, on inputs: [(Value, ColumnVersion)]
    ) throws(SyncError) {
        func joined(_ a: (Value, ColumnVersion), _ b: (Value, ColumnVersion)) throws(SyncError) -> (
            Value, ColumnVersion
        ) {
            (try join(a.0, a.1, b.0, b.1), MergeResolver.version(joining: a.1, b.1))
        }
        func broken(_ law: String, _ values: [Value]) -> SyncError {
            .mergePolicy(
                .notAJoin,
                "the resolver \"\(name)\" is not \(law) on \(values.map { "\($0)" }.joined(separator: ", ")): replicas would not converge"
            )
        }
        // One write (a site's transaction) gives one value to a column of a row: two
        // different values at one version (of different rows) are no inputs a join meets.
        func meet(_ inputs: (Value, ColumnVersion)...) -> Bool {
            for (offset, a) in inputs.enumerated() {
                for b in inputs[(offset + 1)...] where a.1 == b.1 && !same(a.0, b.0) { return false }
            }
            return true
        }
        for a in inputs {
            guard same(try joined(a, a).0, a.0) else { throw broken("idempotent", [a.0]) }
        }
        for a in inputs {
            for b in inputs where meet(a, b) {
                guard same(try joined(a, b).0, try joined(b, a).0) else { throw broken("commutative", [a.0, b.0]) }
                for c in inputs where meet(a, b, c) {
                    let left = try joined(try joined(a, b), c).0
                    let right = try joined(a, try joined(b, c)).0
                    guard same(left, right) else { throw broken("associative", [a.0, b.0, c.0]) }
                }
            }
        }
    }

    /// Equal values, a NaN equal to any NaN (they are stored alike).
    static func same(_ a: Value, _ b: Value) -> Bool {
        if case .real(let x) = a, case .real(let y) = b { return x.bitPattern == y.bitPattern || (x.isNaN && y.isNaN) }
        return a == b
    }
}

/// The last input a resolver merged, which debug builds pair with the next merge's to check
/// associativity on values of different rows.
final class JoinSamples: Sendable {
    private let last = Mutex<(Value, ColumnVersion)?>(nil)

    /// Keeps `input` and returns the one kept before.
    func exchange(_ input: (Value, ColumnVersion)) -> (Value, ColumnVersion)? {
        last.withLock { kept in
            let earlier = kept
            kept = input
            return earlier
        }
    }
}

import Foundation
@_spi(SharkReplication) import SharkORM

/// App resolvers: a property whose concurrent values merge by the app's own join.
///
/// A resolver is a pure function of two values and their versions whose result every replica
/// computes alike, whatever order files arrive in; so it must be a **join**: commutative
/// (`j(a, b) == j(b, a)`), idempotent (`j(a, a) == a`) and associative. Debug builds check
/// these laws on the values they merge and throw ``SyncError/MergePolicyReason/notAJoin``
/// when one fails; ``MergePolicy/checkJoin(_:on:)`` checks them in the app's tests.
///
/// Sync calls the resolver only for **concurrent** values: neither writer had seen the other's
/// value (sync keeps, per value, each site's latest write it includes). A value written after
/// another was seen replaces it, as with last-writer-wins, so a local write is not joined
/// with what it overwrote; it must still be one the resolver keeps against the value it
/// replaces (`j(old, new) == new`), or a replica that joined `old` with a concurrent value
/// would not converge with one that saw `new` first: such a write throws
/// ``SyncError/MergePolicyReason/writeNotKept``. A resolver that prefers the greater version
/// where its other rules tie keeps every write.
///
/// A joined value is stamped with the greater of the two versions (so every replica stamps it
/// alike, whatever order it joined values in); it is not a new write of the replica that
/// joined them. A resolver that compares versions must be a join with that stamp: "the later
/// version's value" is; "the longer text, and for equal lengths the later version" is not
/// (once joined, the shorter text may carry the greater version). The name is recorded in the store and
/// written in every change log's header: renaming a resolver is a new merge rule (its values
/// start again from what each replica holds), and a store opened without its model (as the
/// command line opens one) refuses files that carry such a column.
extension MergePolicy {
    /// A property whose concurrent values merge by `join`, recorded under `name` (1 to 200
    /// ASCII letters, digits, `-`, `_`, `.`).
    ///
    /// ```swift
    /// @Model
    /// final class Page {
    ///     var id: UUID
    ///     var wordCount: Int = 0
    ///     init() { id = UUID.v7() }
    /// }
    ///
    /// extension Page: SyncMerging {
    ///     // The larger count wins; equal counts, the later write.
    ///     static let mergePolicies: [MergePolicy<Page>] = [
    ///         .resolved(\.wordCount, as: "larger-count") { a, b in
    ///             a.value != b.value ? max(a.value, b.value) : (a.version > b.version ? a.value : b.value)
    ///         }
    ///     ]
    /// }
    /// ```
    public static func resolved<Value: ColumnConvertible & _SharkResolvedValue>(
        _ keyPath: KeyPath<Root, Value> & Sendable, as name: String,
        by join: @escaping @Sendable (MergeCandidate<Value>, MergeCandidate<Value>) -> Value
    ) -> MergePolicy {
        resolver(keyPath, name, decodesJSON: false, decode: Self.decodeNative, join)
    }

    /// A `Codable` property (stored as JSON) whose concurrent values merge by `join`.
    ///
    /// ```swift
    /// @Model
    /// final class Photo {
    ///     var id: UUID
    ///     var tags: Set<String> = []
    ///     init() { id = UUID.v7() }
    /// }
    ///
    /// extension Photo: SyncMerging {
    ///     // Tags added anywhere are kept (a tag, once added, stays: a removal is not kept).
    ///     static let mergePolicies: [MergePolicy<Photo>] = [
    ///         .resolved(\.tags, as: "tag-union") { a, b in a.value.union(b.value) }
    ///     ]
    /// }
    /// ```
    public static func resolved<Value: Codable & _SharkResolvedValue>(
        _ keyPath: KeyPath<Root, Value> & Sendable, as name: String,
        by join: @escaping @Sendable (MergeCandidate<Value>, MergeCandidate<Value>) -> Value
    ) -> MergePolicy {
        resolver(
            keyPath, name, decodesJSON: true,
            decode: { value throws(SharkError) in
                switch value {
                case .null: return try _SharkCoding.decodeStoredJSON(Value.self, "null")
                case .text(let text): return try _SharkCoding.decodeStoredJSON(Value.self, text)
                default: throw SharkError.decoding(.wrongStorageClass, "a JSON column holds \(value)")
                }
            }, join)
    }

    /// A property stored natively that is also `Codable` (a `String`, a number, a `Date`…):
    /// as a natively stored one.
    public static func resolved<Value: ColumnConvertible & Codable & _SharkResolvedValue>(
        _ keyPath: KeyPath<Root, Value> & Sendable, as name: String,
        by join: @escaping @Sendable (MergeCandidate<Value>, MergeCandidate<Value>) -> Value
    ) -> MergePolicy {
        resolver(keyPath, name, decodesJSON: false, decode: Self.decodeNative, join)
    }

    /// An enum property stored as its raw value, whose concurrent values merge by `join`.
    public static func resolved<Value: RawRepresentable & _SharkResolvedValue>(
        _ keyPath: KeyPath<Root, Value> & Sendable, as name: String,
        by join: @escaping @Sendable (MergeCandidate<Value>, MergeCandidate<Value>) -> Value
    ) -> MergePolicy where Value.RawValue: ColumnConvertible {
        resolver(keyPath, name, decodesJSON: false, decode: Self.decodeRaw, join)
    }

    /// A `Codable` enum property stored as its raw value: as any enum stored that way.
    public static func resolved<Value: RawRepresentable & Codable & _SharkResolvedValue>(
        _ keyPath: KeyPath<Root, Value> & Sendable, as name: String,
        by join: @escaping @Sendable (MergeCandidate<Value>, MergeCandidate<Value>) -> Value
    ) -> MergePolicy where Value.RawValue: ColumnConvertible {
        resolver(keyPath, name, decodesJSON: false, decode: Self.decodeRaw, join)
    }

    /// Checks that each resolver of `policies` is a join on the values the `samples` hold,
    /// each paired with versions of several sites and times: every pair and triple of them.
    /// Throws ``SyncError/MergePolicyReason/notAJoin`` naming the law broken and the values.
    /// Policies other than resolvers have nothing to check.
    ///
    /// ```swift
    /// @Model
    /// final class Sticker {
    ///     var id: UUID
    ///     var colors: [String] = []
    ///     init(colors: [String]) {
    ///         id = UUID.v7()
    ///         self.colors = colors
    ///     }
    /// }
    ///
    /// extension Sticker: SyncMerging {
    ///     static let mergePolicies: [MergePolicy<Sticker>] = [
    ///         .resolved(\.colors, as: "color-union") { a, b in Array(Set(a.value + b.value)).sorted() }
    ///     ]
    /// }
    ///
    /// let samples = [Sticker(colors: ["red"]), Sticker(colors: ["blue", "green"]), Sticker(colors: [])]
    /// try MergePolicy.checkJoin(Sticker.mergePolicies, on: samples)
    /// ```
    public static func checkJoin(_ policies: [MergePolicy], on samples: [Root]) throws(SyncError) {
        let sites = [
            UUID(uuid: (1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)),
            UUID(uuid: (2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)),
        ]
        for policy in policies {
            guard case .resolver(let resolver) = policy.rule, let join = resolver.join, let read = policy.read else {
                continue
            }
            var inputs: [(Value, ColumnVersion)] = []
            let count = min(samples.count, 8)
            for (offset, sample) in samples.prefix(count).enumerated() {
                let value: Value
                do { value = try read(sample) } catch { throw .mergePolicy(.resolverFailed, "\(error)") }
                // Each value early (in the samples' order) on two sites, whose ties the site
                // breaks, and late (in the reverse order): as on replicas, no two writes share
                // a time and a site.
                let early = offset + 1
                let late = 2 * count - offset
                for (time, site) in [(early, sites[0]), (early, sites[1]), (late, sites[offset % 2])] {
                    inputs.append(
                        (value, ColumnVersion(causalLength: 1, timestamp: UInt64(time) << 16, site: site, sequence: 1)))
                }
            }
            try JoinLaws.check(join, name: resolver.name, on: inputs)
        }
    }

    private static func decodeNative<Value: ColumnConvertible & _SharkResolvedValue>(_ value: SharkORM.Value)
        throws(SharkError) -> Value
    {
        try Value(columnValue: value)
    }

    private static func decodeRaw<Value: RawRepresentable & _SharkResolvedValue>(_ value: SharkORM.Value)
        throws(SharkError) -> Value
    where Value.RawValue: ColumnConvertible {
        let raw = try Value.RawValue(columnValue: value)
        guard let decoded = Value(rawValue: raw) else {
            throw SharkError.decoding(.notARawValue, "\(raw) is no raw value of \(Value.self)")
        }
        return decoded
    }

    /// The policy of a resolver over values of type `Value`, decoded from their stored form
    /// by `decode` and stored again as a property's value is.
    private static func resolver<Value: _SharkResolvedValue>(
        _ keyPath: KeyPath<Root, Value> & Sendable, _ name: String, decodesJSON: Bool,
        decode: @escaping @Sendable (SharkORM.Value) throws(SharkError) -> Value,
        _ join: @escaping @Sendable (MergeCandidate<Value>, MergeCandidate<Value>) -> Value
    ) -> MergePolicy {
        let erased: MergeResolver.Join = { a, aVersion, b, bVersion throws(SyncError) in
            do {
                let joined = join(
                    MergeCandidate(value: try decode(a), version: SyncVersion(aVersion)),
                    MergeCandidate(value: try decode(b), version: SyncVersion(bVersion)))
                let stored = try _SharkCoding.value(joined)
                // A non-optional number's NaN is stored as NULL (docs/values.md).
                if case .real(let real) = stored, real.isNaN { return .null }
                return stored
            } catch {
                throw .mergePolicy(
                    .resolverFailed, "the resolver \"\(name)\" cannot read or store its values: \(error)")
            }
        }
        var policy = MergePolicy(
            keyPath: keyPath,
            rule: .resolver(MergeResolver(name: name, join: erased, decodesJSON: decodesJSON)))
        policy.read = { root throws(SharkError) in try _SharkCoding.value(root[keyPath: keyPath]) }
        return policy
    }
}

#if compiler(>=6.2)
    /// What a resolver's value type must be to cross to the store's threads: its metatype
    /// (every type's, but for one with an isolated conformance).
    public typealias _SharkResolvedValue = SendableMetatype
#else
    public typealias _SharkResolvedValue = Any
#endif

import Foundation
@_spi(SharkReplication) import SharkORM

/// How sync merges one property's concurrent values, when last-writer-wins is not what the
/// app means. Declared on the model (``SyncMerging``), recorded in the store's sync metadata
/// and written in every change log's header, so every replica merges the column alike.
///
/// ```swift
/// @Model
/// final class Game {
///     var id: UUID
///     var plays: Int = 0
///     var highScore: Int = 0
///     var fastestLap: Double = 600
///     init() { id = UUID.v7() }
/// }
///
/// extension Game: SyncMerging {
///     static let mergePolicies: [MergePolicy<Game>] = [.counter(\.plays), .maximum(\.highScore), .minimum(\.fastestLap)]
/// }
/// ```
public struct MergePolicy<Root: Model>: Sendable {
    let keyPath: PartialKeyPath<Root> & Sendable
    let rule: MergeRule
    /// The property's stored value in an object, for checking a resolver on samples.
    var read: (@Sendable (Root) throws(SharkError) -> Value)? = nil

    /// A counter: concurrent increments on two replicas both count. Each replica keeps its
    /// own running total of what it added (per row, until the row is removed), and the value
    /// is the sum of every replica's total. A local write, whatever it is (`+= 1`, an
    /// `updateAll` expression, an assignment, a reset to 0), counts as the difference it makes
    /// to the value this replica had: so an increment made elsewhere at the same time still
    /// counts after a reset here. The property must be a non-optional integer.
    public static func counter(_ keyPath: PartialKeyPath<Root> & Sendable) -> MergePolicy {
        MergePolicy(keyPath: keyPath, rule: .counter)
    }

    /// A maximum: the greatest value any replica wrote wins. A local write that would lower
    /// it throws ``SyncError/mergePolicy(_:)`` (a lower value would never reach the other
    /// replicas). The property must be a non-optional number (or `Date`).
    public static func maximum(_ keyPath: PartialKeyPath<Root> & Sendable) -> MergePolicy {
        MergePolicy(keyPath: keyPath, rule: .maximum)
    }

    /// A minimum: the least value any replica wrote wins; a local write that would raise it
    /// throws ``SyncError/mergePolicy(_:)``. The property must be a non-optional number
    /// (or `Date`).
    public static func minimum(_ keyPath: PartialKeyPath<Root> & Sendable) -> MergePolicy {
        MergePolicy(keyPath: keyPath, rule: .minimum)
    }
}

/// A model whose properties sync by rules other than last-writer-wins.
///
/// ```swift
/// @Model
/// final class Post {
///     var id: UUID
///     var likes: Int = 0
///     var bestScore: Double = 0
///     init() { id = UUID.v7() }
/// }
///
/// extension Post: SyncMerging {
///     static let mergePolicies: [MergePolicy<Post>] = [.counter(\.likes), .maximum(\.bestScore)]
/// }
/// ```
public protocol SyncMerging: Model {
    /// The properties that do not merge by last-writer-wins, and how they merge.
    static var mergePolicies: [MergePolicy<Self>] { get }
}

extension SyncMerging {
    /// The rules by column name; throws for a property that is not a stored column.
    static func mergeRules() throws -> [String: MergeRule] {
        var rules: [String: MergeRule] = [:]
        for policy in mergePolicies {
            guard let index = _sharkColumnIndex(for: policy.keyPath), index > 0 else {
                throw SyncError.unsupportedModel(
                    entity: _sharkEntityName, reason: "a merge policy names a property that is not a stored column")
            }
            let name = _sharkSchemaColumns[Int(index)].name
            if case .resolver(let resolver) = policy.rule, !MergeResolver.isValidName(resolver.name) {
                throw SyncError.unsupportedModel(
                    entity: _sharkEntityName,
                    reason:
                        "the resolver of \(name) is named \"\(resolver.name)\": a name is 1 to 200 ASCII letters, digits, '-', '_' or '.'"
                )
            }
            guard rules[name] == nil else {
                throw SyncError.unsupportedModel(entity: _sharkEntityName, reason: "\(name) has two merge policies")
            }
            rules[name] = policy.rule
        }
        return rules
    }
}

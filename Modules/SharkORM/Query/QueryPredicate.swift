import Foundation

/// A typed condition on a model, built from key paths and operators.
///
/// ```swift
/// let query = try Person.query(in: store)
///     .where(\.age >= 18 && \.name != "")
///     .where(.like(\.name, "A%"))
///     .where(.isIn(\.age, [18, 21]) || .isNil(\.nickname))
/// ```
///
/// Comparisons follow SQL: `\.nickname == nil` becomes `IS NULL`, and any other comparison
/// with a NULL column is false.
///
/// A predicate on a property that is not persisted (a `@Transient` one, or a computed one),
/// or with a value of a type that cannot be stored, does not crash: the query that uses it
/// throws ``SharkError/invalidQuery(_:)``.
///
/// Chains of `&&` and `||` stay flat however long they grow (a condition built term by term
/// in a loop works on every driver); a predicate that truly nests deeper than
/// ``QueryExpression/maximumNestingDepth`` carries ``SharkError/invalidQuery(_:)`` from the
/// moment it is built, and the query that uses it throws it.
public struct QueryPredicate<Root: Model> {
    /// The AST this predicate compiles to.
    public let expression: QueryExpression
    /// Why the predicate cannot run, when it cannot.
    public let problem: SharkError?
    /// How deep `expression` nests, as ``QueryExpression/nestingDepth`` counts it; kept so
    /// that combining predicates never walks them again.
    public let depth: Int

    /// A predicate over a hand-built expression; one that cannot run (see
    /// ``QueryExpression/problem``) carries its problem.
    public init(_ expression: QueryExpression) {
        let depth = expression.nestingDepth
        let problem = expression.nestingProblem(depth: depth) == nil ? expression.problem : nil
        self.init(expression, depth: depth, problem: problem)
    }

    /// A predicate of `depth` levels; one nested too deeply keeps only its problem (not the
    /// tree, which every later step would have to walk).
    init(_ expression: QueryExpression, depth: Int, problem: SharkError?) {
        if problem == nil, let tooDeep = expression.nestingProblem(depth: depth) {
            self.expression = .value(.null)
            self.problem = tooDeep
        } else {
            self.expression = expression
            self.problem = problem
        }
        self.depth = depth
    }

    /// A predicate built by `make`, or one that carries the error `make` threw.
    static func build(_ make: () throws(SharkError) -> QueryExpression) -> QueryPredicate {
        do {
            return QueryPredicate(try make())
        } catch {
            return QueryPredicate(.value(.null), depth: 1, problem: error)
        }
    }

    /// `lhs && rhs` or `lhs || rhs`, flattened into one list when either side is already one.
    static func combining(
        _ lhs: QueryPredicate, _ rhs: QueryPredicate, conjunction: Bool
    ) -> QueryPredicate {
        // The deepest operand below each side, and how many operands it adds to the list.
        func operandsOf(_ predicate: QueryPredicate) -> (depth: Int, count: Int) {
            switch predicate.expression {
            case .and(let operands) where conjunction, .or(let operands) where !conjunction:
                return (predicate.depth - QueryExpression.listLevels(operands.count), operands.count)
            default: return (predicate.depth, 1)
            }
        }
        let left = operandsOf(lhs)
        let right = operandsOf(rhs)
        let expression =
            conjunction
            ? QueryExpression.conjunction(lhs.expression, rhs.expression)
            : QueryExpression.disjunction(lhs.expression, rhs.expression)
        let depth = max(left.depth, right.depth) + QueryExpression.listLevels(left.count + right.count)
        return QueryPredicate(expression, depth: depth, problem: lhs.problem ?? rhs.problem)
    }

    /// `keyPath LIKE pattern`: `%` matches any run, `_` one character; ASCII letters match
    /// regardless of case.
    public static func like(_ keyPath: KeyPath<Root, String>, _ pattern: String) -> QueryPredicate {
        build { () throws(SharkError) in .like(try column(keyPath), .value(.text(pattern))) }
    }

    /// `keyPath LIKE pattern` on an optional string.
    public static func like(_ keyPath: KeyPath<Root, String?>, _ pattern: String) -> QueryPredicate {
        build { () throws(SharkError) in .like(try column(keyPath), .value(.text(pattern))) }
    }

    /// The property's value is one of `values`.
    public static func isIn<V>(_ keyPath: KeyPath<Root, V>, _ values: some Sequence<V>) -> QueryPredicate {
        build { () throws(SharkError) in
            var stored: [Value] = []
            for value in values { stored.append(try storedValue(value)) }
            return .isIn(try column(keyPath), stored)
        }
    }

    /// `keyPath NOT LIKE pattern`. A nil never matches, as in SQL (NULL NOT LIKE … is unknown).
    ///
    /// ```swift
    /// let notTests = try Person.query(in: store).where(.notLike(\.name, "test%")).fetch()
    /// ```
    public static func notLike(_ keyPath: KeyPath<Root, String>, _ pattern: String) -> QueryPredicate {
        !like(keyPath, pattern)
    }

    /// `keyPath NOT LIKE pattern` on an optional string: nils never match.
    public static func notLike(_ keyPath: KeyPath<Root, String?>, _ pattern: String) -> QueryPredicate {
        !like(keyPath, pattern)
    }

    /// The property's value is none of `values`. As in SQL, a nil matches only when `values`
    /// is empty (`x NOT IN ()` holds for every x).
    ///
    /// ```swift
    /// let others = try Person.query(in: store).where(.notIn(\.age, [18, 21])).fetch()
    /// ```
    public static func notIn<V>(_ keyPath: KeyPath<Root, V>, _ values: some Sequence<V>) -> QueryPredicate {
        !isIn(keyPath, values)
    }

    /// The string equals `value` when ASCII letters are compared regardless of case (other
    /// letters must match exactly, as in SQLite's `lower` and `LIKE`).
    ///
    /// ```swift
    /// let bobs = try Person.query(in: store).where(.equalsIgnoringCase(\.name, "BOB")).fetch()
    /// ```
    public static func equalsIgnoringCase(_ keyPath: KeyPath<Root, String>, _ value: String) -> QueryPredicate {
        .comparing(.lower(keyPath), .equal, QueryOperand<Root, String>.constant(value).lower)
    }

    /// Case-insensitive equality on an optional string: nil never matches.
    public static func equalsIgnoringCase(_ keyPath: KeyPath<Root, String?>, _ value: String) -> QueryPredicate {
        .comparing(.lower(keyPath), .equal, QueryOperand<Root, String?>.constant(value).applying(.lower))
    }

    /// `lower <= value <= upper`.
    public static func between<V: Comparable>(_ keyPath: KeyPath<Root, V>, _ lower: V, _ upper: V) -> QueryPredicate {
        build { () throws(SharkError) in
            .between(try column(keyPath), .value(try storedValue(lower)), .value(try storedValue(upper)))
        }
    }

    /// The property is nil.
    public static func isNil<V>(_ keyPath: KeyPath<Root, V?>) -> QueryPredicate {
        build { () throws(SharkError) in .isNull(try column(keyPath)) }
    }

    /// The property is not nil.
    public static func isNotNil<V>(_ keyPath: KeyPath<Root, V?>) -> QueryPredicate {
        build { () throws(SharkError) in .not(.isNull(try column(keyPath))) }
    }

    /// Always true: matches every object.
    public static var all: QueryPredicate { QueryPredicate(.value(.integer(1))) }

    static func column(_ keyPath: AnyKeyPath) throws(SharkError) -> QueryExpression {
        guard let index = Root.columnIndex(of: keyPath) else {
            if let path = RelationshipKeyPath.expression(for: keyPath, from: Root.self) { return path }
            throw SharkError.invalidQuery(
                .notPersisted,
                "a query on \(Root._sharkEntityName) uses a property that is not persisted (transient or computed)"
                    + " or a path that does not go through to-one relationships (\(keyPath))")
        }
        return .column(Root._sharkSchemaColumns[Int(index)].name)
    }

    static func compare<V>(_ keyPath: KeyPath<Root, V>, _ op: ComparisonOperator, _ value: V) -> QueryPredicate {
        build { () throws(SharkError) in
            let stored = try storedValue(value)
            if stored.isNull {
                switch op {
                case .equal: return .isNull(try column(keyPath))
                case .notEqual: return .not(.isNull(try column(keyPath)))
                default: break
                }
            }
            return .comparison(op, try column(keyPath), .value(stored))
        }
    }
}

/// Converts a property value of any supported type to the value stored for it, the same way
/// generated model code does: built-ins natively, enums by raw value, other Codable values as
/// JSON. Used where the static type is not known to the compiler (predicate arguments).
package func storedValue(_ value: Any) throws(SharkError) -> Value {
    // The common case first: each failed cast costs a conformance lookup.
    if let value = value as? any ColumnConvertible { return value.columnValue }
    if let optional = value as? any _SharkOptional {
        guard let wrapped = optional._sharkWrapped else { return .null }
        return try storedValue(wrapped)
    }
    // A related object stands for its key, as its relationship column stores it.
    if let model = value as? any Model { return model.id.columnValue }
    if let value = value as? any RawRepresentable, let raw = value.rawValue as? any ColumnConvertible {
        return raw.columnValue
    }
    if let value = value as? any Encodable, let json = try? _SharkCoding.encodeJSON(value) {
        return .text(json)
    }
    if let value = value as? Value { return value }
    throw SharkError.invalidQuery(.unstorableType, "\(type(of: value)) is not a type SharkORM can store or compare")
}

/// Lets ``storedValue(_:)`` see through optionals.
package protocol _SharkOptional {
    var _sharkWrapped: Any? { get }
}

extension Optional: _SharkOptional {
    package var _sharkWrapped: Any? { self.map { $0 as Any } }
}

// MARK: - Operators

public func == <Root: Model, V>(lhs: KeyPath<Root, V>, rhs: V) -> QueryPredicate<Root> {
    .compare(lhs, .equal, rhs)
}
public func != <Root: Model, V>(lhs: KeyPath<Root, V>, rhs: V) -> QueryPredicate<Root> {
    .compare(lhs, .notEqual, rhs)
}
public func < <Root: Model, V>(lhs: KeyPath<Root, V>, rhs: V) -> QueryPredicate<Root> {
    .compare(lhs, .less, rhs)
}
public func <= <Root: Model, V>(lhs: KeyPath<Root, V>, rhs: V) -> QueryPredicate<Root> {
    .compare(lhs, .lessOrEqual, rhs)
}
public func > <Root: Model, V>(lhs: KeyPath<Root, V>, rhs: V) -> QueryPredicate<Root> {
    .compare(lhs, .greater, rhs)
}
public func >= <Root: Model, V>(lhs: KeyPath<Root, V>, rhs: V) -> QueryPredicate<Root> {
    .compare(lhs, .greaterOrEqual, rhs)
}
public func && <Root>(lhs: QueryPredicate<Root>, rhs: QueryPredicate<Root>) -> QueryPredicate<Root> {
    .combining(lhs, rhs, conjunction: true)
}
public func || <Root>(lhs: QueryPredicate<Root>, rhs: QueryPredicate<Root>) -> QueryPredicate<Root> {
    .combining(lhs, rhs, conjunction: false)
}
public prefix func ! <Root>(operand: QueryPredicate<Root>) -> QueryPredicate<Root> {
    QueryPredicate(.not(operand.expression), depth: operand.depth + 1, problem: operand.problem)
}

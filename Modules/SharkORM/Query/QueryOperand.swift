import Foundation

/// A typed value a query computes for each row: a property, arithmetic on properties and
/// constants, or a function of them (``ScalarFunction``). Compare it with a value or with
/// another operand to get a ``QueryPredicate``; aggregate it with `sum`, `average`, `min` or
/// `max`.
///
/// Operands usually come from operators on key paths, or from the functions below used as
/// implicit members:
///
/// ```swift
/// let overBudget = try Project.query(in: store).where(\.spent + \.committed > \.budget).fetch()
/// let bobs = try Person.query(in: store).where(.lower(\.name) == "bob").fetch()
/// let revenue = try Line.query(in: store).sum(\.price * \.quantity)
/// ```
///
/// Arithmetic is exact and the same on every driver: integers stay integers (division
/// truncates), and a result that leaves the 64-bit range is an error
/// (``SharkError/invalidValue(_:)``), never an approximate real; `Decimal`s compute as
/// Foundation's `Decimal` does; division by zero is an error. Arithmetic takes non-optional
/// properties; wrap an optional one in ``coalesce(_:_:)`` first. See docs/values.md.
public struct QueryOperand<Root: Model, T>: Sendable {
    /// The AST the operand compiles to.
    public let expression: QueryExpression
    /// Why the operand cannot run, when it cannot (a property that is not persisted, a value
    /// of a type that cannot be stored); a query that uses it throws this.
    public let problem: SharkError?

    init(_ expression: QueryExpression, problem: SharkError?) {
        self.expression = expression
        self.problem = problem
    }

    /// An operand built by `make`, or one that carries the error `make` threw.
    static func build(_ make: () throws(SharkError) -> QueryExpression) -> QueryOperand {
        do {
            return QueryOperand(try make(), problem: nil)
        } catch {
            return QueryOperand(.value(.null), problem: error)
        }
    }

    /// The value of a property.
    ///
    /// ```swift
    /// let age = QueryOperand(\Person.age)
    /// ```
    public init(_ keyPath: KeyPath<Root, T>) {
        self = .build { () throws(SharkError) in try QueryPredicate<Root>.column(keyPath) }
    }

    /// A constant, bound as a parameter like every value.
    public static func constant(_ value: T) -> QueryOperand {
        build { () throws(SharkError) in .value(try storedValue(value)) }
    }

    /// The first of `keyPath` and `fallback` that is not nil: SQL's `coalesce`.
    ///
    /// ```swift
    /// let rich = try Person.query(in: store).where(.coalesce(\.bonus, 0) + \.salary > 100_000).fetch()
    /// ```
    public static func coalesce(_ keyPath: KeyPath<Root, T?>, _ fallback: T) -> QueryOperand {
        build { () throws(SharkError) in
            .function(.coalesce, [try QueryPredicate<Root>.column(keyPath), .value(try storedValue(fallback))])
        }
    }

    /// This operand through `function`, as an operand of type `U`.
    func applying<U>(_ function: ScalarFunction) -> QueryOperand<Root, U> {
        QueryOperand<Root, U>(.function(function, [expression]), problem: problem)
    }
}

extension QueryOperand where T == String {
    /// The text with ASCII letters in lower case (other letters unchanged, as in SQLite).
    ///
    /// ```swift
    /// let bobs = try Person.query(in: store).where(.lower(\.name) == "bob").fetch()
    /// ```
    public static func lower(_ keyPath: KeyPath<Root, String>) -> QueryOperand { QueryOperand(keyPath).lower }
    /// The text with ASCII letters in upper case.
    public static func upper(_ keyPath: KeyPath<Root, String>) -> QueryOperand { QueryOperand(keyPath).upper }
    /// This text with ASCII letters in lower case.
    public var lower: QueryOperand { applying(.lower) }
    /// This text with ASCII letters in upper case.
    public var upper: QueryOperand { applying(.upper) }
}

extension QueryOperand where T == String? {
    /// The text with ASCII letters in lower case; nil stays nil.
    public static func lower(_ keyPath: KeyPath<Root, String?>) -> QueryOperand {
        QueryOperand(keyPath).applying(.lower)
    }
    /// The text with ASCII letters in upper case; nil stays nil.
    public static func upper(_ keyPath: KeyPath<Root, String?>) -> QueryOperand {
        QueryOperand(keyPath).applying(.upper)
    }
}

extension QueryOperand where T == Int {
    /// The number of characters of a text.
    ///
    /// ```swift
    /// let longNames = try Person.query(in: store).where(.length(\.name) > 20).fetch()
    /// ```
    public static func length(_ keyPath: KeyPath<Root, String>) -> QueryOperand {
        QueryOperand<Root, String>(keyPath).applying(.length)
    }
    /// The number of characters of an optional text (nil for nil, which no comparison matches).
    public static func length(_ keyPath: KeyPath<Root, String?>) -> QueryOperand {
        QueryOperand<Root, String?>(keyPath).applying(.length)
    }
    /// The number of bytes of a blob.
    public static func length(_ keyPath: KeyPath<Root, Data>) -> QueryOperand {
        QueryOperand<Root, Data>(keyPath).applying(.length)
    }
}

extension QueryOperand where T: SignedNumeric {
    /// The magnitude of a number. The magnitude of `Int64.min` does not exist: the query
    /// throws ``SharkError/invalidValue(_:)``.
    ///
    /// ```swift
    /// let drifted = try Reading.query(in: store).where(.abs(\.delta) > 5).fetch()
    /// ```
    public static func abs(_ keyPath: KeyPath<Root, T>) -> QueryOperand { QueryOperand(keyPath).applying(.abs) }
    /// The magnitude of this operand.
    public static func abs(_ operand: QueryOperand) -> QueryOperand { operand.applying(.abs) }
}

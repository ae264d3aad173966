/// One property an `updateAll` sets on every match: to a value, or to a value computed from
/// the row by the engine.
///
/// ```swift
/// try Employee.query(in: store).where(\.team == "Engines").updateAll(
///     .set(\.salary, to: \.salary + 10),
///     .set(\.email, to: nil))
/// ```
public struct PropertyUpdate<Root: Model>: Sendable {
    /// The column set, by schema position.
    let column: Int
    /// The new value's expression, over the row before the change.
    let value: QueryExpression
    /// Why the update cannot run, when it cannot.
    let problem: SharkError?

    private init(column: Int, value: QueryExpression, problem: SharkError?) {
        self.column = column
        self.value = value
        self.problem = problem
    }

    /// Sets the property to `value`.
    public static func set<V>(_ keyPath: KeyPath<Root, V>, to value: V) -> PropertyUpdate {
        make(keyPath) { () throws(SharkError) in .value(try storedValue(value)) }
    }

    /// Sets the property to a value the engine computes from each row (`\.age + 1`).
    public static func set<V>(_ keyPath: KeyPath<Root, V>, to operand: QueryOperand<Root, V>) -> PropertyUpdate {
        make(keyPath) { () throws(SharkError) in
            if let problem = operand.problem { throw problem }
            if let problem = operand.expression.problem { throw problem }
            return operand.expression
        }
    }

    private static func make(_ keyPath: AnyKeyPath, _ value: () throws(SharkError) -> QueryExpression)
        -> PropertyUpdate
    {
        do throws(SharkError) {
            guard let column = Root.columnIndex(of: keyPath) else {
                throw SharkError.invalidQuery(
                    .notPersisted,
                    "updateAll on \(Root._sharkEntityName) sets a property that is not persisted (transient or computed)"
                )
            }
            guard column != 0 else {
                throw SharkError.invalidKey(
                    entity: Root._sharkEntityName, reason: "the key of a stored object cannot change")
            }
            return PropertyUpdate(column: Int(column), value: try value(), problem: nil)
        } catch {
            return PropertyUpdate(column: 0, value: .value(.null), problem: error)
        }
    }
}

import Foundation

/// Aggregates of a property over a query's matches, computed by the engine (an SQL aggregate;
/// the memory engine without building objects). See ``AggregateFunction`` for the rules.
/// A query with a limit or an offset aggregates that window, taken in its order.
extension Query {
    /// The sum of a property over the matches; nil when nothing matches.
    ///
    /// ```swift
    /// let payroll = try Employee.query(in: store).where(\.active == true).sum(\.salary)
    /// ```
    public func sum<V: ColumnConvertible & AdditiveArithmetic>(_ keyPath: KeyPath<Root, V>) throws -> V? {
        try typed(.sum, keyPath, as: V.self, exact: V.logicalType == .sortableDecimal)
    }

    /// The sum of an optional property, its nils skipped.
    public func sum<V: ColumnConvertible & AdditiveArithmetic>(_ keyPath: KeyPath<Root, V?>) throws -> V? {
        try typed(.sum, keyPath, as: V.self, exact: V.logicalType == .sortableDecimal)
    }

    /// The average of a property over the matches, as a `Double`; nil when nothing matches.
    ///
    /// ```swift
    /// let meanAge = try Person.query(in: store).average(\.age)
    /// ```
    public func average<V: ColumnConvertible & AdditiveArithmetic>(_ keyPath: KeyPath<Root, V>) throws -> Double? {
        try typed(.average, keyPath, as: Double.self, exact: V.logicalType == .sortableDecimal)
    }

    /// The average of an optional property, its nils skipped.
    public func average<V: ColumnConvertible & AdditiveArithmetic>(_ keyPath: KeyPath<Root, V?>) throws -> Double? {
        try typed(.average, keyPath, as: Double.self, exact: V.logicalType == .sortableDecimal)
    }

    /// The smallest value of a property among the matches; nil when nothing matches.
    ///
    /// ```swift
    /// let firstName = try Person.query(in: store).min(\.name)
    /// ```
    public func min<V: ColumnConvertible & Comparable>(_ keyPath: KeyPath<Root, V>) throws -> V? {
        try typed(.minimum, keyPath, as: V.self)
    }

    /// The smallest non-nil value of an optional property.
    public func min<V: ColumnConvertible & Comparable>(_ keyPath: KeyPath<Root, V?>) throws -> V? {
        try typed(.minimum, keyPath, as: V.self)
    }

    /// The largest value of a property among the matches; nil when nothing matches.
    public func max<V: ColumnConvertible & Comparable>(_ keyPath: KeyPath<Root, V>) throws -> V? {
        try typed(.maximum, keyPath, as: V.self)
    }

    /// The largest non-nil value of an optional property.
    public func max<V: ColumnConvertible & Comparable>(_ keyPath: KeyPath<Root, V?>) throws -> V? {
        try typed(.maximum, keyPath, as: V.self)
    }

    /// The sum of a computed value over the matches (Shark's compound `sumOf`); nil when
    /// nothing matches.
    ///
    /// ```swift
    /// let revenue = try Line.query(in: store).sum(\.price * \.quantity)
    /// ```
    public func sum<V: ColumnConvertible & AdditiveArithmetic>(_ operand: QueryOperand<Root, V>) throws -> V? {
        try typed(.sum, operand, as: V.self, exact: V.logicalType == .sortableDecimal)
    }

    /// The average of a computed value over the matches, as a `Double`.
    public func average<V: ColumnConvertible & AdditiveArithmetic>(_ operand: QueryOperand<Root, V>) throws
        -> Double?
    {
        try typed(.average, operand, as: Double.self, exact: V.logicalType == .sortableDecimal)
    }

    /// The smallest computed value among the matches.
    public func min<V: ColumnConvertible & Comparable>(_ operand: QueryOperand<Root, V>) throws -> V? {
        try typed(.minimum, operand, as: V.self)
    }

    /// The largest computed value among the matches.
    public func max<V: ColumnConvertible & Comparable>(_ operand: QueryOperand<Root, V>) throws -> V? {
        try typed(.maximum, operand, as: V.self)
    }

    /// An aggregate of any expression over the columns, as the engine returns it: for callers
    /// that build expressions themselves.
    ///
    /// ```swift
    /// let total = try query.aggregate(.sum, of: .arithmetic(.multiply, .column("price"), .column("quantity")))
    /// ```
    public func aggregate(_ function: AggregateFunction, of expression: QueryExpression) throws -> Value {
        if let problem { throw problem }
        if let problem = expression.problem { throw problem }
        let schema = try store.preparedSchema(for: Root.self)
        return try store.withReader { try $0.aggregate(function, of: expression, description, schema: schema) }
    }

    private func typed<V: ColumnConvertible>(
        _ function: AggregateFunction, _ keyPath: AnyKeyPath, as: V.Type, exact: Bool = false
    ) throws -> V? {
        try typed(function, of: try QueryPredicate<Root>.column(keyPath), as: V.self, exact: exact)
    }

    private func typed<T, V: ColumnConvertible>(
        _ function: AggregateFunction, _ operand: QueryOperand<Root, T>, as: V.Type, exact: Bool = false
    ) throws -> V? {
        if let problem = operand.problem { throw problem }
        return try typed(function, of: operand.expression, as: V.self, exact: exact)
    }

    /// The aggregate as `V`. `exact`: the values are decimals, added as `Decimal`s here rather
    /// than by the engine (whose sums go through 64-bit integers or doubles).
    private func typed<V: ColumnConvertible>(
        _ function: AggregateFunction, of expression: QueryExpression, as: V.Type, exact: Bool
    ) throws -> V? {
        if exact, function == .sum || function == .average {
            guard let (total, count) = try decimalSum(of: expression) else { return nil }
            if function == .sum { return try V(columnValue: total.columnValue) }
            let mean = total / Decimal(count)
            return try V(columnValue: .real(NSDecimalNumber(decimal: mean).doubleValue))
        }
        let value = try aggregate(function, of: expression)
        return value.isNull ? nil : try V(columnValue: value)
    }

    /// The exact sum of the decimal values of `expression` over the matches, and how many
    /// there were (nils skipped); nil when there were none.
    private func decimalSum(of expression: QueryExpression) throws -> (Decimal, Int)? {
        if let problem { throw problem }
        let schema = try store.preparedSchema(for: Root.self)
        let values = try store.withReader { try $0.values(of: expression, description, schema: schema) }
        var total = Decimal(0)
        var count = 0
        for value in values where !value.isNull {
            total += try Decimal(columnValue: value)
            count += 1
        }
        return count == 0 ? nil : (total, count)
    }
}

extension Query {
    /// ``sum(_:)-(KeyPath<Root,V>)`` on one of the store's reader threads.
    public func sum<V: ColumnConvertible & AdditiveArithmetic & Sendable>(_ keyPath: KeyPath<Root, V> & Sendable)
        async throws -> V?
    {
        let query = self
        return try await store.readerThreads.run { try query.sum(keyPath) }
    }

    /// ``average(_:)-(KeyPath<Root,V>)`` on one of the store's reader threads.
    public func average<V: ColumnConvertible & AdditiveArithmetic & Sendable>(_ keyPath: KeyPath<Root, V> & Sendable)
        async throws -> Double?
    {
        let query = self
        return try await store.readerThreads.run { try query.average(keyPath) }
    }

    /// ``min(_:)-(KeyPath<Root,V>)`` on one of the store's reader threads.
    public func min<V: ColumnConvertible & Comparable & Sendable>(_ keyPath: KeyPath<Root, V> & Sendable)
        async throws -> V?
    {
        let query = self
        return try await store.readerThreads.run { try query.min(keyPath) }
    }

    /// ``max(_:)-(KeyPath<Root,V>)`` on one of the store's reader threads.
    public func max<V: ColumnConvertible & Comparable & Sendable>(_ keyPath: KeyPath<Root, V> & Sendable)
        async throws -> V?
    {
        let query = self
        return try await store.readerThreads.run { try query.max(keyPath) }
    }

    /// ``sum(_:)-(QueryOperand<Root,V>)`` on one of the store's reader threads.
    public func sum<V: ColumnConvertible & AdditiveArithmetic & Sendable>(_ operand: QueryOperand<Root, V>)
        async throws -> V?
    {
        let query = self
        return try await store.readerThreads.run { try query.sum(operand) }
    }

    /// ``average(_:)-(QueryOperand<Root,V>)`` on one of the store's reader threads.
    public func average<V: ColumnConvertible & AdditiveArithmetic & Sendable>(_ operand: QueryOperand<Root, V>)
        async throws -> Double?
    {
        let query = self
        return try await store.readerThreads.run { try query.average(operand) }
    }

    /// ``min(_:)-(QueryOperand<Root,V>)`` on one of the store's reader threads.
    public func min<V: ColumnConvertible & Comparable & Sendable>(_ operand: QueryOperand<Root, V>) async throws -> V? {
        let query = self
        return try await store.readerThreads.run { try query.min(operand) }
    }

    /// ``max(_:)-(QueryOperand<Root,V>)`` on one of the store's reader threads.
    public func max<V: ColumnConvertible & Comparable & Sendable>(_ operand: QueryOperand<Root, V>) async throws -> V? {
        let query = self
        return try await store.readerThreads.run { try query.max(operand) }
    }

    /// ``aggregate(_:of:)`` on one of the store's reader threads.
    public func aggregate(_ function: AggregateFunction, of expression: QueryExpression) async throws -> Value {
        let query = self
        return try await store.readerThreads.run { try query.aggregate(function, of: expression) }
    }
}

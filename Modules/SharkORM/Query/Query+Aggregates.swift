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
        try typed(.sum, keyPath, as: V.self)
    }

    /// The sum of an optional property, its nils skipped.
    public func sum<V: ColumnConvertible & AdditiveArithmetic>(_ keyPath: KeyPath<Root, V?>) throws -> V? {
        try typed(.sum, keyPath, as: V.self)
    }

    /// The average of a property over the matches, as a `Double`; nil when nothing matches.
    ///
    /// ```swift
    /// let meanAge = try Person.query(in: store).average(\.age)
    /// ```
    public func average<V: ColumnConvertible & AdditiveArithmetic>(_ keyPath: KeyPath<Root, V>) throws -> Double? {
        try typed(.average, keyPath, as: Double.self)
    }

    /// The average of an optional property, its nils skipped.
    public func average<V: ColumnConvertible & AdditiveArithmetic>(_ keyPath: KeyPath<Root, V?>) throws -> Double? {
        try typed(.average, keyPath, as: Double.self)
    }

    /// The average of a `Decimal` property, exact and rounded once to a `Decimal` (ties to
    /// even), whatever the rows' order; nil when nothing matches.
    ///
    /// ```swift
    /// let meanPrice: Decimal? = try Product.query(in: store).average(\.price)
    /// ```
    public func average(_ keyPath: KeyPath<Root, Decimal>) throws -> Decimal? {
        try typed(.average, keyPath, as: Decimal.self)
    }

    /// The average of an optional `Decimal` property, its nils skipped.
    public func average(_ keyPath: KeyPath<Root, Decimal?>) throws -> Decimal? {
        try typed(.average, keyPath, as: Decimal.self)
    }

    /// The average of a computed `Decimal` value, exact and rounded once to a `Decimal`.
    public func average(_ operand: QueryOperand<Root, Decimal>) throws -> Decimal? {
        try typed(.average, operand, as: Decimal.self)
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
        try typed(.sum, operand, as: V.self)
    }

    /// The average of a computed value over the matches, as a `Double`.
    public func average<V: ColumnConvertible & AdditiveArithmetic>(_ operand: QueryOperand<Root, V>) throws
        -> Double?
    {
        try typed(.average, operand, as: Double.self)
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

    private func typed<V: ColumnConvertible>(_ function: AggregateFunction, _ keyPath: AnyKeyPath, as: V.Type)
        throws -> V?
    {
        try typed(function, of: try QueryPredicate<Root>.column(keyPath), as: V.self)
    }

    private func typed<T, V: ColumnConvertible>(
        _ function: AggregateFunction, _ operand: QueryOperand<Root, T>, as: V.Type
    ) throws -> V? {
        if let problem = operand.problem { throw problem }
        return try typed(function, of: operand.expression, as: V.self)
    }

    /// The aggregate as `V`: the engine's exact result, refused with
    /// ``SharkError/invalidValue(_:)`` when `V` cannot hold it (the sum of `UInt8`s above
    /// 255) rather than changed.
    private func typed<V: ColumnConvertible>(_ function: AggregateFunction, of expression: QueryExpression, as: V.Type)
        throws -> V?
    {
        let value = try aggregate(function, of: expression)
        if value.isNull { return nil }
        let misfit = SharkError.invalidValue(
            .doesNotFitProperty,
            "the \(function == .average ? "average" : function.rawValue) of \(expression), \(value), does not fit in \(V.self)"
        )
        switch (value, V.storageType) {
        case (.real(let real), .integer):
            // Only a whole number in range is the integer (never the nearest one).
            guard let integer = Int64(exactly: real) else { throw misfit }
            return try converted(.integer(integer), as: V.self, misfit)
        case (.text(let text), .real):
            // A decimal's average or sum, asked for as a Double.
            guard let decimal = DecimalText.decode(text) else { throw misfit }
            return try converted(.real(NSDecimalNumber(decimal: decimal).doubleValue), as: V.self, misfit)
        case (.text, .integer):
            throw misfit
        default:
            return try converted(value, as: V.self, misfit)
        }
    }

    private func converted<V: ColumnConvertible>(_ value: Value, as: V.Type, _ misfit: SharkError) throws -> V {
        do {
            return try V(columnValue: value)
        } catch SharkError.decoding {
            throw misfit
        }
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

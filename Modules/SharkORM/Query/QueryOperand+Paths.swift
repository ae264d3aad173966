/// Typed paths through to-one relationships: a property of the related object, read as a
/// LEFT JOIN would (nil when nothing is related, or the related object is not stored).
///
/// ```swift
/// let inSales = try Employee.query(in: store).where(.path(\.department, \.name) == "Sales").fetch()
/// let inRome = try Employee.query(in: store)
///     .where(.path(\.department, .path(\.location, \.city)) == "Rome")
///     .fetch()
/// ```
extension QueryOperand {
    /// `property` of the object the optional `relationship` refers to.
    public static func path<M: Model>(_ relationship: KeyPath<Root, M?>, _ property: KeyPath<M, T>) -> QueryOperand {
        step(relationship, to: M.self, QueryOperand<M, T>(property))
    }

    /// `property` of the object the non-optional `relationship` refers to.
    public static func path<M: Model>(_ relationship: KeyPath<Root, M>, _ property: KeyPath<M, T>) -> QueryOperand {
        step(relationship, to: M.self, QueryOperand<M, T>(property))
    }

    /// A value computed over the object the optional `relationship` refers to (a longer path,
    /// a function of its properties).
    public static func path<M: Model>(_ relationship: KeyPath<Root, M?>, _ operand: QueryOperand<M, T>)
        -> QueryOperand
    {
        step(relationship, to: M.self, operand)
    }

    /// A value computed over the object the non-optional `relationship` refers to.
    public static func path<M: Model>(_ relationship: KeyPath<Root, M>, _ operand: QueryOperand<M, T>)
        -> QueryOperand
    {
        step(relationship, to: M.self, operand)
    }

    private static func step<M: Model>(_ relationship: AnyKeyPath, to: M.Type, _ operand: QueryOperand<M, T>)
        -> QueryOperand
    {
        if let problem = operand.problem { return QueryOperand(.value(.null), problem: problem) }
        return build { () throws(SharkError) in
            guard case .column(let column) = try QueryPredicate<Root>.column(relationship),
                Root._sharkSchemaColumns.first(where: { $0.name == column })?.relationship != nil
            else {
                throw SharkError.invalidQuery(
                    .notARelationship,
                    "\(relationship) is not a to-one relationship of \(Root._sharkEntityName)")
            }
            let step = RelationshipStep(
                column: column, entity: M._sharkEntityName, key: M._sharkSchemaColumns[0].name)
            return .path(step, operand.expression)
        }
    }
}

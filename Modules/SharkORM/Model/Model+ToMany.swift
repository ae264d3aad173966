/// To-many relationships are queries: the inverse of a to-one relationship declared on the
/// other side, or a many-to-many through a join model. Being queries, they can be filtered,
/// ordered, counted, summed and fetched in windows like any other, and they always reflect
/// what is stored.
///
/// ```swift
/// @Model
/// final class Department {
///     var name: String = ""
///     /// Every Employee whose `department` is this one.
///     var employees: Query<Employee> { get throws { try inverse(\Employee.department) } }
///     /// Every Project linked to this department through a Staffing row.
///     var projects: Query<Project> { get throws { try inverse(\Staffing.department, through: \Staffing.project) } }
/// }
///
/// let payroll = try sales.employees.where(\.active == true).sum(\.salary)
/// ```
extension Model {
    /// The objects whose to-one relationship `keyPath` refers to this object, in this
    /// object's store (or ``Store/default``). Throws ``SharkError/noStore`` when there is none.
    public func inverse<R: Model>(_ keyPath: KeyPath<R, Self?>) throws -> Query<R> {
        try R.query(in: _$shark.store).where(keyPath == self)
    }

    /// The objects whose non-optional to-one relationship `keyPath` refers to this object.
    public func inverse<R: Model>(_ keyPath: KeyPath<R, Self>) throws -> Query<R> {
        try R.query(in: _$shark.store).where(keyPath == self)
    }

    /// A many-to-many relationship through a join model `J`: the objects `target` refers to
    /// in every `J` whose `source` refers to this object.
    ///
    /// ```swift
    /// @Model final class Membership { var club: Club?; var person: Person? }
    /// let members = try chess.inverse(\Membership.club, through: \Membership.person)
    /// ```
    public func inverse<J: Model, R: Model>(_ source: KeyPath<J, Self?>, through target: KeyPath<J, R?>) throws
        -> Query<R>
    {
        let links = try J.query(in: _$shark.store).where(source == self)
        return try R.query(in: _$shark.store).where(.isReferenced(by: links, through: target))
    }
}

/// Shark's string predicates and orderings, parsed into the same AST as typed predicates (see
/// ``PredicateParser`` for the language). Values are always bound, never spliced into SQL.
extension Query {
    /// Keeps only objects matching a string predicate, its placeholders (`%@`, `%i`, `?`…)
    /// filled by `arguments` in order; combines with other `where` calls by AND.
    ///
    /// ```swift
    /// let people = try Person.query(in: store)
    ///     .where("name = %@ AND age > %i", "Ada", 30)
    ///     .where("email IS NOT NULL OR age IN %@", [36, 41])
    ///     .fetch()
    /// ```
    ///
    /// A malformed predicate does not crash: the query throws
    /// ``SharkError/malformedPredicate(_:)`` naming the offset and what was expected.
    public func `where`(_ predicate: String, _ arguments: Any...) -> Query {
        self.where(predicate, arguments: arguments)
    }

    /// ``where(_:_:)`` with the arguments as an array.
    ///
    /// ```swift
    /// let matches = try Person.query(in: store).where("age BETWEEN ? AND ?", arguments: [18, 65]).count()
    /// ```
    public func `where`(_ predicate: String, arguments: [Any]) -> Query {
        do {
            let expression = try parser.predicate(predicate, arguments: arguments)
            return self.where(QueryPredicate(expression))
        } catch {
            var copy = self
            copy.problem = problem ?? error
            return copy
        }
    }

    /// Sorts by a comma-separated list of properties or expressions, each optionally
    /// followed by `ASC` or `DESC`; later terms break ties of earlier ones, and of earlier
    /// `orderBy` calls.
    ///
    /// ```swift
    /// let sorted = try Person.query(in: store).orderBy("age DESC, lower(name)").fetch()
    /// ```
    public func orderBy(_ ordering: String) -> Query {
        var copy = self
        do {
            copy.description.ordering += try parser.ordering(ordering)
        } catch {
            copy.problem = problem ?? error
        }
        return copy
    }

    /// A parser for this model, which resolves dotted paths through the schemas the store
    /// knows.
    private var parser: PredicateParser {
        let store = self.store
        return PredicateParser(schema: Root.schema) { store.knownSchema(of: $0) }
    }
}

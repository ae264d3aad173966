/// The rows that come after a given row in an ordering, as a predicate: what lets
/// `batch(size:)` start each window right after the last row of the window before (keyset
/// paging) rather than count rows from the start with OFFSET, which sorts and skips every
/// earlier row again in every window and so makes iterating a whole result quadratic.
///
/// An ordering that ends with the key ascending (every query's tie-break, on every driver)
/// orders rows totally, so for terms `t1 … tn` and the row's values `v1 … vn` the rows after
/// it are those beyond it on `t1`, or equal on `t1` and beyond on `t2`, and so on. NULL sorts
/// first ascending and last descending, as on every driver, so:
///
/// - equal to NULL is `t IS NULL`;
/// - beyond NULL ascending is `t IS NOT NULL`, and descending is nothing;
/// - beyond `v` ascending is `t > v`, and descending is `t < v OR t IS NULL`.
///
/// ```swift
/// // After (age 30, key 7) in `age DESC, key`:
/// // (age < 30 OR age IS NULL) OR (age = 30 AND key > 7)
/// let after = RowsAfter.predicate(
///     [Ordering(.column("age"), ascending: false), Ordering(.column("id"))],
///     values: [.integer(30), .integer(7)])
/// ```
enum RowsAfter {
    /// The rows after the row whose value of each of `terms` is the matching element of
    /// `values`; the last term must order rows totally (the key).
    static func predicate(_ terms: [Ordering], values: [Value]) -> QueryExpression {
        var disjuncts: [QueryExpression] = []
        var equalSoFar: [QueryExpression] = []
        for (term, value) in zip(terms, values) {
            if let beyond = beyond(term, value) {
                disjuncts.append(equalSoFar.isEmpty ? beyond : .and(equalSoFar + [beyond]))
            }
            equalSoFar.append(
                value.isNull ? .isNull(term.expression) : .comparison(.equal, term.expression, .value(value)))
        }
        return disjuncts.count == 1 ? disjuncts[0] : .or(disjuncts)
    }

    /// The rows beyond `value` on one term, or nil when none can be (beyond NULL descending).
    private static func beyond(_ term: Ordering, _ value: Value) -> QueryExpression? {
        let expression = term.expression
        switch (value.isNull, term.ascending) {
        case (true, true): return .not(.isNull(expression))
        case (true, false): return nil
        case (false, true): return .comparison(.greater, expression, .value(value))
        case (false, false): return .or([.comparison(.less, expression, .value(value)), .isNull(expression)])
        }
    }
}

/// The typed reasons of the ``SharkError`` cases whose payload is an ``ErrorDetail``: what a
/// caller matches on. docs/errors.md lists each with when it is thrown.
extension SharkError {
    /// ``invalidQuery(_:)`` with its reason.
    public static func invalidQuery(_ reason: QueryReason, _ message: String) -> SharkError {
        .invalidQuery(ErrorDetail(reason, message))
    }

    /// ``invalidValue(_:)`` with its reason.
    public static func invalidValue(_ reason: ValueReason, _ message: String) -> SharkError {
        .invalidValue(ErrorDetail(reason, message))
    }

    /// ``unsupported(_:)`` with its reason.
    public static func unsupported(_ reason: UnsupportedReason, _ message: String) -> SharkError {
        .unsupported(ErrorDetail(reason, message))
    }

    /// ``transactionMisuse(_:)`` with its reason.
    public static func transactionMisuse(_ reason: MisuseReason, _ message: String) -> SharkError {
        .transactionMisuse(ErrorDetail(reason, message))
    }

    /// ``decoding(reason:)`` with its reason.
    public static func decoding(_ reason: DecodingReason, _ message: String) -> SharkError {
        .decoding(reason: ErrorDetail(reason, message))
    }

    /// Why a query, a raw statement or a query-like call cannot run (``invalidQuery(_:)``).
    public enum QueryReason: String, Sendable, Hashable, CaseIterable {
        /// A predicate, ordering, join, subquery, `including`, grouping, lightweight fetch,
        /// `updateAll` or section key names a property that is not persisted (transient or
        /// computed), or a path that does not go through to-one relationships.
        case notPersisted
        /// A key path given where a to-one relationship is needed is not one.
        case notARelationship
        /// A value of a type SharkORM cannot store or compare.
        case unstorableType
        /// A predicate nests deeper than ``QueryExpression/maximumNestingDepth``.
        case nestedTooDeep
        /// A function is given another number of arguments than it takes.
        case wrongArgumentCount
        /// An operator is given operands it does not take (`%` on decimals).
        case unsupportedOperands
        /// `batch(size:)` with a size that is not positive.
        case invalidBatchSize
        /// A ``Migrator`` registers the same migration twice.
        case duplicateMigration
        /// A row call names a column the entity does not have.
        case unknownColumn
        /// Raw SQL whose text holds no statement.
        case rawStatementMissing
        /// Raw SQL whose text goes on after its first statement.
        case rawStatementNotSingle
        /// Raw SQL given another number of arguments than its parameters.
        case rawArgumentCount
        /// Raw SQL that would write an entity an observer protects (a synced one).
        case rawStatementWritesProtected
        /// `rows(_:)` outside a write transaction given a statement that may write.
        case rawStatementMayWrite
        /// Raw SQL that begins or ends a transaction or works with savepoints, which are the
        /// store's own (`store.write { … }`, `tx.transaction { … }`).
        case rawTransactionControl
    }

    /// Why a value cannot be stored or computed (``invalidValue(_:)``).
    public enum ValueReason: String, Sendable, Hashable, CaseIterable {
        /// An integer result, or an integer sum, does not fit in 64 bits.
        case integerOverflow
        /// A decimal result is beyond `Decimal`'s range.
        case decimalOverflow
        /// A division or remainder by zero.
        case divisionByZero
        /// Arithmetic, a sum or an average met a value that is not a number (text, a blob, an
        /// infinite real where a decimal is needed).
        case notANumber
        /// A value written to a column that does not take it: another storage class, an
        /// integer wider than the property, a Float that is not one, too many decimal digits.
        case doesNotFitColumn
        /// An aggregate's result does not fit in the property's type it is returned as.
        case doesNotFitProperty
        /// A NaN where it has no stored form (`Decimal.nan`, a `Date` of NaN seconds, an
        /// optional `Double` or `Float` holding NaN).
        case notANumberStored
        /// An unsigned integer above `Int64.max`, the largest integer a store holds.
        case aboveInt64Max
        /// A `Codable` property whose value does not encode.
        case notEncodable
    }

    /// Why a driver cannot do what was asked (``unsupported(_:)``).
    public enum UnsupportedReason: String, Sendable, Hashable, CaseIterable {
        /// Raw SQL on a driver without a SQL engine (memory).
        case rawSQL
        /// ``Store/checkIntegrity()`` on a driver that cannot check its storage.
        case integrityCheck
        /// A SQLCipher operation (rekey, cipher settings) on a store of another driver.
        case needsSQLCipher
        /// The loaded library lacks the function the operation needs.
        case libraryLacksFunction
        /// A write through a connection that only reads.
        case readOnlyConnection
    }

    /// How a transaction, or a driver's calls, were misused (``transactionMisuse(_:)``).
    public enum MisuseReason: String, Sendable, Hashable, CaseIterable {
        /// A transaction used after its body returned.
        case ended
        /// A transaction used from another thread or task while its body runs.
        case otherThread
        /// COMMIT or ROLLBACK asked of a driver connection with no transaction open.
        case noTransaction
        /// A suspending driver's operation called back into its own blocking seam.
        case reentrantDriverCall
        /// A write of a store that takes turns with the other stores of its database, begun on
        /// a thread where another of those stores holds the turn: it would wait for itself.
        case turnHeldByThisThread
    }

    /// Why a stored value could not be read into a property (``decoding(reason:)``).
    public enum DecodingReason: String, Sendable, Hashable, CaseIterable {
        /// The column holds a value of another storage class than the property reads.
        case wrongStorageClass
        /// The stored number does not fit in the property's type.
        case doesNotFit
        /// The stored value is not a raw value of the property's enum.
        case notARawValue
        /// The stored text is not the JSON of the property's `Codable` type.
        case invalidJSON
        /// A UUID column holds other than 16 bytes.
        case invalidUUID
        /// A URL column holds text that is not a URL.
        case invalidURL
        /// A Decimal column holds text that is not a decimal number.
        case invalidDecimal
        /// Non-optional relationships lead back to the same model without end.
        case relationshipCycle
    }
}

import Foundation

/// Every failure SharkORM reports, typed so callers can react to each one.
///
/// Each case says what failed and why; ``description`` renders it for people.
///
/// ```swift
/// do {
///     try store.commit(person)
/// } catch SharkError.uniqueConstraint(let entity, let columns, _) {
///     print("another \(entity) already has this \(columns.joined(separator: ", "))")
/// }
/// ```
public enum SharkError: Error, Sendable, Equatable {
    /// The file exists but is not a database. (An encrypted driver reports a key that does
    /// not open a file with its own error: `SQLCipherError.wrongKey`.)
    case notADatabase(path: String)
    /// The database could not be opened or created at `path`.
    case cannotOpen(path: String, reason: String)
    /// The database is read-only, or its location is not writable.
    case readOnly(path: String, reason: String)
    /// A `willInsert`, `willUpdate` or `willDelete` hook returned false.
    case vetoed(entity: String, operation: Operation)
    /// A unique index (or the primary key) already holds the value being written.
    case uniqueConstraint(entity: String, columns: [String], message: String)
    /// Another constraint (NOT NULL, CHECK) refused the write.
    case constraintViolation(entity: String, message: String)
    /// Applying the model's schema would lose stored data, so it was refused.
    case lossySchemaChange(entity: String, column: String, reason: String)
    /// The model cannot be stored as declared: a reserved entity name, two columns whose
    /// names differ only in case, two models whose entity names differ only in case.
    case invalidModel(entity: String, reason: String)
    /// The stored schema cannot be reconciled with the model.
    case schemaMismatch(entity: String, reason: String)
    /// A stored value could not be decoded into the property's type.
    case decoding(reason: ErrorDetail<DecodingReason>)
    /// A property holds a value that has no stored form that reads back (`Decimal.nan`, a
    /// `Date` of NaN seconds, a Codable value that does not encode): refused when committed,
    /// so no row is ever written that cannot be read.
    case invalidValue(ErrorDetail<ValueReason>)
    /// No file exists at `path`, and the operation needs one (encrypting, decrypting).
    case fileNotFound(path: String)
    /// The file at `path` is a database, opened with the right key where it has one, but
    /// its content is damaged.
    case corrupt(path: String, reason: String)
    /// An object was expected in the store but is not there.
    case notFound(entity: String, key: String)
    /// An operation that needs a persisted object was given a new one.
    case notPersisted(entity: String)
    /// The object's key is missing or invalid (an empty String key, say).
    case invalidKey(entity: String, reason: String)
    /// No store was given and no default store is set.
    case noStore
    /// A query cannot run as written: a predicate or ordering on a property that is not
    /// persisted, a value of a type that cannot be stored, a predicate nested deeper than
    /// ``QueryExpression/maximumNestingDepth``; or raw SQL with a number of arguments other
    /// than its parameters, or with text after its first statement.
    case invalidQuery(ErrorDetail<QueryReason>)
    /// A string predicate or ordering is not well formed, names a property or function
    /// that does not exist, or takes another number of arguments than it was given: the
    /// error says where and what was expected.
    case malformedPredicate(PredicateSyntaxError)
    /// Removing an object of `entity` was refused by a `deny` delete rule: `referencedBy`
    /// (an entity and property, `Employee.department`) still refers to it.
    case deleteDenied(entity: String, referencedBy: String)
    /// The driver does not support the operation (raw SQL on the memory engine, say).
    case unsupported(ErrorDetail<UnsupportedReason>)
    /// The store was closed.
    case closed
    /// A transaction was misused: committing from another thread, or after it ended.
    case transactionMisuse(ErrorDetail<MisuseReason>)
    /// A driver-level failure: the engine's own code and message, and the statement if any.
    case driver(code: Int32, message: String, sql: String?)

    /// The write operation a veto stopped.
    public enum Operation: String, Sendable, Equatable {
        case insert, update, delete
    }
}

extension SharkError: CustomStringConvertible, LocalizedError {
    public var description: String {
        switch self {
        case .notADatabase(let path):
            return "\(path) is not a database (or it is encrypted with another key)"
        case .cannotOpen(let path, let reason):
            return "cannot open the database at \(path): \(reason)"
        case .readOnly(let path, let reason):
            return "the database at \(path) is read-only: \(reason)"
        case .vetoed(let entity, let operation):
            return
                "the \(operation.rawValue) of a \(entity) was vetoed by its will\(operation.rawValue.capitalized) hook"
        case .uniqueConstraint(let entity, let columns, let message):
            return "another \(entity) already has the same \(columns.joined(separator: ", ")) (\(message))"
        case .constraintViolation(let entity, let message):
            return "a constraint of \(entity) refused the write: \(message)"
        case .lossySchemaChange(let entity, let column, let reason):
            return "changing \(entity).\(column) would lose data: \(reason)"
        case .invalidModel(let entity, let reason):
            return "the model \(entity) cannot be stored: \(reason)"
        case .schemaMismatch(let entity, let reason):
            return "the stored schema of \(entity) does not match the model: \(reason)"
        case .decoding(let reason):
            return "cannot decode a stored value: \(reason)"
        case .invalidValue(let reason):
            return "cannot store the value: \(reason)"
        case .fileNotFound(let path):
            return "no file at \(path)"
        case .corrupt(let path, let reason):
            return "the database at \(path) is damaged: \(reason)"
        case .notFound(let entity, let key):
            return "no \(entity) with key \(key) in the store"
        case .notPersisted(let entity):
            return "this \(entity) has not been committed to a store"
        case .invalidKey(let entity, let reason):
            return "invalid key for \(entity): \(reason)"
        case .noStore:
            return "no store: pass one, or set Store.default at start-up"
        case .invalidQuery(let why):
            return "invalid query: \(why)"
        case .malformedPredicate(let error):
            return "malformed predicate: \(error)"
        case .deleteDenied(let entity, let referencedBy):
            return "the \(entity) cannot be removed: \(referencedBy) still refers to it, and its delete rule is deny"
        case .unsupported(let what):
            return "unsupported: \(what)"
        case .closed:
            return "the store is closed"
        case .transactionMisuse(let what):
            return "transaction misuse: \(what)"
        case .driver(let code, let message, let sql):
            return "database error \(code): \(message)" + (sql.map { " in `\($0)`" } ?? "")
        }
    }

    public var errorDescription: String? { description }
}

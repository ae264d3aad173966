/// What happens to the objects that refer to an object when it is removed, declared on the
/// referring side with `@Relationship(deleteRule:)`.
///
/// ```swift
/// @Model
/// final class Employee {
///     var department: Department?                        // nullify: the default for optionals
///     @Relationship(deleteRule: .cascade) var badge: Badge?
///     var manager: Person                                 // deny: the default for non-optionals
/// }
/// ```
///
/// The rules run in the core's write pipeline, not as SQL foreign keys: the objects they
/// change or remove pass through the same hooks, observers and events as any other write,
/// and a stored key whose object is not there (yet) is legal.
public enum DeleteRule: String, Sendable, Hashable, Codable {
    /// Removing the object sets the referring property to nil (optional properties only).
    case nullify
    /// Removing the object removes the objects that refer to it, with their own rules.
    case cascade
    /// Removing the object fails with ``SharkError/deleteDenied(entity:referencedBy:)`` while
    /// anything refers to it, and nothing changes.
    case deny
}

/// A to-one relationship as the schema records it: the column holds the key of an object of
/// `target`.
///
/// ```swift
/// let schema = Employee.schema
/// let department = schema.columns.first { $0.name == "department" }!
/// print(department.relationship!)   // Department, nullify
/// ```
public struct RelationshipSchema: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The entity (table) name of the related model.
    public var target: String
    /// What removing a related object does to the objects that refer to it.
    public var deleteRule: DeleteRule

    public init(target: String, deleteRule: DeleteRule) {
        self.target = target
        self.deleteRule = deleteRule
    }

    public var description: String { "\(target), \(deleteRule.rawValue)" }
}

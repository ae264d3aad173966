/// An index declared on a model, from key paths.
///
/// Declare a model's indexes in a static `indexes` property; the store creates and drops them
/// to match the declaration.
///
/// ```swift
/// @Model final class Person {
///     var name = ""
///     var payrollNumber = 0
///     static let indexes: [Index<Person>] = [.on(\.name), .unique(\.payrollNumber)]
/// }
/// ```
public struct Index<Root: Model>: Sendable {
    let keyPaths: [PartialKeyPath<Root> & Sendable]
    let isUnique: Bool

    /// A plain index on one or more properties.
    public static func on(_ keyPaths: (PartialKeyPath<Root> & Sendable)...) -> Index {
        Index(keyPaths: keyPaths, isUnique: false)
    }

    /// A unique index: no two objects may share the values of these properties.
    public static func unique(_ keyPaths: (PartialKeyPath<Root> & Sendable)...) -> Index {
        Index(keyPaths: keyPaths, isUnique: true)
    }

    /// The schema of this index; an index on a property that is not persisted is a
    /// ``SharkError/schemaMismatch(entity:reason:)``.
    func schema() throws(SharkError) -> IndexSchema {
        var columns: [String] = []
        for keyPath in keyPaths {
            guard let index = Root.columnIndex(of: keyPath) else {
                throw SharkError.schemaMismatch(
                    entity: Root._sharkEntityName,
                    reason: "an index names a property that is not persisted (transient or computed)")
            }
            columns.append(Root._sharkSchemaColumns[Int(index)].name)
        }
        return IndexSchema(entity: Root._sharkEntityName, columns: columns, isUnique: isUnique)
    }
}

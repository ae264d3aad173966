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

    /// The schema of this index. Key paths that are not persisted properties are a
    /// programming error and stop the program with a message naming the entity.
    func schema() -> IndexSchema {
        let columns = keyPaths.map { keyPath -> String in
            guard let index = Root._sharkColumnIndex(for: keyPath) else {
                preconditionFailure("an index of \(Root.self) names a property that is not persisted")
            }
            return Root._sharkSchemaColumns[Int(index)].name
        }
        return IndexSchema(entity: Root._sharkEntityName, columns: columns, isUnique: isUnique)
    }
}

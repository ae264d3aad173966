import Synchronization

/// Typed key paths through to-one relationships, read as a LEFT JOIN would (nil when nothing is
/// related or the related object is not stored):
///
/// ```swift
/// let inSales = try Employee.query(in: store).where(\.department?.name == "Sales").fetch()
/// let byCity = try Employee.query(in: store).orderBy(\.department?.location?.city).fetch()
/// ```
///
/// Swift has no public way to take a key path apart, and a path composed with `appending`
/// compares unequal to the literal one once it chains through an optional. What does hold is
/// the key path's debug description: each component of a model property prints with an
/// identity (its accessor) that is the same in every key path reaching that property. So a
/// path is matched component by component against the descriptions of each model's own
/// property key paths (`_sharkPropertyKeyPaths`), following relationship columns to the
/// related model. Only key paths that name no direct property come here; the result is the
/// same `.path` expression that `QueryOperand.path(_:_:)` builds.
enum RelationshipKeyPath {
    /// Paths are at most this many relationships deep: a bound on the matching work for a
    /// key path that is not a path at all.
    private static let maximumDepth = 16

    /// Per model type, the printed component of each of its property key paths.
    private static let componentsByModel = Mutex<[ObjectIdentifier: [String]]>([:])

    /// The path `keyPath` follows from `root`, or nil when it is not a chain of to-one
    /// relationships ending at a persisted property.
    static func expression(for keyPath: AnyKeyPath, from root: any Model.Type) -> QueryExpression? {
        let description = keyPath.debugDescription
        let prefix = rootPrefix(of: root)
        guard description.hasPrefix(prefix) else { return nil }
        return resolve(description.dropFirst(prefix.count), in: root, depth: 0)
    }

    private static func resolve(_ rest: Substring, in model: any Model.Type, depth: Int) -> QueryExpression? {
        guard depth <= maximumDepth else { return nil }
        let columns = model._sharkSchemaColumns
        for (index, component) in components(of: model).enumerated()
        where index < columns.count && rest.hasPrefix(component) {
            // Optional chaining prints as `?` (force unwrapping as `!`) after the component.
            var after = rest.dropFirst(component.count)
            while let first = after.first, first == "?" || first == "!" { after = after.dropFirst() }
            if after.isEmpty { return .column(columns[index].name) }
            guard after.first == ".", let target = columns[index].relationship?.target,
                let related = ModelTypes.type(named: target),
                let inner = resolve(after.dropFirst(), in: related, depth: depth + 1)
            else { continue }
            let step = RelationshipStep(
                column: columns[index].name, entity: target, key: related._sharkSchemaColumns[0].name)
            return .path(step, inner)
        }
        return nil
    }

    private static func components(of model: any Model.Type) -> [String] {
        let id = ObjectIdentifier(model)
        if let known = componentsByModel.withLock({ $0[id] }) { return known }
        let prefix = rootPrefix(of: model)
        let components = model._sharkPropertyKeyPaths.map { keyPath -> String in
            let description = keyPath.debugDescription
            // A description that does not start with the root never matches anything.
            return description.hasPrefix(prefix) ? String(description.dropFirst(prefix.count)) : "\u{0}"
        }
        componentsByModel.withLock { $0[id] = components }
        return components
    }

    /// `\Root.` as key paths of `model` print it: the identity key path without its `self`.
    private static func rootPrefix<M: Model>(of model: M.Type) -> String {
        String((\M.self as AnyKeyPath).debugDescription.dropLast("self".count))
    }
}

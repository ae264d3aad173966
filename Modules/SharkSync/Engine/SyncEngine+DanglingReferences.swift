import Foundation
@_spi(SharkReplication) import SharkORM

/// A relationship whose key names a row that does not exist: the child was added (or pointed
/// at its parent) on one replica while another removed the parent.
///
/// ```swift
/// for reference in try sync.danglingReferences() {
///     print("\(reference.entity) \(reference.key).\(reference.column) names a removed \(reference.target)")
/// }
/// ```
public struct DanglingReference: Sendable, Hashable {
    /// The entity of the row that holds the reference.
    public var entity: String
    /// That row's key.
    public var key: Value
    /// The relationship column.
    public var column: String
    /// The entity the relationship points to.
    public var target: String
    /// The key the column holds, which no row of `target` has.
    public var targetKey: Value
}

extension SyncEngine {
    /// Every reference among the synced models that names a row which does not exist: by
    /// entity name, then column (in the model's order), then key.
    ///
    /// Sync's rule for a reference to a row removed elsewhere is a function of the merged
    /// rows alone, so every replica ends the same: the reference is **kept**. Its column
    /// still holds the removed row's key, the relationship reads `nil`, and should the row
    /// come back (inserted again under the same key, on any replica) the reference holds
    /// again. Delete rules run where a removal is made, on the rows that replica has; an
    /// import does not run them again, since each replica would decide from what it had
    /// received so far. This call lists what that leaves, for the app to repair as it sees
    /// fit (repairs are ordinary writes, and sync like any other). It reads the referring
    /// entities a page at a time.
    ///
    /// ```swift
    /// for dangling in try sync.danglingReferences() where dangling.column == "folder" {
    ///     try sync.store.write { tx in
    ///         _ = try tx.updateRow(withKey: dangling.key, in: dangling.entity, setting: ["folder": .null])
    ///     }
    /// }
    /// ```
    public func danglingReferences() throws -> [DanglingReference] {
        var found: [DanglingReference] = []
        for schema in schemas.values.sorted(by: { $0.name < $1.name }) {
            let references = schema.columns.indices.dropFirst().filter { schema.columns[$0].relationship != nil }
            guard !references.isEmpty else { continue }
            var byColumn = [[DanglingReference]](repeating: [], count: references.count)
            var after: Value?
            while true {
                let page = try store.storedRows(of: schema, after: after, limit: Self.danglingPage)
                guard let last = page.last else { break }
                after = last[0]
                for (slot, position) in references.enumerated() {
                    let column = schema.columns[position]
                    let target = column.relationship!.target
                    guard let targetSchema = schemas[target] else { continue }
                    let named = Set(page.map { $0[position] }.filter { !$0.isNull })
                    guard !named.isEmpty else { continue }
                    let existing = Set(try store.storedRows(of: targetSchema, withKeys: named).map { $0[0] })
                    for row in page where !row[position].isNull && !existing.contains(row[position]) {
                        byColumn[slot].append(
                            DanglingReference(
                                entity: schema.name, key: row[0], column: column.name, target: target,
                                targetKey: row[position]))
                    }
                }
                if page.count < Self.danglingPage { break }
            }
            found += byColumn.joined()
        }
        return found
    }

    /// Rows read at a time by ``danglingReferences()``.
    static let danglingPage = 1_000
}

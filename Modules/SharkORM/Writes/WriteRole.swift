/// Whose write the write stage is carrying out: what decides how a write is recorded, and so
/// who hears of it.
///
/// | role | observers see it | events report it | origin |
/// |---|---|---|---|
/// | ``app`` | yes | yes | `.local` |
/// | ``imported(from:)`` | yes | yes | `.imported(site)` |
/// | ``observer(protecting:)`` | never | unless the entity is protected | the transaction's |
/// | ``bookkeeping`` | never | never | — |
///
/// A transaction starts as the app's; a sync import attributes it to its source
/// (`WriteTransaction.attributeChanges(to:)`), and sync's metadata is written as bookkeeping
/// (`WriteTransaction.writingBookkeeping(_:)`). While observers run before COMMIT, what they
/// write is theirs.
enum WriteRole: Equatable {
    /// The app's own write, through this store.
    case app
    /// A replay of writes made elsewhere (a sync import), named by its source.
    case imported(from: String)
    /// A write a ``TransactionObserver`` makes while it is shown the transaction's changes.
    /// Observers are never shown it (they would see their own writes forever); events report
    /// it, except to the entities observers protect (their own metadata).
    case observer(protecting: Set<String>)
    /// Bookkeeping nothing observes (sync's metadata): written, never recorded.
    case bookkeeping
}

import Foundation
@_spi(SharkDriver) import SharkORM

/// The committed database and the one transaction that changes it, in place.
///
/// A transaction used to work on a copy of the committed state. The copy itself is free
/// (persistent structures), but each node the transaction then touched was copied on its
/// first write: a leaf of an index holds 32 entries, each a row to retain and later release,
/// so a commit of 100 rows over three indexes spent most of its time copying leaves (O took
/// 2.6 s on the memory engine against 1.9 s on the SQLite driver). Now the open transaction
/// takes the committed state over, changes it where it lies, and notes in an undo log how to
/// step back, as SQLite's rollback journal does for pages.
///
/// Readers still never wait for a transaction nor see part of one. The first reader that
/// arrives while a transaction is open rebuilds the state from before it (a copy of the
/// working state, the undo log applied backwards to the copy) and leaves it for the readers
/// after it and for a rollback; the transaction's later writes copy what they share with it,
/// as before.
///
/// The log holds at most `undoLimit` steps, so that a reader's rebuild stays short. A
/// transaction that outgrows it freezes the log: it keeps a copy of the working state as it
/// was then (O(1)), from which, with the log, the state from before the transaction can still
/// be rebuilt, and works on as on a copy, logging nothing more. A large transaction writes
/// many rows to each node it copies, so the copies cost it little.
///
/// The writer reads the working state without the lock: it alone changes it, and only under
/// the lock, which readers take to copy it.
final class MemoryVersions: @unchecked Sendable {
    // The properties are changed under the lock only, and the writer, which alone changes
    // them, reads them without it: the runtime's exclusivity checks (two per write) would
    // guard nothing the lock does not.
    private let lock = NSLock()
    /// What readers see: nil while the open transaction has taken it over and no reader has
    /// needed it since. Never nil outside a transaction.
    @exclusivity(unchecked) private var committed: MemoryDatabaseState? = MemoryDatabaseState()
    /// The open transaction's state; nil when none is open.
    @exclusivity(unchecked) private(set) var working: MemoryDatabaseState?
    /// How to take back the open transaction's changes, last last: from the working state, or,
    /// once frozen, from `frozen`.
    @exclusivity(unchecked) private var undo: [UndoStep] = []
    /// The working state when the log reached `undoLimit` steps; nil while the log grows.
    @exclusivity(unchecked) private var frozen: MemoryDatabaseState?
    @exclusivity(unchecked) private var savepoints: [(name: String, start: SavepointStart)] = []

    /// Where a savepoint began: a length of the undo log, or, for one opened after the log
    /// froze, a copy of the state.
    private enum SavepointStart {
        case step(Int)
        case state(MemoryDatabaseState)
    }

    /// The most steps the undo log holds: a reader arriving mid-transaction takes back at
    /// most this many changes (a few milliseconds) to see the state from before it.
    let undoLimit: Int

    /// Versions whose undo log freezes after `undoLimit` steps (tests make it small).
    init(undoLimit: Int = 1_000) {
        self.undoLimit = max(1, undoLimit)
    }

    var isTransactionOpen: Bool { working != nil }

    /// The committed state (an O(1) copy).
    func snapshot() -> MemoryDatabaseState {
        lock.lock()
        defer { lock.unlock() }
        if let committed { return committed }
        let state = rebuilt(from: frozen ?? working!, downTo: 0)
        committed = state
        return state
    }

    /// `state` (the working or the frozen one) with the undo log's steps after `step` taken
    /// back, on a copy: the working state goes on.
    private func rebuilt(from state: MemoryDatabaseState, downTo step: Int) -> MemoryDatabaseState {
        var state = state
        for position in stride(from: undo.count - 1, through: step, by: -1) { state.undo(undo[position]) }
        return state
    }

    // MARK: The transaction

    /// Opens a transaction, which takes the committed state over.
    func begin() {
        lock.lock()
        defer { lock.unlock() }
        working = committed!
        committed = nil
        reset()
    }

    /// Makes the working state the committed one.
    func commit() {
        lock.lock()
        defer { lock.unlock() }
        committed = working
        working = nil
        reset()
    }

    /// Takes back every change of the open transaction, if one is open.
    func rollback() {
        lock.lock()
        defer { lock.unlock() }
        guard working != nil else { return }
        if committed == nil {
            // The working state is dropped: its changes are taken back where they lie, or, once
            // frozen, on the frozen state, each without a copy.
            var state = frozen ?? working!
            working = nil
            frozen = nil
            for step in undo.reversed() { state.undo(step) }
            committed = state
        }
        working = nil
        reset()
    }

    private func reset() {
        undo = []
        frozen = nil
        savepoints = []
    }

    /// Runs `change` on the table named `name` of the working state, in place, and notes the
    /// step it returns to take the change back. A change that throws must have changed nothing.
    ///
    /// The table is reached in place, never copied out: a copy, even one only read, would
    /// cost its parts a retain and a release.
    func change<T>(tableNamed name: String, _ change: (inout MemoryTable) throws -> (T, TableUndo?)) throws -> T {
        // Not `lock.withLock { … }`: with a throwing body inside a rethrowing method, the
        // closure reached `self` 16 bytes off (AddressSanitizer: a read past the object) in
        // debug builds of Swift 6.3 on Linux.
        lock.lock()
        defer { lock.unlock() }
        guard let position = working!.position(of: name) else { throw MemoryDriver.noTable(name) }
        let (result, step) = try working!.modify(at: position, change)
        if let step { record(.table(position, step)) }
        return result
    }

    /// What `body` reads from the table named `name` of the working state, reached in place.
    func read<T>(tableNamed name: String, _ body: (inout MemoryTable) throws -> T) throws -> T {
        try change(tableNamed: name) { table in (try body(&table), nil) }
    }

    /// Runs `change` on the whole working state (a table created or migrated), noting the
    /// state from before it. The rest of the transaction copies what it shares with that.
    func modifyDatabase(_ change: (inout MemoryDatabaseState) throws -> Void) rethrows {
        lock.lock()
        defer { lock.unlock() }
        let before = working!
        try change(&working!)
        record(.database(before))
    }

    /// Called under the lock.
    private func record(_ step: UndoStep) {
        guard frozen == nil else { return }
        undo.append(step)
        // The working state is shared from now on: its next writes copy what they touch.
        if undo.count >= undoLimit { frozen = working }
    }

    // MARK: Savepoints

    func createSavepoint(_ name: String) {
        savepoints.append((name, frozen == nil ? .step(undo.count) : .state(working!)))
    }

    func releaseSavepoint(_ name: String) {
        if let index = savepoints.lastIndex(where: { $0.name == name }) { savepoints.removeSubrange(index...) }
    }

    /// Takes back the changes made since the savepoint named `name` began; it stays open.
    func rollbackToSavepoint(_ name: String) {
        guard let index = savepoints.lastIndex(where: { $0.name == name }) else { return }
        lock.lock()
        defer { lock.unlock() }
        switch savepoints[index].start {
        case .step(let start):
            // Back to where the log was `start` steps long: the log grows again from there.
            var state = frozen ?? working!
            working = nil
            frozen = nil
            while undo.count > start { state.undo(undo.removeLast()) }
            working = state
        case .state(let state):
            working = state
        }
        savepoints.removeSubrange((index + 1)...)
    }

    /// Forgets everything: the store is closing.
    func close() {
        lock.lock()
        defer { lock.unlock() }
        committed = MemoryDatabaseState()
        working = nil
        reset()
    }
}

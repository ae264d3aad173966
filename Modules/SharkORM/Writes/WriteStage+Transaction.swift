import Foundation

/// Stages 3 to 5 of a write, around the write stage: the outermost transaction and its
/// savepoints, the in-transaction observers just before COMMIT, COMMIT, the commit event and
/// the `did…` hooks after it.
extension Store {
    /// Runs `body` as a new outermost transaction: stages 3 to 5 of the pipeline happen here.
    ///
    /// - Parameter retryingConflicts: for the app's closure transactions (`write`,
    ///   `transaction`), whose body reads what it changes and can run again: one that loses a
    ///   race with another writer (``RetryableConflict``) runs again. A single operation
    ///   (`commit`, `remove`, `updateAll`…) does not: the objects it wrote get the stored row
    ///   back, so running it again would write nothing; its conflict reaches the caller.
    @usableFromInline
    func runOutermostTransaction<T>(retryingConflicts: Bool = false, _ body: (WriteTransaction) throws -> T)
        throws -> T
    {
        guard retryingConflicts else { return try runOutermostTransactionOnce(body) }
        var attempt = 1
        while true {
            do {
                return try runOutermostTransactionOnce(body)
            } catch let conflict as any RetryableConflict
                where conflict.isConflict && attempt < Store.transactionAttempts
            {
                // Lost a race with another writer of the database (RetryableConflict): the
                // attempt rolled back and its objects have their state back; run it again
                // after a randomized pause, which spreads out writers that collided.
                let pause = Double.random(in: 0...Double(min(1 << attempt, 64))) / 1_000
                Thread.sleep(forTimeInterval: pause)
                attempt += 1
            }
        }
    }

    /// One attempt of ``runOutermostTransaction(retryingConflicts:_:)``.
    private func runOutermostTransactionOnce<T>(_ body: (WriteTransaction) throws -> T) throws -> T {
        let (result, committed) = try writerLock.withLock { () throws -> (T, [CommittedWrite]) in
            try checkOpen()
            let transaction = WriteTransaction(store: self, isSavepoint: false)
            let writer = driver.writer
            transactions.push(recordingChanges: recordsChanges)
            writeStage.beginTransaction()
            do {
                try writer.beginTransaction()
            } catch {
                transaction.confinement.end()
                transactions.popRolledBack(in: self)
                throw error
            }
            var recorded = false
            do {
                let result = try TransactionScope.with(transaction) { () throws -> T in
                    let result = try body(transaction)
                    try notifyObservers(in: transaction)
                    return result
                }
                // Built now only for other stores; for this store's listeners, once COMMIT
                // succeeded and only if anyone listens.
                let shared = sharedChangeLog.map { _ in netChanges() }
                if let sharedChangeLog, let shared, !shared.isEmpty {
                    try sharedChangeLog.record(shared, origin: writeStage.origin)
                    recorded = true
                }
                try writer.commitTransaction()
                transaction.confinement.end()
                if let sharedChangeLog {
                    sharedChangeLog.publish { publishCommitEvent(shared) }
                } else {
                    publishCommitEvent(nil)
                }
                return (result, transactions.popCommitted())
            } catch {
                transaction.confinement.end()
                try? writer.rollbackTransaction()
                if recorded { sharedChangeLog?.discard() }
                transactions.popRolledBack(in: self)
                throw error
            }
        }
        for write in committed { write.runHook() }
        return result
    }

    /// Runs `body` in a savepoint of `parent`'s transaction.
    func runSavepoint<T>(inside parent: WriteTransaction, _ body: (WriteTransaction) throws -> T) throws -> T {
        let savepoint = WriteTransaction(store: self, isSavepoint: true)
        let writer = driver.writer
        let name = transactions.push(recordingChanges: recordsChanges).savepoint!
        do {
            try writer.createSavepoint(name)
        } catch {
            savepoint.confinement.end()
            transactions.popRolledBack(in: self)
            throw error
        }
        do {
            let result = try TransactionScope.with(savepoint) { try body(savepoint) }
            try writer.releaseSavepoint(name)
            savepoint.confinement.end()
            _ = transactions.popCommitted()
            return result
        } catch {
            savepoint.confinement.end()
            try? writer.rollbackToSavepoint(name)
            try? writer.releaseSavepoint(name)
            transactions.popRolledBack(in: self)
            throw error
        }
    }

    /// What the outermost transaction changed, netted out row by row; empty when it recorded
    /// nothing. The write stage left out what nobody is to hear of (bookkeeping, observers'
    /// writes to the entities they protect).
    private func netChanges() -> [String: EntityChanges] {
        guard transactions.recordsChanges else { return [:] }
        var builder = CommitEventBuilder()
        for change in transactions.outermostChanges { builder.add(change) }
        return builder.changes()
    }

    /// Stage 5, first half: counts the commit and hands its event to the listeners, inside
    /// the writer's lock (and the shared change log's, if any) so that events keep commit
    /// order. `changes` are the net changes when already built.
    private func publishCommitEvent(_ built: [String: EntityChanges]?) {
        let origin = writeStage.origin
        eventHub.committed(recorded: transactions.recordsChanges) { sequence in
            let changes = built ?? netChanges()
            return changes.isEmpty ? nil : CommitEvent(sequence: sequence, origin: origin, entities: changes)
        }
    }

    /// Stage 3: shows the transaction's changes to every observer, until their own writes
    /// settle. Each observer sees each change once; what observers write is recorded (for
    /// events) but not shown to observers.
    private func notifyObservers(in transaction: WriteTransaction) throws {
        let observers = self.observers.withLock { $0 }
        guard !observers.isEmpty else { return }
        let changes = transactions.changesForObservers()
        guard !changes.isEmpty else { return }
        try writeStage.writing(as: .observer(protecting: protectedEntities)) {
            for observer in observers { try observer.transactionWillCommit(changes, in: transaction) }
        }
    }
}

// The checks of the suite, one per line, in the order of their files. Each runs a function of
// its suite type (Checks/) on the driver under test.
extension ConformanceSuite {
    /// Every check, whatever the driver can do (``cases(for:)`` picks those a driver takes).
    public static let checks: [ConformanceCheck] = [
        ConformanceCheck(suite: "Aggregates", name: "an empty set aggregates to nil", requires: .any) {
            try AggregateTests().empty(driver: $0)
        },
        ConformanceCheck(
            suite: "Aggregates", name: "integers: sum, average, min, max, with predicates and windows", requires: .any
        ) { try AggregateTests().integers(driver: $0) },
        ConformanceCheck(suite: "Aggregates", name: "reals, optionals and expressions", requires: .any) {
            try AggregateTests().realsAndExpressions(driver: $0)
        },
        ConformanceCheck(
            suite: "Aggregates", name: "an integer sum that overflows is an error, not a wrong number", requires: .any
        ) { try AggregateTests().overflow(driver: $0) },
        ConformanceCheck(
            suite: "Aggregates", name: "bad input: a transient property, an expression nested too deep", requires: .any
        ) { try AggregateTests().badInput(driver: $0) },
        ConformanceCheck(suite: "Aggregates", name: "async aggregates", requires: .any) {
            try await AggregateTests().asyncAggregates(driver: $0)
        },
        ConformanceCheck(
            suite: "Async API and transactions as values",
            name: "64+ concurrent writes, reads, fetches and transactions from the main actor all complete",
            requires: .any
        ) { try await AsyncTests().manyConcurrentOperations(driver: $0) },
        ConformanceCheck(
            suite: "Async API and transactions as values",
            name: "Shark-style nested calls find their transaction without thread identity", requires: .any
        ) { try await AsyncTests().sharkStyleNesting(driver: $0) },
        ConformanceCheck(
            suite: "Async API and transactions as values",
            name: "a transaction used from another thread, a child task, or after its body throws the typed error",
            requires: .any
        ) { try await AsyncTests().misuse(driver: $0) },
        ConformanceCheck(
            suite: "Async API and transactions as values",
            name: "a read transaction sees one state however long it runs", requires: .any
        ) { try AsyncTests().readTransactions(driver: $0) },
        ConformanceCheck(
            suite: "Batches", name: "an unordered query: windows in key order, each match once", requires: .any
        ) { try BatchTests().byKey(driver: $0) },
        ConformanceCheck(
            suite: "Batches", name: "an ordered or windowed query keeps its order and its window", requires: .any
        ) { try BatchTests().byOffset(driver: $0) },
        ConformanceCheck(
            suite: "Batches",
            name: "ordered windows continue after the last row: ties, NULLs, descending terms, expressions",
            requires: .any
        ) { try BatchTests().inOrder(driver: $0) },
        ConformanceCheck(
            suite: "Batches", name: "rows by name in windows: the rows fetchRows returns, in order, each once",
            requires: .any
        ) { try BatchTests().rows(driver: $0) },
        ConformanceCheck(suite: "Batches", name: "no matches, a bad size, and a body that throws", requires: .any) {
            try BatchTests().edges(driver: $0)
        },
        ConformanceCheck(suite: "Bulk commits", name: "an object listed twice is written once", requires: .any) {
            try BulkCommitTests().duplicates(driver: $0)
        },
        ConformanceCheck(
            suite: "Bulk commits", name: "300 objects in one call keep every value to the bit, awkward text included",
            requires: .any
        ) { try BulkCommitTests().manyValuesExactly(driver: $0) },
        ConformanceCheck(
            suite: "Bulk commits", name: "a unique clash late in a batch of 200 leaves nothing written", requires: .any
        ) { try BulkCommitTests().clashInALargeBatch(driver: $0) },
        ConformanceCheck(
            suite: "Bulk commits", name: "keys the app gives in a batch of 100 are never handed out again",
            requires: .any
        ) { try BulkCommitTests().givenKeysInALargeBatch(driver: $0) },
        ConformanceCheck(
            suite: "Bulk commits", name: "new and stored objects with different changes, in one list", requires: .any
        ) { try BulkCommitTests().mixed(driver: $0) },
        ConformanceCheck(
            suite: "Bulk commits", name: "a unique violation in the middle writes nothing and restores every object",
            requires: .any
        ) { try BulkCommitTests().failureInTheMiddle(driver: $0) },
        ConformanceCheck(suite: "Bulk commits", name: "a veto anywhere in the list writes nothing", requires: .any) {
            try BulkCommitTests().vetoInTheMiddle(driver: $0)
        },
        ConformanceCheck(
            suite: "Bulk commits",
            name: "a bulk update of a row removed behind the store's back fails and changes nothing", requires: .any
        ) { try BulkCommitTests().missingRow(driver: $0) },
        ConformanceCheck(
            suite: "Bulk commits", name: "inside a transaction, objects written before join the batch correctly",
            requires: .any
        ) { try BulkCommitTests().insideATransaction(driver: $0) },
        ConformanceCheck(
            suite: "Bulk commits", name: "a rollback after bulk commits restores every object, and runs no did hooks",
            requires: .any
        ) { try BulkCommitTests().rollbackAfterBatches(driver: $0) },
        ConformanceCheck(
            suite: "Create, read, update, delete", name: "insert assigns Int64 keys; find and refresh read them back",
            requires: .any
        ) { try CRUDTests().insertAndFind(driver: $0) },
        ConformanceCheck(
            suite: "Create, read, update, delete",
            name: "a lookup by key outside a transaction sees each commit, no removed row, and a closed store throws",
            requires: .any
        ) { try CRUDTests().lookupByKeyOutsideTransactions(driver: $0) },
        ConformanceCheck(
            suite: "Create, read, update, delete", name: "update writes the changes; remove deletes", requires: .any
        ) { try CRUDTests().updateAndRemove(driver: $0) },
        ConformanceCheck(
            suite: "Create, read, update, delete",
            name: "UUID and String keys are the app's; entity names can be overridden", requires: .any
        ) { try CRUDTests().appAssignedKeys(driver: $0) },
        ConformanceCheck(
            suite: "Create, read, update, delete", name: "queries: where, orderBy, limit, offset, first, count",
            requires: .any
        ) { try CRUDTests().queries(driver: $0) },
        ConformanceCheck(suite: "Create, read, update, delete", name: "NULL comparisons follow SQL", requires: .any) {
            try CRUDTests().nullComparisons(driver: $0)
        },
        ConformanceCheck(
            suite: "Create, read, update, delete", name: "enum and Codable properties in predicates", requires: .any
        ) { try CRUDTests().typedValuesInPredicates(driver: $0) },
        ConformanceCheck(
            suite: "Create, read, update, delete",
            name: "Shark-style conveniences use the object's store or the default store", requires: .any
        ) { try CRUDTests().defaultStore(driver: $0) },
        ConformanceCheck(
            suite: "Create, read, update, delete",
            name: "a UUID key without an initial value gets a new time-ordered one", requires: .any
        ) { try CRUDTests().defaultUUIDKeys(driver: $0) },
        ConformanceCheck(suite: "Change tracking", name: "an update writes only the changed columns", requires: .any) {
            try ChangeTrackingTests().onlyChangedColumns(driver: $0)
        },
        ConformanceCheck(suite: "Change tracking", name: "no statement at all when nothing changed", requires: .any) {
            try ChangeTrackingTests().noChangeNoStatement(driver: $0)
        },
        ConformanceCheck(suite: "Change tracking", name: "transient properties are not stored", requires: .any) {
            try ChangeTrackingTests().transientNotStored(driver: $0)
        },
        ConformanceCheck(suite: "Change tracking", name: "change tracking past 64 columns", requires: .any) {
            try ChangeTrackingTests().manyColumns(driver: $0)
        },
        ConformanceCheck(
            suite: "Commit events", name: "one event per committed transaction, with net changes per key",
            requires: .any
        ) { try await CommitEventTests().afterCommitOnly(driver: $0) },
        ConformanceCheck(
            suite: "Commit events", name: "typed changes for one model; other models' commits skipped", requires: .any
        ) { try await CommitEventTests().typedChanges(driver: $0) },
        ConformanceCheck(suite: "Commit events", name: "query-wide writes report the keys they matched", requires: .any)
        { try await CommitEventTests().queryWrites(driver: $0) },
        ConformanceCheck(
            suite: "Commit events", name: "raw SQL is reported as an entity changed, rows unknown", requires: .rawSQL
        ) { try await CommitEventTests().rawSQL(driver: $0) },
        ConformanceCheck(
            suite: "Commit events", name: "an observer's bookkeeping raises no event; its writes to app entities do",
            requires: .any
        ) { try await CommitEventTests().observerBookkeeping(driver: $0) },
        ConformanceCheck(
            suite: "Commit events",
            name:
                "the write stage records by role: bookkeeping reaches no observer or event; an import names its source",
            requires: .any
        ) { try await CommitEventTests().writeRoles(driver: $0) },
        ConformanceCheck(
            suite: "Commit events",
            name: "an observer's consequences reach events with the transaction's origin, and no observer",
            requires: .any
        ) { try await CommitEventTests().observerConsequences(driver: $0) },
        ConformanceCheck(
            suite: "Commit events", name: "callbacks on a queue and on an actor, in commit order, until cancelled",
            requires: .any
        ) { try await CommitEventTests().callbacks(driver: $0) },
        ConformanceCheck(suite: "Commit events", name: "closing the store ends the event sequences", requires: .any) {
            try await CommitEventTests().closeEnds(driver: $0)
        },
        ConformanceCheck(
            suite: "Commit events", name: "a store released without close still ends its event sequences",
            requires: .any
        ) { try await CommitEventTests().releaseEnds(driver: $0) },
        ConformanceCheck(suite: "Computed operands", name: "arithmetic on columns and constants", requires: .any) {
            try ComputedPredicateTests().arithmetic(driver: $0)
        },
        ConformanceCheck(suite: "Computed operands", name: "comparisons between two columns", requires: .any) {
            try ComputedPredicateTests().columnAgainstColumn(driver: $0)
        },
        ConformanceCheck(
            suite: "Computed operands", name: "lower, upper, length, abs and coalesce follow SQLite", requires: .any
        ) { try ComputedPredicateTests().functions(driver: $0) },
        ConformanceCheck(
            suite: "Computed operands", name: "the magnitude of the smallest integer is a typed error", requires: .any
        ) { try ComputedPredicateTests().absOverflow(driver: $0) },
        ConformanceCheck(
            suite: "Computed operands", name: "case-insensitive equality folds ASCII letters only", requires: .any
        ) { try ComputedPredicateTests().caseInsensitive(driver: $0) },
        ConformanceCheck(suite: "Computed operands", name: "aggregates of computed values", requires: .any) {
            try ComputedPredicateTests().aggregates(driver: $0)
        },
        ConformanceCheck(suite: "Computed operands", name: "async aggregates of computed values", requires: .any) {
            try await ComputedPredicateTests().asyncAggregates(driver: $0)
        },
        ConformanceCheck(
            suite: "Computed operands", name: "malformed computed operands are typed errors", requires: .any
        ) { try ComputedPredicateTests().malformed(driver: $0) },
        ConformanceCheck(suite: "Decimal as numbers", name: "ordering and comparisons are numeric", requires: .any) {
            try DecimalTests().ordering(driver: $0)
        },
        ConformanceCheck(
            suite: "Decimal as numbers", name: "sum and average are exact; min and max numeric", requires: .any
        ) { try DecimalTests().aggregates(driver: $0) },
        ConformanceCheck(
            suite: "Delete rules and to-many relationships",
            name: "nullify, the default for optionals, clears the referring column", requires: .any
        ) { try DeleteRuleTests().nullify(driver: $0) },
        ConformanceCheck(
            suite: "Delete rules and to-many relationships",
            name: "cascade removes the referring objects, and theirs in turn", requires: .any
        ) { try DeleteRuleTests().cascade(driver: $0) },
        ConformanceCheck(
            suite: "Delete rules and to-many relationships",
            name: "a rule another store on the same file added since is applied: the schema catalog reloads",
            requires: .persistent
        ) { try DeleteRuleTests().ruleAddedByAnotherStore(driver: $0) },
        ConformanceCheck(
            suite: "Delete rules and to-many relationships",
            name: "deny refuses the removal while anything refers, and nothing changes", requires: .any
        ) { try DeleteRuleTests().deny(driver: $0) },
        ConformanceCheck(
            suite: "Delete rules and to-many relationships",
            name: "cascaded objects run their willDelete hook, which may veto", requires: .any
        ) { try DeleteRuleTests().cascadeHooks(driver: $0) },
        ConformanceCheck(
            suite: "Delete rules and to-many relationships", name: "a long chain of cascades and self-references",
            requires: .any
        ) { try DeleteRuleTests().longChains(driver: $0) },
        ConformanceCheck(
            suite: "Delete rules and to-many relationships",
            name: "removeAll applies the rules to every object it removes", requires: .any
        ) { try DeleteRuleTests().removeAll(driver: $0) },
        ConformanceCheck(
            suite: "Delete rules and to-many relationships",
            name: "a to-many inverse is a query: filtered, counted, summed", requires: .any
        ) { try DeleteRuleTests().inverses(driver: $0) },
        ConformanceCheck(
            suite: "Delete rules and to-many relationships", name: "many-to-many reads through the join model",
            requires: .any
        ) { try DeleteRuleTests().manyToMany(driver: $0) },
        ConformanceCheck(
            suite: "Delete rules and to-many relationships",
            name: "subqueries: a relationship or a property in another query's results", requires: .any
        ) { try DeleteRuleTests().subqueries(driver: $0) },
        ConformanceCheck(
            suite: "Typed error reasons",
            name: "queries, values, drivers and transactions throw their reasons, the same on every driver",
            requires: .any
        ) { try ErrorReasonTests().coreReasons(driver: $0) },
        ConformanceCheck(
            suite: "Typed error reasons", name: "a stored value read as another type names its reason", requires: .any
        ) { try ErrorReasonTests().decodingReason(driver: $0) },
        ConformanceCheck(
            suite: "Errors are typed and leave nothing half-written", name: "a directory", requires: .persistent
        ) { try ErrorTests().directory(driver: $0) },
        ConformanceCheck(
            suite: "Errors are typed and leave nothing half-written", name: "a location that does not exist",
            requires: .persistent
        ) { try ErrorTests().missingFolder(driver: $0) },
        ConformanceCheck(
            suite: "Errors are typed and leave nothing half-written", name: "an unwritable location",
            requires: .persistent
        ) { try ErrorTests().unwritable(driver: $0) },
        ConformanceCheck(
            suite: "Errors are typed and leave nothing half-written",
            name: "a unique violation names the entity and columns, and writes nothing", requires: .any
        ) { try ErrorTests().uniqueViolation(driver: $0) },
        ConformanceCheck(
            suite: "Errors are typed and leave nothing half-written", name: "a closed store says so", requires: .any
        ) { try ErrorTests().closedStore(driver: $0) },
        ConformanceCheck(
            suite: "Errors are typed and leave nothing half-written", name: "no store at all", requires: .any
        ) { try ErrorTests().noStore(driver: $0) },
        ConformanceCheck(
            suite: "Errors are typed and leave nothing half-written",
            name: "queries and indexes on properties that are not stored fail with typed errors", requires: .any
        ) { try ErrorTests().notPersistedProperties(driver: $0) },
        ConformanceCheck(
            suite: "Distinct values and groups", name: "distinct values come sorted, NULL first, once each",
            requires: .any
        ) { try GroupingTests().distinct(driver: $0) },
        ConformanceCheck(
            suite: "Distinct values and groups", name: "objects grouped by a property keep the query's order",
            requires: .any
        ) { try GroupingTests().grouped(driver: $0) },
        ConformanceCheck(suite: "Distinct values and groups", name: "async distinct", requires: .any) {
            try await GroupingTests().asyncDistinct(driver: $0)
        },
        ConformanceCheck(
            suite: "Distinct values and groups", name: "async grouping, by a property and by a relationship",
            requires: .any
        ) { try await GroupingTests().asyncGrouping(driver: $0) },
        ConformanceCheck(suite: "Hooks and vetoes", name: "a veto fails the commit and writes nothing", requires: .any)
        { try HookTests().vetoes(driver: $0) },
        ConformanceCheck(
            suite: "Hooks and vetoes", name: "a veto inside a transaction rolls back the whole transaction",
            requires: .any
        ) { try HookTests().vetoInTransaction(driver: $0) },
        ConformanceCheck(
            suite: "Hooks and vetoes", name: "did hooks run after the transaction commits, never after a rollback",
            requires: .any
        ) { try HookTests().didHooksAfterCommit(driver: $0) },
        ConformanceCheck(
            suite: "Hostile queries get answers or typed errors, the same on every driver",
            name: "huge limits and offsets answer instead of overflowing", requires: .any
        ) { try HostileQueryTests().hugeLimitsAndOffsets(driver: $0) },
        ConformanceCheck(
            suite: "Hostile queries get answers or typed errors, the same on every driver",
            name: "first() honours limit(0), as fetch() and count() do", requires: .any
        ) { try HostileQueryTests().firstHonoursLimitZero(driver: $0) },
        ConformanceCheck(
            suite: "Hostile queries get answers or typed errors, the same on every driver",
            name: "a condition built in a loop of 10,000 && terms works", requires: .any
        ) { try HostileQueryTests().longConjunction(driver: $0) },
        ConformanceCheck(
            suite: "Hostile queries get answers or typed errors, the same on every driver",
            name: "a condition built in a loop of 10,000 || terms works", requires: .any
        ) { try HostileQueryTests().longDisjunction(driver: $0) },
        ConformanceCheck(
            suite: "Hostile queries get answers or typed errors, the same on every driver",
            name: "isIn with more values than any parameter limit", requires: .any
        ) { try HostileQueryTests().longInList(driver: $0) },
        ConformanceCheck(
            suite: "Hostile queries get answers or typed errors, the same on every driver",
            name: "nesting deeper than the limit is refused when built, on every driver", requires: .any
        ) { try HostileQueryTests().deepNesting(driver: $0) },
        ConformanceCheck(
            suite: "Hostile queries get answers or typed errors, the same on every driver",
            name: "every construct nested to the limit runs in every kind of statement", requires: .any
        ) { try NestingLimitTests().everyConstructAtTheLimit(driver: $0) },
        ConformanceCheck(
            suite: "Hostile queries get answers or typed errors, the same on every driver",
            name: "many where() calls stay flat", requires: .any
        ) { try HostileQueryTests().manyWhereCalls(driver: $0) },
        ConformanceCheck(
            suite: "Index ranges", name: "ranges on an indexed optional column match the predicate exactly",
            requires: .any
        ) { try IndexedRangeTests().rangesWithNulls(driver: $0) },
        ConformanceCheck(
            suite: "Lightweight fetch", name: "left-out properties load on first access, in one read per object",
            requires: .any
        ) { try LightweightFetchTests().loadsOnAccess(driver: $0) },
        ConformanceCheck(
            suite: "Lightweight fetch", name: "changes made before the load win, and commits write only them",
            requires: .any
        ) { try LightweightFetchTests().changesWin(driver: $0) },
        ConformanceCheck(
            suite: "Lightweight fetch", name: "load() says why a load fails; async load reads off the caller's thread",
            requires: .any
        ) { try await LightweightFetchTests().explicitLoad(driver: $0) },
        ConformanceCheck(
            suite: "Live queries", name: "the first result at once, then one per commit that changed it", requires: .any
        ) { try await LiveQueryTests().deliversChanges(driver: $0) },
        ConformanceCheck(
            suite: "Live queries", name: "re-runs only for commits touching what it read, once per burst",
            requires: .any
        ) { try await LiveQueryTests().regionAndCoalescing(driver: $0) },
        ConformanceCheck(
            suite: "Live queries", name: "paths, aggregates and lazily loaded relationships are watched too",
            requires: .any
        ) { try await LiveQueryTests().relationships(driver: $0) },
        ConformanceCheck(
            suite: "Live queries", name: "an observer iterating elsewhere can be awaited until it has caught up",
            requires: .any
        ) { try await LiveQueryTests().caughtUp(driver: $0) },
        ConformanceCheck(suite: "Live queries", name: "closing the store ends the observation", requires: .any) {
            try await LiveQueryTests().closeEnds(driver: $0)
        },
        ConformanceCheck(
            suite: "Live queries", name: "an @Observable holder keeps the latest results and tells observers",
            requires: .any
        ) { try await LiveQueryTests().observableHolder(driver: $0) },
        ConformanceCheck(
            suite: "Live queries", name: "a callback on the caller's actor, until cancelled", requires: .any
        ) { try await LiveQueryTests().callback(driver: $0) },
        ConformanceCheck(
            suite: "Live queries",
            name: "a computation that throws ends the iteration with its error, and releases who waits", requires: .any
        ) { try await LiveQueryTests().failure(driver: $0) },
        ConformanceCheck(
            suite: "Live queries", name: "live queries read on threads of lower priority than the app's own reads",
            requires: .any
        ) { try await LiveQueryTests().backgroundReads(driver: $0) },
        ConformanceCheck(
            suite: "Automatic schema migration across re-opens",
            name: "added, removed and re-indexed columns keep the data", requires: .any
        ) { try MigrationTests().addAndRemoveColumns(driver: $0) },
        ConformanceCheck(
            suite: "Automatic schema migration across re-opens", name: "a renamed property keeps its values",
            requires: .any
        ) { try MigrationTests().renamedColumns(driver: $0) },
        ConformanceCheck(
            suite: "Automatic schema migration across re-opens", name: "lossless retyping converts the stored values",
            requires: .any
        ) { try MigrationTests().losslessRetype(driver: $0) },
        ConformanceCheck(
            suite: "Automatic schema migration across re-opens", name: "lossy retyping is refused and changes nothing",
            requires: .any
        ) { try MigrationTests().lossyRetypeRefused(driver: $0) },
        ConformanceCheck(
            suite: "Automatic schema migration across re-opens",
            name: "narrowing an integer property is refused while a stored value is outside its range", requires: .any
        ) { try MigrationTests().narrowedIntegers(driver: $0) },
        ConformanceCheck(
            suite: "Automatic schema migration across re-opens",
            name: "an optional column made non-optional back-fills its NULLs", requires: .any
        ) { try MigrationTests().nullsBackfilled(driver: $0) },
        ConformanceCheck(
            suite: "Automatic schema migration across re-opens",
            name: "reopening with the same model changes no schema", requires: .any
        ) { try MigrationTests().sameSchemaIsANoOp(driver: $0) },
        ConformanceCheck(
            suite: "Automatic schema migration across re-opens",
            name: "two model versions used in turn on one open store migrate each time", requires: .any
        ) { try MigrationTests().alternatingVersions(driver: $0) },
        ConformanceCheck(
            suite: "Automatic schema migration across re-opens",
            name: "a model the database was migrated away from is refused, unless accepted on purpose",
            requires: .persistent
        ) { try MigrationTests().olderModelRefused(driver: $0) },
        ConformanceCheck(
            suite: "Versioned migrations", name: "each migration runs once, in order; later ones run when added",
            requires: .any
        ) { try MigratorTests().runsOnce(driver: $0) },
        ConformanceCheck(
            suite: "Versioned migrations", name: "a failing migration leaves nothing behind; the ones before it stay",
            requires: .any
        ) { try MigratorTests().failure(driver: $0) },
        ConformanceCheck(
            suite: "Versioned migrations", name: "identifiers registered twice are refused before anything runs",
            requires: .any
        ) { try MigratorTests().duplicates(driver: $0) },
        ConformanceCheck(
            suite: "Names: keywords as properties, reserved and clashing names, the same on every driver",
            name: "keyword and raw-identifier properties round-trip, in queries and indexes", requires: .any
        ) { try NamingTests().keywordProperties(driver: $0) },
        ConformanceCheck(
            suite: "Names: keywords as properties, reserved and clashing names, the same on every driver",
            name: "entity names reserved by the engines are refused alike", requires: .any
        ) { try NamingTests().reservedEntityNames(driver: $0) },
        ConformanceCheck(
            suite: "Names: keywords as properties, reserved and clashing names, the same on every driver",
            name: "entity names that differ only in case are one table to SQLite: refused alike", requires: .any
        ) { try NamingTests().caseClashingEntities(driver: $0) },
        ConformanceCheck(
            suite: "Names: keywords as properties, reserved and clashing names, the same on every driver",
            name: "columns that differ only in case are refused alike", requires: .any
        ) { try NamingTests().caseClashingColumns(driver: $0) },
        ConformanceCheck(
            suite: "Names: keywords as properties, reserved and clashing names, the same on every driver",
            name: "index names never collide across entities", requires: .any
        ) { try NamingTests().indexNames(driver: $0) },
        ConformanceCheck(
            suite: "Keys declared through typealiases", name: "a typealiased String key works on every driver",
            requires: .any
        ) { try TypealiasKeyTests().typealiasedKey(driver: $0) },
        ConformanceCheck(
            suite: "Key allocators",
            name: "a key allocator numbers new Int64 keys on every insert path; given keys, refusals and rollbacks",
            requires: .any
        ) { try KeyAllocatorTests().allocatorAssignsKeys(driver: $0) },
        ConformanceCheck(
            suite: "Object events and live objects",
            name: "an observed object is refreshed by commits elsewhere, keeping its unsaved changes", requires: .any
        ) { try await ObjectEventTests().liveObject(driver: $0) },
        ConformanceCheck(
            suite: "Object events and live objects", name: "raw SQL writes are read back and compared",
            requires: .rawSQL
        ) { try await ObjectEventTests().rawSQL(driver: $0) },
        ConformanceCheck(
            suite: "Object events and live objects",
            name: "cancelled or released, the subscription stops; unsaved objects are refused", requires: .any
        ) { try await ObjectEventTests().stops(driver: $0) },
        ConformanceCheck(
            suite: "The write pipeline: observers inside the transaction",
            name: "an observer sees exactly the committed changes, and its writes commit with them", requires: .any
        ) { try ObserverTests().seesCommittedChanges(driver: $0) },
        ConformanceCheck(
            suite: "The write pipeline: observers inside the transaction",
            name: "a failing observer rolls the whole transaction back, its own writes included", requires: .any
        ) { try ObserverTests().failingObserver(driver: $0) },
        ConformanceCheck(
            suite: "Result order", name: "an unordered query returns every match, in some order", requires: .any
        ) { try OrderingTests().unorderedIsAMultiset(driver: $0) },
        ConformanceCheck(
            suite: "Result order", name: "a window of an unordered query is taken in key order", requires: .any
        ) { try OrderingTests().windowsFollowTheKey(driver: $0) },
        ConformanceCheck(suite: "Result order", name: "an ordering breaks its ties by key", requires: .any) {
            try OrderingTests().tiesBreakByKey(driver: $0)
        },
        ConformanceCheck(
            suite: "Result order",
            name:
                "descending orders on an index or the key: every window a slice of the whole, ties by key, NULLs last",
            requires: .any
        ) { try OrderingTests().descendingWindows(driver: $0) },
        ConformanceCheck(
            suite: "Predicates", name: "notLike and notIn never match NULL, but NOT IN () matches everything",
            requires: .any
        ) { try PredicateTests().negations(driver: $0) },
        ConformanceCheck(suite: "Predicates", name: "generic code can filter and order by \\M.id", requires: .any) {
            try PredicateTests().genericKey(driver: $0)
        },
        ConformanceCheck(
            suite: "Query plans reused across values",
            name: "every kind of predicate, run with one set of values then another", requires: .any
        ) { try QueryPlanTests().sameShapeOtherValues(driver: $0) },
        ConformanceCheck(
            suite: "Query plans reused across values",
            name: "a condition the key or an index answers alone keeps the condition's value rules",
            requires: .any
        ) { try QueryPlanTests().conditionsAKeyOrIndexAnswers(driver: $0) },
        ConformanceCheck(
            suite: "Query plans reused across values",
            name: "a count agrees with a fetch for every condition the key or an index answers, under windows",
            requires: .any
        ) { try QueryPlanTests().countsAgreeWithFetches(driver: $0) },
        ConformanceCheck(
            suite: "Query plans reused across values",
            name: "UUID keys and relationships to them: by key, range, index and order, in byte order",
            requires: .any
        ) { try QueryPlanTests().blobKeysAndIndexes(driver: $0) },
        ConformanceCheck(
            suite: "Query plans reused across values",
            name: "string predicates, paths and subqueries keep their values apart", requires: .any
        ) { try QueryPlanTests().pathsAndSubqueries(driver: $0) },
        ConformanceCheck(
            suite: "Query plans reused across values",
            name: "the SQL drivers run the same text for the same shape, with the new values", requires: .rawSQL
        ) { try QueryPlanTests().sameTextNewArguments(driver: $0) },
        ConformanceCheck(
            suite: "Query plans reused across values",
            name: "a schema change after a query was planned leaves the next run correct", requires: .any
        ) { try QueryPlanTests().schemaChange(driver: $0) },
        ConformanceCheck(suite: "Query results", name: "exists honours the predicate and the window", requires: .any) {
            try QueryResultsTests().exists(driver: $0)
        },
        ConformanceCheck(suite: "Query results", name: "ids come in the query's order, without objects", requires: .any)
        { try QueryResultsTests().ids(driver: $0) },
        ConformanceCheck(
            suite: "Query results", name: "removeAll removes what matches through the hooks, and reports how many",
            requires: .any
        ) { try QueryResultsTests().removeAll(driver: $0) },
        ConformanceCheck(
            suite: "Query results", name: "a veto from any willDelete removes nothing, and did hooks follow the commit",
            requires: .any
        ) { try QueryResultsTests().removeAllVetoed(driver: $0) },
        ConformanceCheck(
            suite: "Query results", name: "inside a transaction that rolls back, removeAll removes nothing",
            requires: .any
        ) { try QueryResultsTests().removeAllRolledBack(driver: $0) },
        ConformanceCheck(suite: "Query results", name: "async exists, ids and removeAll", requires: .any) {
            try await QueryResultsTests().asyncResults(driver: $0)
        },
        ConformanceCheck(
            suite: "Raw SQL", name: "SQL drivers run raw SQL with bound arguments; the memory driver refuses it",
            requires: .any
        ) { try RawSQLTests().rawSQL(driver: $0) },
        ConformanceCheck(
            suite: "Raw SQL", name: "a failed update undoes what a trigger wrote, even for a trigger added later",
            requires: .rawSQL
        ) { try RawSQLTests().failedUpdateUndoesTriggerWrites(driver: $0) },
        ConformanceCheck(
            suite: "Raw SQL",
            name: "a raw read outside a transaction refuses a statement that may write, and reads pragmas",
            requires: .rawSQL
        ) { try RawSQLTests().rawReadsOnlyRead(driver: $0) },
        ConformanceCheck(
            suite: "Read-only stores", name: "a file recorded before integer widths were reads through today's models",
            requires: .persistent
        ) { try ReadOnlyStoreTests().recordedBeforeWidths(driver: $0) },
        ConformanceCheck(
            suite: "Read-only stores", name: "reads models and rows; refuses writes; leaves the file byte for byte",
            requires: .persistent
        ) { try ReadOnlyStoreTests().readsAndRefuses(driver: $0) },
        ConformanceCheck(
            suite: "Read-only stores", name: "a missing file is an error, never created", requires: .persistent
        ) { try ReadOnlyStoreTests().missingFile(driver: $0) },
        ConformanceCheck(
            suite: "Read-only stores", name: "a live writer's committed data is read through its log",
            requires: .persistent
        ) { try ReadOnlyStoreTests().besideAWriter(driver: $0) },
        ConformanceCheck(
            suite: "To-one relationships",
            name: "committing an object commits the new objects it refers to, in one transaction", requires: .any
        ) { try RelationshipTests().commitsRelatedObjects(driver: $0) },
        ConformanceCheck(
            suite: "To-one relationships", name: "related objects are faults until first accessed, then cached",
            requires: .any
        ) { try RelationshipTests().lazyLoading(driver: $0) },
        ConformanceCheck(
            suite: "To-one relationships",
            name: "including loads the relationships of a whole result in one more SELECT", requires: .any
        ) { try await RelationshipTests().including(driver: $0) },
        ConformanceCheck(
            suite: "To-one relationships",
            name: "a missing related row is asked for once, until the store commits again", requires: .any
        ) { try RelationshipTests().missingRowsAreRemembered(driver: $0) },
        ConformanceCheck(
            suite: "To-one relationships", name: "queries compare relationships with objects and nil", requires: .any
        ) { try RelationshipTests().predicates(driver: $0) },
        ConformanceCheck(
            suite: "To-one relationships", name: "dotted paths through relationships filter and order like a LEFT JOIN",
            requires: .any
        ) { try RelationshipTests().dottedPaths(driver: $0) },
        ConformanceCheck(
            suite: "To-one relationships",
            name: "explicit joins pair each result with its joined objects, LEFT JOIN style", requires: .any
        ) { try RelationshipTests().joins(driver: $0) },
        ConformanceCheck(
            suite: "To-one relationships", name: "a cycle of new objects is committed whole, keys and all",
            requires: .any
        ) { try RelationshipTests().cycles(driver: $0) },
        ConformanceCheck(
            suite: "To-one relationships",
            name: "a key whose object is not there reads as nil, keeps its key, and load says why", requires: .any
        ) { try RelationshipTests().danglingKeys(driver: $0) },
        ConformanceCheck(
            suite: "To-one relationships", name: "a load after the store closed fails with a typed error, never a trap",
            requires: .any
        ) { try RelationshipTests().closedStore(driver: $0) },
        ConformanceCheck(
            suite: "To-one relationships", name: "async load reads off the caller's thread and fills the fault",
            requires: .any
        ) { try await RelationshipTests().asyncLoad(driver: $0) },
        ConformanceCheck(
            suite: "To-one relationships",
            name: "non-optional relationships: committed, loaded, and a placeholder when missing", requires: .any
        ) { try RelationshipTests().nonOptional(driver: $0) },
        ConformanceCheck(
            suite: "To-one relationships",
            name: "refresh and rollback keep the related objects the row still refers to", requires: .any
        ) { try RelationshipTests().restoreKeepsObjects(driver: $0) },
        ConformanceCheck(
            suite: "Results controller", name: "positions inserted, removed, moved and updated; sections by a property",
            requires: .any
        ) { try await ResultsControllerTests().positions(driver: $0) },
        ConformanceCheck(
            suite: "Results controller", name: "random commits: every observer ends equal to a fresh fetch",
            requires: .any
        ) { try await ResultsControllerTests().randomized(driver: $0) },
        ConformanceCheck(suite: "Round trip of every supported type", name: "defaults", requires: .any) {
            try RoundTripTests().defaults(driver: $0)
        },
        ConformanceCheck(suite: "Round trip of every supported type", name: "integer extremes", requires: .any) {
            try RoundTripTests().integerExtremes(driver: $0)
        },
        ConformanceCheck(
            suite: "Round trip of every supported type",
            name: "UInt64 and UInt above Int64.max are refused, and nothing is written", requires: .any
        ) { try RoundTripTests().unsignedAboveInt64(driver: $0) },
        ConformanceCheck(suite: "Round trip of every supported type", name: "NaN", requires: .any) {
            try RoundTripTests().notANumber(driver: $0)
        },
        ConformanceCheck(
            suite: "Round trip of every supported type", name: "dates with sub-millisecond precision", requires: .any
        ) { try RoundTripTests().dates(driver: $0) },
        ConformanceCheck(
            suite: "Round trip of every supported type", name: "UUID, URL, Decimal, enums and Codable values",
            requires: .any
        ) { try RoundTripTests().foundationValues(driver: $0) },
        ConformanceCheck(suite: "Round trip of every supported type", name: "optionals: nil and values", requires: .any)
        { try RoundTripTests().optionals(driver: $0) },
        ConformanceCheck(
            suite: "Round trip of every supported type", name: "properties without type annotations", requires: .any
        ) { try RoundTripTests().inferredTypes(driver: $0) },
        ConformanceCheck(suite: "Round trip of every supported type", name: "floating-point extremes", requires: .any) {
            try RoundTripTests().floatingPoint(driver: $0)
        },
        ConformanceCheck(
            suite: "Round trip of every supported type", name: "strings: empty, 1 MB, emoji, NUL inside", requires: .any
        ) { try RoundTripTests().strings(driver: $0) },
        ConformanceCheck(
            suite: "Round trip of every supported type", name: "blobs: empty, 1 MiB, every byte", requires: .any
        ) { try RoundTripTests().blobs(driver: $0) },
        ConformanceCheck(
            suite: "Rows without model types, from recorded schemas",
            name: "fetchRows lists rows in key order without an ordering, whatever the insertion order", requires: .any
        ) { try SchemaOnlyTests().keyOrder(driver: $0) },
        ConformanceCheck(
            suite: "Rows without model types, from recorded schemas",
            name: "rows are written and read from the recorded schema alone", requires: .any
        ) { try SchemaOnlyTests().rowsWithoutModels(driver: $0) },
        ConformanceCheck(
            suite: "Raw SQL through the write pipeline",
            name: "raw writes report their entities; protected entities refuse them", requires: .rawSQL
        ) { try RawSQLPipelineTests().rawWrites(driver: $0) },
        ConformanceCheck(
            suite: "Raw SQL through the write pipeline",
            name: "a value of another storage class than its column's is refused the same way on every driver",
            requires: .any
        ) { try RawSQLPipelineTests().storageClassesChecked(driver: $0) },
        ConformanceCheck(
            suite: "Raw SQL through the write pipeline",
            name: "NULL in a required column is refused by every driver, even below the row calls' checks",
            requires: .any
        ) { try RawSQLPipelineTests().requiredColumns(driver: $0) },
        ConformanceCheck(
            suite: "String predicates", name: "comparisons, placeholders and format specifiers", requires: .any
        ) { try StringPredicateTests().comparisons(driver: $0) },
        ConformanceCheck(suite: "String predicates", name: "NULL, IN, LIKE, BETWEEN and NOT follow SQL", requires: .any)
        { try StringPredicateTests().operators(driver: $0) },
        ConformanceCheck(suite: "String predicates", name: "arithmetic, functions and orderings", requires: .any) {
            try StringPredicateTests().expressions(driver: $0)
        },
        ConformanceCheck(
            suite: "String predicates", name: "hostile arguments are values: they match nothing and change nothing",
            requires: .any
        ) { try StringPredicateTests().hostileArguments(driver: $0) },
        ConformanceCheck(
            suite: "String predicates",
            name: "malformed predicates and orderings make the query throw, on every driver", requires: .any
        ) { try StringPredicateTests().malformedQueries(driver: $0) },
        ConformanceCheck(
            suite: "Text arguments of string predicates", name: "each logical type reads its text form", requires: .any
        ) { try TextArgumentTests().eachType(driver: $0) },
        ConformanceCheck(
            suite: "Text arguments of string predicates",
            name: "text that is not its property's type is a malformed predicate, positioned", requires: .any
        ) { try TextArgumentTests().refused(driver: $0) },
        ConformanceCheck(
            suite: "Tracing", name: "every statement is reported with its duration and rows; arguments redacted",
            requires: .any
        ) { try TracingTests().redactedByDefault(driver: $0) },
        ConformanceCheck(suite: "Tracing", name: "a failing statement is reported with its error", requires: .any) {
            try TracingTests().failuresTraced(driver: $0)
        },
        ConformanceCheck(suite: "Tracing", name: "arguments are shown when asked for", requires: .any) {
            try TracingTests().revealed(driver: $0)
        },
        ConformanceCheck(suite: "Tracing", name: "statements reach a swift-log Logger", requires: .any) {
            try TracingTests().logger(driver: $0)
        },
        ConformanceCheck(
            suite: "Transactions", name: "a throw rolls back every write and leaves no trace", requires: .any
        ) { try TransactionTests().rollbackLeavesNoTrace(driver: $0) },
        ConformanceCheck(
            suite: "Transactions", name: "a removal rolled back restores the row and the object", requires: .any
        ) { try TransactionTests().rollbackOfRemoval(driver: $0) },
        ConformanceCheck(
            suite: "Transactions", name: "a read's snapshot starts with its first query, as SQLite's deferred reads do",
            requires: .any
        ) { try TransactionTests().deferredSnapshot(driver: $0) },
        ConformanceCheck(suite: "Transactions", name: "nested transactions are savepoints", requires: .any) {
            try TransactionTests().nestedSavepoints(driver: $0)
        },
        ConformanceCheck(suite: "Transactions", name: "an outer rollback undoes committed savepoints", requires: .any) {
            try TransactionTests().outerRollbackUndoesInner(driver: $0)
        },
        ConformanceCheck(suite: "Transactions", name: "other threads see only committed data", requires: .any) {
            try await TransactionTests().isolation(driver: $0)
        },
        ConformanceCheck(
            suite: "Transactions", name: "readers running beside a writer never see half a transaction", requires: .any
        ) { try await TransactionTests().readersSeeWholeTransactions(driver: $0) },
        ConformanceCheck(
            suite: "Transactions",
            name:
                "a reader in the middle of a long transaction (over a thousand changes, a savepoint rolled back) sees the state before it",
            requires: .any
        ) { try TransactionTests().readersDuringLongTransactions(driver: $0) },
        ConformanceCheck(suite: "Transactions", name: "concurrent writers are serialized", requires: .any) {
            try await TransactionTests().concurrentWriters(driver: $0)
        },
        ConformanceCheck(
            suite: "Transactions",
            name: "stores of one database that take turns: a write begins once the other's has ended, and sees it",
            requires: .persistent
        ) { try WriteTurnTests().writesTakeTurns(driver: $0) },
        ConformanceCheck(
            suite: "Values that could never be read back are refused at commit",
            name: "refused on insert and on update; nothing written; the store still reads", requires: .any
        ) { try UnreadableValueTests().refused(driver: $0) },
        ConformanceCheck(
            suite: "Values that could never be read back are refused at commit",
            name: "extreme but real values still read back", requires: .any
        ) { try UnreadableValueTests().extremes(driver: $0) },
        ConformanceCheck(
            suite: "Raw SQL that would silently do something else is refused",
            name: "argument counts must match the statement's parameters", requires: .rawSQL
        ) { try RawSQLMisuseTests().argumentCounts(driver: $0) },
        ConformanceCheck(
            suite: "Raw SQL that would silently do something else is refused",
            name: "text after the first statement is refused, and nothing runs", requires: .rawSQL
        ) { try RawSQLMisuseTests().multipleStatements(driver: $0) },
        ConformanceCheck(
            suite: "updateAll", name: "constants and expressions over the row before the change", requires: .any
        ) { try UpdateAllTests().values(driver: $0) },
        ConformanceCheck(
            suite: "updateAll", name: "a failure changes nothing; bad updates are typed errors", requires: .any
        ) { try UpdateAllTests().failures(driver: $0) },
        ConformanceCheck(
            suite: "updateAll", name: "observers see an update of the set columns for every matched key", requires: .any
        ) { try await UpdateAllTests().observed(driver: $0) },
        ConformanceCheck(suite: "Upsert", name: "a String key: inserted first, overwritten after", requires: .any) {
            try UpsertTests().stringKeys(driver: $0)
        },
        ConformanceCheck(suite: "Upsert", name: "a UUID key, through the hooks of what happens", requires: .any) {
            try UpsertTests().uuidKeys(driver: $0)
        },
        ConformanceCheck(suite: "Upsert", name: "a rollback gives the object back as it was, unsaved", requires: .any) {
            try UpsertTests().rollback(driver: $0)
        },
        ConformanceCheck(
            suite: "Upsert", name: "an empty String key is refused, and nothing is written", requires: .any
        ) { try UpsertTests().emptyKey(driver: $0) },
        ConformanceCheck(
            suite: "Upsert", name: "hooks: willInsert for a new row, willUpdate over a stored one", requires: .any
        ) { try UpsertTests().hooks(driver: $0) },
        ConformanceCheck(
            suite: "Upsert", name: "over a stored key, the new objects its relationships hold are committed too",
            requires: .any
        ) { try UpsertTests().graphOverStoredKey(driver: $0) },
        ConformanceCheck(
            suite: "Value rules as a property, on every driver",
            name: "random values through every operation agree with the rules", requires: .any
        ) { try await ValuePropertyTests().valuesFollowTheRules(driver: $0) },
        ConformanceCheck(
            suite: "Value rules",
            name: "a decimal literal in a string predicate is exact; too many digits is a positioned error",
            requires: .any
        ) { try ValueRulesTests().decimalLiterals(driver: $0) },
        ConformanceCheck(
            suite: "Value rules", name: "arithmetic, abs and sums over decimals compute numbers, not stored text",
            requires: .any
        ) { try ValueRulesTests().decimalArithmetic(driver: $0) },
        ConformanceCheck(
            suite: "Value rules", name: "sums and averages of decimals are exact whatever the order of the rows",
            requires: .any
        ) { try ValueRulesTests().decimalSums(driver: $0) },
        ConformanceCheck(
            suite: "Value rules", name: "integer arithmetic is exact or a typed error, never an approximate real",
            requires: .any
        ) { try ValueRulesTests().integerOverflow(driver: $0) },
        ConformanceCheck(
            suite: "Value rules",
            name: "updateAll checks each computed value against its property's type, and stores nothing else",
            requires: .any
        ) { try ValueRulesTests().computedValuesChecked(driver: $0) },
        ConformanceCheck(
            suite: "Value rules",
            name: "an optional Double or Float holding NaN is refused; a non-optional one keeps NaN", requires: .any
        ) { try ValueRulesTests().notANumber(driver: $0) },
        ConformanceCheck(
            suite: "Value rules", name: "-0.0 keeps its sign, equals 0.0, and reads as text like 0.0", requires: .any
        ) { try ValueRulesTests().negativeZero(driver: $0) },
        ConformanceCheck(
            suite: "Value rules", name: "LIKE: any pattern length, NUL characters compared, the same on every driver",
            requires: .any
        ) { try ValueRulesTests().like(driver: $0) },
    ]
}

import Foundation
@_spi(SharkDriver) import SharkORM

/// The tables and the function through which the stores of one schema tell each other what
/// their commits changed (docs/architecture.md, "Events across processes"):
///
/// - `_shark_changes(position, store, committed_at, payload)`: one row per write transaction
///   that changed something, written in that transaction, so it commits or rolls back with it.
/// - `_shark_change_position`: the sequence positions come from, taken under a lock held
///   until the transaction ends, so positions follow commit order: a reader that sees a row
///   sees every row of a smaller position that will ever exist.
/// - `_shark_change_horizon(pruned_through)`: the last position pruned, so a reader that had
///   not read that far knows it missed commits.
/// - `shark_record_commit(store, payload, retention)`: the lock, the position, the row, a
///   `NOTIFY` that wakes the listeners (NOTIFY alone is not durable: it wakes, the table
///   tells), and every 128th commit `shark_prune_changes(retention)`, which deletes the
///   oldest rows older than `retention` (1,024 at most, far more than 128 commits add).
enum PostgresChangeRecord {
    static let table = "_shark_changes"
    static let horizonTable = "_shark_change_horizon"

    /// Installed with the other functions (``PostgresFunctions``).
    static let definitions: [String] = [
        """
        CREATE TABLE IF NOT EXISTS \(table) (position bigint PRIMARY KEY, store uuid NOT NULL,
            committed_at timestamptz NOT NULL DEFAULT clock_timestamp(), payload text NOT NULL)
        """,
        "CREATE SEQUENCE IF NOT EXISTS _shark_change_position",
        "CREATE TABLE IF NOT EXISTS \(horizonTable) (pruned_through bigint NOT NULL)",
        "INSERT INTO \(horizonTable) SELECT 0 WHERE NOT EXISTS (SELECT 1 FROM \(horizonTable))",
        """
        CREATE OR REPLACE FUNCTION shark_change_channel() RETURNS text LANGUAGE sql STABLE AS $$
            SELECT 'shark_changes_' || left(md5(current_schema()), 24)
        $$
        """,
        """
        CREATE OR REPLACE FUNCTION shark_prune_changes(retention interval) RETURNS void LANGUAGE plpgsql AS $$
        DECLARE
            oldest bigint;
        BEGIN
            PERFORM pg_advisory_xact_lock(hashtext(current_schema() || '.shark_changes'));
            -- From the oldest rows, those past the retention: a bounded look from the start
            -- of the index, never a scan of the table.
            SELECT max(position) INTO oldest FROM (
                SELECT position, committed_at FROM _shark_changes ORDER BY position LIMIT 1024) AS first_rows
            WHERE committed_at < clock_timestamp() - retention;
            IF oldest IS NOT NULL THEN
                DELETE FROM _shark_changes WHERE position <= oldest;
                UPDATE _shark_change_horizon SET pruned_through = greatest(pruned_through, oldest);
            END IF;
        END $$
        """,
        """
        CREATE OR REPLACE FUNCTION shark_record_commit(writer uuid, changes text, retention interval)
        RETURNS bigint LANGUAGE plpgsql AS $$
        DECLARE
            assigned bigint;
        BEGIN
            -- Held until the transaction ends: the next position is taken only once this
            -- transaction has committed (and is visible) or rolled back.
            PERFORM pg_advisory_xact_lock(hashtext(current_schema() || '.shark_changes'));
            assigned := nextval('_shark_change_position');
            INSERT INTO _shark_changes (position, store, payload) VALUES (assigned, writer, changes);
            PERFORM pg_notify(shark_change_channel(), '');
            -- The lock is held until COMMIT arrives: a client that vanishes now must not hold
            -- every writer of the schema for as long as TCP takes to notice.
            PERFORM set_config('idle_in_transaction_session_timeout', '10s', true);
            IF assigned % 128 = 0 THEN
                BEGIN
                    PERFORM shark_prune_changes(retention);
                EXCEPTION WHEN serialization_failure THEN
                    -- This transaction's snapshot predates another prune (REPEATABLE READ):
                    -- left to a later commit rather than failing this one.
                    NULL;
                END;
            END IF;
            RETURN assigned;
        END $$
        """,
    ]

    /// Past this many rows of one entity, a record says only that the entity changed (as a
    /// sync import does): listing every key would cost memory in proportion to the write.
    static let keysPerEntity = 10_000

    /// The text of the `payload` column: a commit's net changes and origin, as JSON.
    static func payload(_ changes: [String: EntityChanges], origin: ChangeOrigin) throws -> String {
        var entities: [String: Payload.Entity] = [:]
        for (name, change) in changes {
            let count = change.inserted.count + change.updated.count + change.removed.count
            if change.hasUnknownChanges || count > keysPerEntity {
                entities[name] = Payload.Entity(unknown: true)
            } else {
                entities[name] = Payload.Entity(
                    inserted: change.inserted.isEmpty ? nil : change.inserted,
                    updated: change.updated.isEmpty
                        ? nil : change.updated.map { Payload.Update(key: $0.key, properties: $0.value.sorted()) },
                    removed: change.removed.isEmpty ? nil : change.removed)
            }
        }
        let imported: String?
        switch origin {
        case .local: imported = nil
        case .imported(let source): imported = source
        }
        let data = try JSONEncoder().encode(Payload(imported: imported, entities: entities))
        return String(decoding: data, as: UTF8.self)
    }

    /// A payload read back. Throws when the text is not one (written by a later version).
    static func changes(fromPayload text: String) throws -> (changes: [String: EntityChanges], origin: ChangeOrigin) {
        let payload = try JSONDecoder().decode(Payload.self, from: Data(text.utf8))
        var changes: [String: EntityChanges] = [:]
        for (name, entity) in payload.entities {
            var change = EntityChanges()
            change.hasUnknownChanges = entity.unknown ?? false
            change.inserted = entity.inserted ?? []
            change.removed = entity.removed ?? []
            for update in entity.updated ?? [] { change.updated[update.key] = Set(update.properties) }
            changes[name] = change
        }
        return (changes, payload.imported.map { .imported($0) } ?? .local)
    }

    private struct Payload: Codable {
        struct Entity: Codable {
            var inserted: [Value]?
            var updated: [Update]?
            var removed: [Value]?
            var unknown: Bool?
        }

        struct Update: Codable {
            var key: Value
            var properties: [String]
        }

        var imported: String?
        var entities: [String: Entity]
    }
}

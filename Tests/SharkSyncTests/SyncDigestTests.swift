import Crypto
import Foundation
@_spi(SharkDriver) @_spi(SharkReplication) import SharkORM
import SharkTestSupport
import Testing

@testable import SharkDriverConformance
@testable import SharkSync

/// Replica digests: what they cover (every value, key, version and row), where they travel
/// (full exports, sealed with the rows), and what an import can say with them.
@Suite("Sync: replica digests")
struct SyncDigestTests {
    private static func site(_ number: Int) -> UUID { testSite(number) }

    private static func replica(_ driver: TestDriver, site number: Int, models: [any Model.Type]? = nil) throws
        -> SyncEngine
    {
        var options = SyncOptions(site: site(number))
        options.assignKeys(of: SyncTally.self, .appAssigned)
        return try SyncEngine(
            store: try driver.makeStore(), lineage: "digests",
            models: models ?? [SyncNote.self, SyncFolder.self, SyncTally.self, SyncAccount.self], options: options)
    }

    private static let columns = [
        ChangeLogColumn(name: "title", type: .text), ChangeLogColumn(name: "stars", type: .integer),
        ChangeLogColumn(name: "score", type: .real), ChangeLogColumn(name: "photo", type: .blob),
    ]

    private static func randomRow(_ random: inout SeededGenerator) -> RowChange {
        let versions = (0..<Int.random(in: 1...3, using: &random)).map { _ in
            ColumnVersion(
                causalLength: UInt64.random(in: 1...3, using: &random),
                timestamp: UInt64.random(in: 0...(1 << 40), using: &random),
                site: site(Int.random(in: 1...3, using: &random)),
                sequence: UInt64.random(in: 1...1000, using: &random))
        }
        let values = columns.indices.shuffled(using: &random).map { column in
            let value: Value
            switch column {
            case 0: value = .text(String(Int.random(in: 0...1_000_000, using: &random)))
            case 1: value = .integer(Int64.random(in: .min ... .max, using: &random))
            case 2: value = .real(Double.random(in: -1e6...1e6, using: &random))
            default:
                value = Bool.random(using: &random) ? .null : .blob(Data([UInt8.random(in: 0...255, using: &random)]))
            }
            return ColumnChange(
                column: column, version: Int.random(in: 0..<versions.count, using: &random), value: value)
        }
        return RowChange(
            key: .blob(Data((0..<16).map { _ in UInt8.random(in: 0...255, using: &random) })),
            causalLength: 2 * UInt64.random(in: 0...2, using: &random) + 1, versions: versions, values: values)
    }

    private static func sum(_ rows: [RowChange], entity: String = "Note") -> [UInt8] {
        var sum = DigestSum()
        _ = RowDigester(entity: ChangeLogEntity(name: entity, keyKind: .uuid, columns: columns, rows: [])).add(
            rows, to: &sum)
        return sum.bytes
    }

    @Test("any one value, key, version, causal length or row changed changes the digest; order does not")
    func mutations() {
        var random = SeededGenerator(state: 2026_11_29)
        for round in 0..<300 {
            let rows = (0..<Int.random(in: 1...8, using: &random)).map { _ in Self.randomRow(&random) }
            let original = Self.sum(rows)
            // Rows in another order, and each row's values in another order: the same digest.
            var reordered = rows.shuffled(using: &random)
            for index in reordered.indices {
                reordered[index].values = ArraySlice(reordered[index].values.shuffled(using: &random))
            }
            #expect(Self.sum(reordered) == original, "round \(round): order changed the digest")
            #expect(Self.sum(rows, entity: "Other") != original, "round \(round): the entity's name is not covered")

            var mutated = rows
            let row = Int.random(in: 0..<rows.count, using: &random)
            let value = mutated[row].values.indices.randomElement(using: &random)!
            let version = Int.random(in: 0..<rows[row].versions.count, using: &random)
            let mutation = round % 9
            switch mutation {
            case 0:  // a value
                mutated[row].values[value].value =
                    mutated[row].values[value].value == .null ? .integer(0) : .null
            case 1:  // a key
                mutated[row].key = .blob(Data(repeating: 7, count: 16))
            case 2:  // a version's timestamp
                mutated[row].versions[version].timestamp &+= 1
            case 3:  // a version's site
                mutated[row].versions[version].site = Self.site(9)
            case 4:  // a version's sequence
                mutated[row].versions[version].sequence += 1
            case 5:  // a version's causal length
                mutated[row].versions[version].causalLength += 1
            case 6:  // the row's causal length (still live)
                mutated[row].causalLength += 2
            case 7:  // a row missing
                mutated.remove(at: row)
            default:  // a row counted twice
                mutated.append(rows[row])
            }
            // A mutation of a version no value refers to changes nothing the digest covers.
            let versionUsed = rows[row].values.contains { $0.version == version }
            guard (2...5).contains(mutation) == false || versionUsed else { continue }
            #expect(Self.sum(mutated) != original, "round \(round): mutation \(mutation) left the digest as it was")
        }
    }

    @Test("a NaN real hashes as one NaN, −0.0 apart from 0.0")
    func canonicalReals() {
        func row(_ real: Double) -> RowChange {
            RowChange(
                key: .text("k"), causalLength: 1,
                versions: [ColumnVersion(causalLength: 1, timestamp: 1, site: Self.site(1), sequence: 1)],
                values: [ColumnChange(column: 2, version: 0, value: .real(real))])
        }
        #expect(Self.sum([row(.nan)]) == Self.sum([row(Double(bitPattern: 0x7FF8_0000_0000_0001))]))
        #expect(Self.sum([row(-0.0)]) != Self.sum([row(0.0)]))
    }

    @Test("replicas in sync have equal digests; any change makes them differ", arguments: TestDriver.allCases)
    func equalAndDifferent(driver: TestDriver) throws {
        let a = try Self.replica(driver, site: 1)
        let b = try Self.replica(.memory, site: 2)
        defer {
            a.store.close()
            b.store.close()
        }
        let empty = try a.digest()
        #expect(empty.rowCount == 0)
        #expect(empty.compared(to: try b.digest()) == .equal)

        let note = SyncNote(title: "hello", stars: 3)
        try a.store.commit([note, SyncNote(title: "second")])
        try a.store.commit([SyncFolder(id: "inbox", name: "Inbox")])
        try a.store.commit(SyncTally(id: 42, label: "visits"))
        try a.store.commit(SyncAccount(handle: "ann"))
        let removed = SyncNote(title: "gone")
        try a.store.commit(removed)
        try a.store.remove(removed)

        let full = try a.exportChanges()
        let summary = try b.importChanges(from: full)
        let sent = try #require(summary.senderDigest)
        #expect(sent == (try a.digest()), "the file's digest is the sender's scan")
        #expect(sent.rowCount == 5, "removed rows are left out")
        #expect(try b.compareDigest(after: summary) == .equal)
        #expect(try b.digest().compared(to: try a.digest()) == .equal)

        // Any change on either side, and they differ.
        note.stars = 4
        try a.store.commit(note)
        #expect(try b.digest().compared(to: try a.digest()) == .different)
        try b.importChanges(from: try a.exportChanges(since: try b.versionVector()))
        #expect(try b.digest() == a.digest())

        // Only full exports carry a digest.
        let recent = try b.importChanges(from: try a.exportChanges(since: try b.versionVector()))
        #expect(recent.senderDigest == nil)
        #expect(try b.compareDigest(after: recent) == .notComparable(.fileHasNoDigest))

        // A receiver with changes of its own: its vector is not the file's.
        try b.store.commit(SyncFolder(id: "work", name: "Work"))
        let again = try b.importChanges(from: try a.exportChanges())
        #expect(try b.compareDigest(after: again) == .notComparable(.vectorsDiffer))
        #expect(try b.digest().compared(to: try a.digest()) == .different)
    }

    @Test("schemas that differ are not comparable", arguments: TestDriver.allCases)
    func otherSchema(driver: TestDriver) throws {
        let a = try Self.replica(driver, site: 1)
        let b = try Self.replica(.memory, site: 2, models: [SyncNote.self, SyncFolder.self])
        defer {
            a.store.close()
            b.store.close()
        }
        try a.store.commit(SyncNote(title: "hello"))
        let summary = try b.importChanges(from: try a.exportChanges())
        #expect(try b.compareDigest(after: summary) == .notComparable(.schemasDiffer))
        #expect(try b.digest().compared(to: try a.digest()) == .notComparable(.schemasDiffer))
    }

    @Test("a row waiting for a unique value is digested with the value it claims", arguments: TestDriver.allCases)
    func standIns(driver: TestDriver) throws {
        let a = try Self.replica(driver, site: 1)
        let b = try Self.replica(.memory, site: 2)
        defer {
            a.store.close()
            b.store.close()
        }
        try a.store.commit(SyncAccount(handle: "ann"))
        try b.store.commit(SyncAccount(handle: "ann"))
        try b.importChanges(from: try a.exportChanges())
        let summary = try a.importChanges(from: try b.exportChanges())
        #expect(try a.standIns().count == 1)
        #expect(try a.compareDigest(after: summary) == .equal)
        #expect(try a.digest() == b.digest())
    }

    @Test("a sealed file carries its digest sealed, never in clear", arguments: TestDriver.allCases)
    func sealed(driver: TestDriver) throws {
        let a = try Self.replica(driver, site: 1)
        let b = try Self.replica(.memory, site: 2)
        defer {
            a.store.close()
            b.store.close()
        }
        try a.store.commit((0..<50).map { SyncNote(title: "note \($0)", stars: $0) })
        let key = ChangeLogKey.random()
        let file = try a.exportChanges(key: key)
        let digest = try a.digest()
        #expect(file.range(of: digest.content) == nil)
        #expect(file.range(of: digest.content.prefix(8)) == nil)
        let contents = try ChangeLogContents(reading: file, key: key)
        #expect(contents.digest == digest)
        #expect(contents.formatVersion == 2)
        let summary = try b.importChanges(from: file, key: key)
        #expect(try b.compareDigest(after: summary) == .equal)
    }

    /// `file` with its flags replaced and its trailer's SHA-256 computed again, so that only
    /// the structure is wrong.
    private static func withFlags(_ file: Data, _ change: (UInt16) -> UInt16) -> Data {
        var bytes = [UInt8](file)
        let flags = UInt16(bytes[10]) | UInt16(bytes[11]) << 8
        let changed = change(flags)
        bytes[10] = UInt8(changed & 0xFF)
        bytes[11] = UInt8(changed >> 8)
        let trailerStart = bytes.count - ChangeLogFormat.trailerLength
        let hash = Array(SHA256.hash(data: bytes[..<trailerStart]))
        bytes.replaceSubrange((trailerStart + 12)..<bytes.count, with: hash)
        return Data(bytes)
    }

    @Test("a digest frame where the flags do not say so, or the flag without it, is refused")
    func misplacedDigest() throws {
        let a = try Self.replica(.memory, site: 1)
        let b = try Self.replica(.memory, site: 2)
        defer {
            a.store.close()
            b.store.close()
        }
        try a.store.commit(SyncTally(id: 1, label: "one"))  // Int64 keys: every file is version 2
        let full = try a.exportChanges()
        let vector = try a.versionVector()
        try a.store.commit(SyncTally(id: 2, label: "two"))
        let recent = try a.exportChanges(since: vector)
        #expect(try ChangeLogContents(reading: recent).formatVersion == 2)
        for (file, what) in [
            (Self.withFlags(full) { $0 & ~ChangeLogFormat.digestFlag }, "a digest frame without the flag"),
            (Self.withFlags(recent) { $0 | ChangeLogFormat.digestFlag }, "the flag over a frame of rows"),
        ] {
            do {
                try b.importChanges(from: file)
                Issue.record("\(what) was imported")
            } catch SyncError.corrupt(let detail) {
                #expect(detail.reason == .malformedContent, "\(what): \(detail)")
            }
        }
        #expect(try SyncTally.query(in: b.store).count() == 0)
    }
}

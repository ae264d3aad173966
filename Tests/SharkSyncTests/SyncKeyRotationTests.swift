import Crypto
import Foundation
@_spi(SharkDriver) import SharkORM
import SharkTestSupport
import Testing

@testable import SharkDriverConformance
@testable import SharkSync

/// Rotating a lineage's sealing key: files name the id of the key that sealed them (format
/// version 3), a key opens the files of the keys it retired, and a reader without the file's
/// key refuses it with a typed error before applying anything.
@Suite("Sealing keys with ids, and rotating them")
struct SyncKeyRotationTests {
    private static func engine(_ driver: TestDriver, site: Int) throws -> SyncEngine {
        var options = SyncOptions(site: UUID(uuidString: "00000000-0000-0000-0000-00000000000\(site)")!)
        options.now = { 1_700_000_000_000 }
        return try SyncEngine(
            store: try driver.makeStore(), lineage: "rotation", models: [SyncNote.self, SyncFolder.self],
            options: options)
    }

    private static func titles(_ engine: SyncEngine) throws -> [String] {
        try SyncNote.query(in: engine.store).fetch().map(\.title).sorted()
    }

    private static func keyError(_ body: () throws -> Void) -> SyncError.KeyReason? {
        do { try body() } catch {
            guard case .keyMismatch(let detail) = error as? SyncError else { return nil }
            return detail.reason
        }
        return nil
    }

    @Test(
        "a rotated key seals files that name it; it opens its predecessors' files, they do not open its own",
        arguments: TestDriver.allCases)
    func rotation(driver: TestDriver) throws {
        let sender = try Self.engine(.memory, site: 1)
        let receiver = try Self.engine(driver, site: 2)
        let leftBehind = try Self.engine(driver, site: 3)
        defer { [sender, receiver, leftBehind].forEach { $0.store.close() } }
        let first = ChangeLogKey.random()
        let second = try ChangeLogKey.random(id: 1).retiring([first])
        #expect(first.id == 0 && first.retiredIDs.isEmpty)
        #expect(second.id == 1 && second.retiredIDs == [0])

        try sender.store.commit(SyncNote(title: "before"))
        let before = try sender.exportChanges(key: first)
        let beforeHeader = try ChangeLogHeader(reading: before, key: first)
        // The first key's files are what they were before key ids: readable by older releases
        // (version 2 for this full export, which carries a digest).
        #expect(beforeHeader.keyID == 0 && beforeHeader.formatVersion == 2)

        try sender.store.commit(SyncNote(title: "after"))
        let after = try sender.exportChanges(since: beforeHeader.vector, key: second)
        let afterHeader = try ChangeLogHeader(reading: after, key: second)
        #expect(afterHeader.keyID == 1 && afterHeader.formatVersion == 3)
        #expect(try ChangeLogContents(reading: after, key: second).keyID == 1)

        // The new key opens both: the old file with the key it retired.
        try receiver.importChanges(from: before, key: second)
        try receiver.importChanges(from: after, key: second)
        #expect(try Self.titles(receiver) == ["after", "before"])

        // The old key alone reads what it sealed, and refuses what the new one sealed,
        // leaving the store as it was.
        try leftBehind.importChanges(from: before, key: first)
        #expect(Self.keyError { try leftBehind.importChanges(from: after, key: first) } == .unknownKeyID)
        #expect(Self.keyError { _ = try ChangeLogHeader(reading: after, key: first) } == .unknownKeyID)
        #expect(try Self.titles(leftBehind) == ["before"])
        // A new key that does not retire the old one does not open the old key's files.
        let unrelated = ChangeLogKey.random(id: 1)
        #expect(Self.keyError { try leftBehind.importChanges(from: before, key: unrelated) } == .unknownKeyID)
        // Another key that claims the file's id is a wrong key, as before ids.
        #expect(throws: SyncError.wrongKey) { try leftBehind.importChanges(from: after, key: unrelated) }
        #expect(try Self.titles(leftBehind) == ["before"])
    }

    @Test("a key retires only keys of lower ids, each id one key, and takes over what they retired")
    func retiring() throws {
        let zero = ChangeLogKey.random()
        let one = try ChangeLogKey.random(id: 1).retiring([zero])
        let two = try ChangeLogKey.random(id: 2).retiring([one])
        #expect(two.retiredIDs == [0, 1])
        // The same key twice, directly and through its successor, is one key.
        #expect(try ChangeLogKey.random(id: 2).retiring([one, zero]).retiredIDs == [0, 1])
        #expect(Self.keyError { _ = try zero.retiring([one]) } == .retiredKeyID)
        #expect(Self.keyError { _ = try one.retiring([one]) } == .retiredKeyID)
        #expect(Self.keyError { _ = try ChangeLogKey.random(id: 2).retiring([one, .random()]) } == .retiredKeyID)
        // A key kept as bytes and id is the same key.
        let stored = try ChangeLogKey(bytes: one.bytes, id: one.id)
        #expect(stored.id == 1 && stored.bytes == one.bytes)
        #expect(try ChangeLogKey.random(id: 3).retiring([stored, two]).retiredIDs == [0, 1, 2])

        let sender = try Self.engine(.memory, site: 1)
        let receiver = try Self.engine(.memory, site: 2)
        defer { [sender, receiver].forEach { $0.store.close() } }
        try sender.store.commit(SyncNote(title: "sealed with zero"))
        try receiver.importChanges(from: try sender.exportChanges(key: zero), key: two)
        #expect(try Self.titles(receiver) == ["sealed with zero"])
        // The highest id a file can name.
        let last = ChangeLogKey.random(id: .max)
        let file = try sender.exportChanges(key: last)
        #expect(try ChangeLogHeader(reading: file, key: last).keyID == .max)
    }

    /// The offset of the key id in a version 3 file's header bytes (after the preamble).
    private static func keyIDOffset(inHeader header: [UInt8]) throws -> Int {
        var reader = ByteReader(header, context: "test")
        _ = try reader.uuid()
        _ = try reader.uuid()
        _ = try reader.string()
        for _ in 0..<(try reader.count(limit: 1000)) { _ = try reader.uuid() }
        for _ in 0..<3 {
            for _ in 0..<(try reader.count(limit: 1000)) {
                _ = try reader.varint()
                _ = try reader.varint()
            }
        }
        return reader.offset
    }

    @Test("the key id is authenticated, bounded, and only in sealed files")
    func damagedKeyIDs() throws {
        let sender = try Self.engine(.memory, site: 1)
        let receiver = try Self.engine(.memory, site: 2)
        defer { [sender, receiver].forEach { $0.store.close() } }
        try sender.store.commit(SyncNote(title: "one"))
        let zero = ChangeLogKey.random()
        let one = try ChangeLogKey.random(id: 1).retiring([zero])
        var sealed = [UInt8](try sender.exportChanges(key: one))
        // The id rewritten to 0 (the checksums made right): the file key then comes from the
        // retired key, and the seal over the header fails.
        let headerLength = Int(sealed[12]) | Int(sealed[13]) << 8 | Int(sealed[14]) << 16 | Int(sealed[15]) << 24
        var header = Array(sealed[16..<(16 + headerLength)])
        let offset = try Self.keyIDOffset(inHeader: header)
        #expect(header[offset] == 1)
        header[offset] = 0
        sealed.replaceSubrange(16..<(16 + headerLength), with: header)
        let crc = Zlib.crc32(header)
        withUnsafeBytes(of: crc.littleEndian) {
            sealed.replaceSubrange((16 + headerLength)..<(20 + headerLength), with: $0)
        }
        let trailerStart = sealed.count - ChangeLogFormat.trailerLength
        sealed.replaceSubrange((trailerStart + 12)..., with: Array(SHA256.hash(data: sealed[..<trailerStart])))
        #expect(throws: SyncError.wrongKey) { try receiver.importChanges(from: Data(sealed), key: one) }

        // A plain file made version 3: its key id must be 0, and fit 32 bits.
        var layout = try ChangeLogLayout(try sender.exportChanges(since: VersionVector([UUID(): 1])))
        #expect(layout.version == 1)
        let plainEnd = try {
            var reader = ByteReader(layout.header, context: "test")
            _ = try reader.uuid()
            _ = try reader.uuid()
            _ = try reader.string()
            for _ in 0..<(try reader.count(limit: 1000)) { _ = try reader.uuid() }
            for _ in 0..<2 {
                for _ in 0..<(try reader.count(limit: 1000)) { _ = (try reader.varint(), try reader.varint()) }
            }
            return reader.offset
        }()
        layout.version = 3
        func withKeyID(_ id: [UInt8]) throws -> Data {
            var edited = layout
            edited.header.insert(contentsOf: [0] + id, at: plainEnd)  // an empty horizon, then the id
            return try edited.encoded()
        }
        try receiver.importChanges(from: try withKeyID([0]))
        #expect(try Self.titles(receiver) == ["one"])
        for id: [UInt8] in [[5], [0x80, 0x80, 0x80, 0x80, 0x10]] {  // 5, and 2^32
            let file = try withKeyID(id)
            do {
                try receiver.importChanges(from: file)
                Issue.record("a plain file naming key \(id) was imported")
            } catch {
                guard case .corrupt(let detail) = error as? SyncError else {
                    Issue.record("a plain file naming key \(id): \(error)")
                    continue
                }
                #expect(detail.reason == .malformedContent)
            }
        }
    }
}

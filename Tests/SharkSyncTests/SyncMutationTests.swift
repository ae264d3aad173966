import Crypto
import Foundation
@_spi(SharkDriver) import SharkORM
import SharkTestSupport
import Testing

@testable import SharkDriverConformance
@testable import SharkSync

/// A plain change-log file taken apart — header and inflated frame payloads — so that one
/// field can change and every length, checksum and digest after it be made right again: what
/// a reader cannot tell from a file SharkORM wrote, except by what the fields say.
struct ChangeLogLayout {
    var version: UInt16
    var flags: UInt16
    var header: [UInt8]
    var frames: [[UInt8]]

    init(_ data: Data) throws {
        var reader = ByteReader([UInt8](data), context: "test")
        _ = try reader.bytes(8)
        version = try reader.uint16()
        flags = try reader.uint16()
        header = Array(try reader.bytes(Int(try reader.uint32())))
        _ = try reader.uint32()
        frames = []
        let trailerStart = data.count - ChangeLogFormat.trailerLength
        while reader.offset < trailerStart {
            let stored = Int(try reader.uint32())
            let inflated = Int(try reader.uint32())
            _ = try reader.uint32()
            frames.append(try Zlib.decompress(try reader.bytes(stored), expectedLength: inflated, context: "test"))
        }
    }

    func encoded() throws -> Data {
        var writer = ByteWriter()
        writer.append(ChangeLogFormat.magic)
        writer.append(uint16: version)
        writer.append(uint16: flags)
        writer.append(uint32: UInt32(header.count))
        writer.append(header)
        writer.append(uint32: Zlib.crc32(header))
        for frame in frames {
            let stored = try Zlib.compress(frame)
            writer.append(uint32: UInt32(stored.count))
            writer.append(uint32: UInt32(frame.count))
            writer.append(uint32: Zlib.crc32(stored))
            writer.append(stored)
        }
        // The trailer: its magic, the frame count, and the digest of everything before it.
        let digest = Array(SHA256.hash(data: writer.bytes))
        writer.append(ChangeLogFormat.trailerMagic)
        writer.append(uint32: UInt32(frames.count))
        writer.append(digest)
        return Data(writer.bytes)
    }
}

/// Valid change logs with one field changed and their checksums recomputed, imported into a
/// replica that holds their rows already: each import ends in a typed error or a success, and
/// after a success the replica keeps working — its rows can be removed and written again, it
/// exports them, and a peer importing that export ends with the same rows. Nothing traps.
///
/// `SHARK_SYNC_FUZZ=<iterations>` runs longer (the default is a few hundred, for CI);
/// `SHARK_SYNC_FUZZ_SEED=<seed>` replays one run.
@Suite("Sync: mutated files")
struct SyncMutationTests {
    static let iterations = Int(ProcessInfo.processInfo.environment["SHARK_SYNC_FUZZ"] ?? "") ?? 240
    static let seed = UInt64(ProcessInfo.processInfo.environment["SHARK_SYNC_FUZZ_SEED"] ?? "") ?? 2026_11_26

    /// Numbers at the edges of what a field can say.
    static let extremes: [UInt64] = [0, 1, 2, 3, 1 << 62, (1 << 62) + 1, 1 << 63, UInt64(Int64.max), .max - 1, .max]

    /// A file of a few transactions on a source: inserts, updates, a relationship, a removal.
    static func originalFile() throws -> Data {
        let source = try SyncEngine(
            store: try Store(.memory), lineage: "fuzz", models: [SyncNote.self, SyncFolder.self],
            options: SyncOptions(site: UUID(uuidString: "00000000-0000-0000-0000-00000000F022")!))
        defer { source.store.close() }
        let inbox = SyncFolder(id: "inbox", name: "Inbox")
        let notes = (0..<6).map { SyncNote(title: "note \($0)", body: String(repeating: "b", count: $0), stars: $0) }
        notes[1].folder = inbox
        notes[2].score = 2.5
        try source.store.commit(notes)
        notes[0].title = "renamed"
        try source.store.commit(notes[0])
        try source.store.remove(notes[5])
        return try source.exportChanges()
    }

    @Test("each field changed, checksums recomputed: a typed error or a working replica, never a trap")
    func mutatedFields() throws {
        let original = try Self.originalFile()
        let layout = try ChangeLogLayout(original)
        #expect(try layout.encoded() == original, "the layout re-encodes a file as it was")
        let parsed = try ChangeLogReader.read(original, key: nil, limits: ChangeLogLimits())
        var random = SeededGenerator(state: Self.seed)
        var outcomes: [String: Int] = [:]
        for iteration in 0..<Self.iterations {
            let driver = TestDriver.allCases[iteration % TestDriver.allCases.count]
            guard let file = try Self.mutated(original, layout, parsed, &random) else { continue }
            let replica = try SyncEngine(
                store: try driver.makeStore(), lineage: "fuzz", models: [SyncNote.self, SyncFolder.self])
            defer { replica.store.close() }
            try replica.importChanges(from: original)
            do {
                try replica.importChanges(from: file)
                outcomes["imported", default: 0] += 1
            } catch let error as SyncError {
                outcomes["refused: \(Mirror(reflecting: error).children.first?.label ?? "\(error)")", default: 0] += 1
                continue
            } catch let error as SharkError {
                outcomes[
                    "refused by the store: \(Mirror(reflecting: error).children.first?.label ?? "")", default: 0] += 1
                continue
            }
            try Self.exercise(replica, driver: driver, iteration: iteration)
        }
        print("sync mutations (seed \(Self.seed)): \(outcomes.sorted { $0.key < $1.key })")
        #expect(outcomes["imported", default: 0] > 0 && outcomes.count > 2, "\(outcomes)")
    }

    @Test(
        "a causal length or sequence number beyond what a replica counts to is refused", arguments: TestDriver.allCases)
    func counterRange(driver: TestDriver) throws {
        let original = try Self.originalFile()
        let parsed = try ChangeLogReader.read(original, key: nil, limits: ChangeLogLimits())
        for length: UInt64 in [.max, .max - 1, (1 << 62) + 1] {
            var log = parsed
            log.entities[0].rows[0].causalLength = UInt64(length)
            if log.entities[0].rows[0].isRemoval { log.entities[0].rows[0].values = [][...] }
            let replica = try SyncEngine(
                store: try driver.makeStore(), lineage: "fuzz", models: [SyncNote.self, SyncFolder.self])
            defer { replica.store.close() }
            #expect(throws: SyncError.self) {
                try replica.importChanges(from: try ChangeLogWriter.write(log, key: nil))
            }
            // Nothing was applied; the replica goes on.
            #expect(try syncedContents(replica.store).isEmpty)
            try replica.importChanges(from: original)
            try Self.exercise(replica, driver: driver, iteration: 0)
        }
        // A vector claiming more than any replica counts to is written at the bound, which
        // means as much (nothing is beyond it) and which readers accept.
        var log = parsed
        log.vector[log.source] = .max
        let clamped = try ChangeLogReader.read(
            try ChangeLogWriter.write(log, key: nil), key: nil, limits: ChangeLogLimits())
        #expect(clamped.vector[log.source] == ChangeLogFormat.maximumCounter)
        // At the limit itself, a removal and the next change still count on.
        var edge = parsed
        edge.entities[0].rows[0].causalLength = (1 << 62) - 1
        let replica = try SyncEngine(
            store: try driver.makeStore(), lineage: "fuzz", models: [SyncNote.self, SyncFolder.self])
        defer { replica.store.close() }
        try replica.importChanges(from: try ChangeLogWriter.write(edge, key: nil))
        try Self.exercise(replica, driver: driver, iteration: 1)
    }

    /// After a mutated file was imported: the replica's rows removed, written again, exported,
    /// and imported by a fresh peer, which must end with the same rows.
    static func exercise(_ replica: SyncEngine, driver: TestDriver, iteration: Int) throws {
        let notes = try SyncNote.query(in: replica.store).fetch()
        try replica.store.write { tx in for note in notes { try tx.remove(note) } }
        try replica.store.commit(SyncNote(title: "after \(iteration)"))
        if let first = notes.first {
            first.title = "back"
            try replica.store.commit(first)
        }
        let export = try replica.exportChanges()
        let peer = try SyncEngine(
            store: try driver.makeStore(), lineage: "fuzz", models: [SyncNote.self, SyncFolder.self])
        defer { peer.store.close() }
        try peer.importChanges(from: export)
        #expect(
            try syncedContents(peer.store) == syncedContents(replica.store),
            "iteration \(iteration) (seed \(seed)): a peer importing the replica's export differs")
    }

    /// `original` with one field changed, or nil when the change could not be written.
    static func mutated(
        _ original: Data, _ layout: ChangeLogLayout, _ parsed: ChangeLog, _ random: inout SeededGenerator
    ) throws -> Data? {
        switch Int.random(in: 0..<4, using: &random) {
        case 0:
            // A byte of the header.
            var copy = layout
            copy.header[Int.random(in: 0..<copy.header.count, using: &random)] = UInt8.random(
                in: 0...255, using: &random)
            return try copy.encoded()
        case 1:
            // A byte of a frame.
            var copy = layout
            let frame = Int.random(in: 0..<copy.frames.count, using: &random)
            guard !copy.frames[frame].isEmpty else { return nil }
            copy.frames[frame][Int.random(in: 0..<copy.frames[frame].count, using: &random)] =
                UInt8.random(in: 0...255, using: &random)
            return try copy.encoded()
        case 2:
            // The varint at some place of a frame replaced by an extreme one.
            var copy = layout
            let frame = Int.random(in: 0..<copy.frames.count, using: &random)
            var bytes = copy.frames[frame]
            let start = Int.random(in: 0..<bytes.count, using: &random)
            var end = start
            while end < bytes.count, bytes[end] & 0x80 != 0 { end += 1 }
            var writer = ByteWriter()
            writer.append(varint: extremes.randomElement(using: &random)!)
            bytes.replaceSubrange(start..<min(end + 1, bytes.count), with: writer.bytes)
            copy.frames[frame] = bytes
            return try copy.encoded()
        default:
            // A field of the decoded log, written back by the library's own writer.
            var log = parsed
            mutateField(of: &log, &random)
            return try? ChangeLogWriter.write(log, key: nil)
        }
    }

    static func mutateField(of log: inout ChangeLog, _ random: inout SeededGenerator) {
        let entity = Int.random(in: 0..<log.entities.count, using: &random)
        guard !log.entities[entity].rows.isEmpty else { return }
        let row = Int.random(in: 0..<log.entities[entity].rows.count, using: &random)
        let extreme = extremes.randomElement(using: &random)!
        switch Int.random(in: 0..<8, using: &random) {
        case 0:
            // An odd length stays a live row, an even one a removal: both with their values.
            log.entities[entity].rows[row].causalLength = max(1, extreme)
            if log.entities[entity].rows[row].isRemoval { log.entities[entity].rows[row].values = [][...] }
        case 1:
            let version = Int.random(in: 0..<log.entities[entity].rows[row].versions.count, using: &random)
            log.entities[entity].rows[row].versions[version].causalLength = min(
                extreme, log.entities[entity].rows[row].causalLength)
        case 2:
            let version = Int.random(in: 0..<log.entities[entity].rows[row].versions.count, using: &random)
            log.entities[entity].rows[row].versions[version].sequence = extreme
        case 3:
            let version = Int.random(in: 0..<log.entities[entity].rows[row].versions.count, using: &random)
            log.entities[entity].rows[row].versions[version].timestamp = extreme
        case 4:
            guard !log.entities[entity].rows[row].values.isEmpty else { return }
            var values = Array(log.entities[entity].rows[row].values)
            let index = Int.random(in: 0..<values.count, using: &random)
            values[index].value = [
                .real(.nan), .real(-0.0), .real(.infinity), .integer(.min), .integer(.max), .text(""),
                .text(String(repeating: "z", count: 70_000)), .blob(Data([0xFF])), .null, .text("P5011"),
            ].randomElement(using: &random)!
            log.entities[entity].rows[row].values = values[...]
        case 5:
            log.vector[log.source] = extreme
        case 6:
            log.since[log.source] = extreme
        default:
            log.entities[entity].rows[row].key =
                [Value.blob(Data(count: 15)), .text(""), .integer(1), .blob(Data(repeating: 9, count: 16))]
                .randomElement(using: &random)!
        }
    }
}

import Foundation
@_spi(SharkDriver) @_spi(SharkReplication) import SharkORM
import SharkSync
import SharkTestSupport
import Testing

@testable import SharkDriverConformance

private func syncError(_ body: () throws -> Void) -> SyncError? {
    do { try body() } catch let error as SyncError { return error } catch {}
    return nil
}

@Suite("Typed error reasons of sync, and the list of every reason")
struct ErrorReasonListTests {
    @Test("every reason of every error detail is listed in docs/errors.md")
    func documented() throws {
        let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/errors.md")
        let text = try String(contentsOf: docs, encoding: .utf8)
        func listed<R: CaseIterable & RawRepresentable>(_: R.Type, under heading: String) -> [String]
        where R.RawValue == String {
            guard let start = text.range(of: "### `\(heading)`") else { return ["no heading \(heading)"] }
            let section = text[start.upperBound...].prefix { $0 != "#" }
            return R.allCases.map(\.rawValue).filter { !section.contains("| `.\($0)` |") }
        }
        #expect(listed(SharkError.QueryReason.self, under: "SharkError.QueryReason").isEmpty)
        #expect(listed(SharkError.ValueReason.self, under: "SharkError.ValueReason").isEmpty)
        #expect(listed(SharkError.UnsupportedReason.self, under: "SharkError.UnsupportedReason").isEmpty)
        #expect(listed(SharkError.MisuseReason.self, under: "SharkError.MisuseReason").isEmpty)
        #expect(listed(SharkError.DecodingReason.self, under: "SharkError.DecodingReason").isEmpty)
        #expect(listed(SyncError.CorruptReason.self, under: "SyncError.CorruptReason").isEmpty)
        #expect(listed(SyncError.LimitReason.self, under: "SyncError.LimitReason").isEmpty)
        #expect(listed(SyncError.KeyReason.self, under: "SyncError.KeyReason").isEmpty)
        #expect(listed(SyncError.MisuseReason.self, under: "SyncError.MisuseReason").isEmpty)
        #expect(listed(SyncError.InternalReason.self, under: "SyncError.InternalReason").isEmpty)
        #expect(listed(SyncError.MergePolicyReason.self, under: "SyncError.MergePolicyReason").isEmpty)
    }

    @Test("damaged, oversized and mis-keyed change logs and misused engines throw their reasons")
    func syncReasons() throws {
        let sender = try SyncEngine(
            store: try TestDriver.memory.makeStore(), lineage: "reasons", models: [SyncNote.self, SyncFolder.self])
        let receiver = try SyncEngine(
            store: try TestDriver.memory.makeStore(), lineage: "reasons", models: [SyncNote.self, SyncFolder.self])
        try sender.store.commit(SyncNote(title: "hello"))
        let file = try sender.exportChanges()
        guard
            case .corrupt(let truncated) = syncError({ try receiver.importChanges(from: file.prefix(file.count - 3)) })
        else { Issue.record("a truncated file was not refused as damaged"); return }
        #expect(truncated.reason == .truncated)
        let sealed = try sender.exportChanges(key: .random())
        guard case .keyMismatch(let keyless) = syncError({ try receiver.importChanges(from: sealed) }) else {
            Issue.record("a sealed file was read without a key"); return
        }
        #expect(keyless.reason == .keyRequired)
        guard case .keyMismatch(let needless) = syncError({ try receiver.importChanges(from: file, key: .random()) })
        else { Issue.record("a key was taken for a plain file"); return }
        #expect(needless.reason == .keyNotExpected)
        var limits = ChangeLogLimits()
        limits.maximumHeaderBytes = 8
        guard case .tooLarge(let large) = syncError({ try receiver.importChanges(from: file, limits: limits) }) else {
            Issue.record("a header over the limit was read"); return
        }
        #expect(large.reason == .headerBytes)
        guard
            case .misuse(let inside) = syncError({
                try receiver.store.write { _ in _ = try receiver.importChanges(from: file) }
            })
        else { Issue.record("an import ran inside a transaction"); return }
        #expect(inside.reason == .insideTransaction)
    }
}

import Foundation
import SharkORM

/// A row's key as a dictionary key. `Value`'s own hashing of a `Data` goes byte by byte
/// through several layers; a UUID key (16 bytes) hashes here as two words, which matters when
/// capture, import and export look up thousands of keys per transaction.
struct RowKey: Hashable, Sendable {
    let value: Value

    init(_ value: Value) { self.value = value }

    func hash(into hasher: inout Hasher) {
        switch value {
        case .blob(let data) where data.count == 16:
            data.withUnsafeBytes { bytes in
                hasher.combine(bytes.loadUnaligned(as: UInt64.self))
                hasher.combine(bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
            }
        case .text(let text):
            hasher.combine(text)
        default:
            hasher.combine(value)
        }
    }
}

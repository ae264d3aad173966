import CSQLite
import Foundation
@_spi(SharkDriver) import SharkORM

/// Installs the values a statement reads through `shark_arg(i)` (the values past the
/// library's parameter limit, see ``QueryCompiler``) for the duration of `body`, on the
/// calling thread.
///
/// The C side needs stable bytes for text and blobs: they are copied into one buffer that
/// lives exactly as long as the statement runs.
func withOverflowArguments<T>(
    _ values: [Value], api: UnsafeMutablePointer<shark_sqlite3_api>, _ body: () throws -> T
) rethrows -> T {
    guard !values.isEmpty else { return try body() }
    var byteCount = 0
    for value in values {
        switch value {
        case .text(let text): byteCount += text.utf8.count
        case .blob(let data): byteCount += data.count
        default: break
        }
    }
    let bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, byteCount), alignment: 1)
    defer { bytes.deallocate() }
    var arguments: [shark_argument] = []
    arguments.reserveCapacity(values.count)
    var used = 0
    func copy(_ source: UnsafeRawBufferPointer) -> shark_argument {
        let start = bytes.baseAddress! + used
        if source.count > 0 { start.copyMemory(from: source.baseAddress!, byteCount: source.count) }
        used += source.count
        return shark_argument(
            type: 0, integer: 0, real: 0, bytes: UnsafeRawPointer(start), length: Int32(clamping: source.count))
    }
    for value in values {
        switch value {
        case .null:
            arguments.append(shark_argument(type: SHARK_SQLITE_NULL, integer: 0, real: 0, bytes: nil, length: 0))
        case .integer(let integer):
            arguments.append(
                shark_argument(type: SHARK_SQLITE_INTEGER, integer: integer, real: 0, bytes: nil, length: 0))
        case .real(let real):
            arguments.append(shark_argument(type: SHARK_SQLITE_FLOAT, integer: 0, real: real, bytes: nil, length: 0))
        case .text(var text):
            var argument = text.withUTF8 { copy(UnsafeRawBufferPointer($0)) }
            argument.type = SHARK_SQLITE_TEXT
            arguments.append(argument)
        case .blob(let data):
            var argument = data.withUnsafeBytes { copy($0) }
            argument.type = SHARK_SQLITE_BLOB
            arguments.append(argument)
        }
    }
    return try arguments.withUnsafeBufferPointer { buffer in
        var installed = shark_overflow_arguments(
            api: UnsafePointer(api), values: buffer.baseAddress, count: Int32(buffer.count))
        return try withUnsafePointer(to: &installed) { pointer in
            shark_set_overflow_arguments(pointer)
            defer { shark_set_overflow_arguments(nil) }
            return try body()
        }
    }
}

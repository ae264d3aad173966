import CZlib
import Foundation

/// zlib's deflate, inflate and CRC-32, for the frames of change logs.
enum Zlib {
    static func crc32(_ bytes: some ContiguousBytes) -> UInt32 {
        bytes.withUnsafeBytes { buffer in
            UInt32(
                CZlib.crc32(
                    0, buffer.baseAddress?.assumingMemoryBound(to: Bytef.self), uInt(buffer.count)))
        }
    }

    static func compress(_ input: [UInt8]) throws(SyncError) -> [UInt8] {
        var length = compressBound(uLong(input.count))
        var output = [UInt8](repeating: 0, count: Int(length))
        let status = output.withUnsafeMutableBufferPointer { out in
            input.withUnsafeBufferPointer { source in
                compress2(out.baseAddress, &length, source.baseAddress, uLong(source.count), 1)
            }
        }
        guard status == Z_OK else {
            throw .internalFailure(.compression, "zlib could not compress a frame (status \(status))")
        }
        output.removeLast(output.count - Int(length))
        return output
    }

    /// Inflates `input`, which must hold exactly `expectedLength` bytes once inflated (the
    /// length the frame declares, already checked against the limits): never more is
    /// allocated, so a decompression bomb stops at its declared size.
    static func decompress(_ input: ArraySlice<UInt8>, expectedLength: Int, context: String) throws(SyncError)
        -> [UInt8]
    {
        var output = [UInt8](repeating: 0, count: max(expectedLength, 1))
        var length = uLongf(expectedLength)
        var consumed = uLong(input.count)
        let status = output.withUnsafeMutableBufferPointer { out in
            input.withUnsafeBufferPointer { source in
                uncompress2(out.baseAddress, &length, source.baseAddress, &consumed)
            }
        }
        guard status == Z_OK, Int(length) == expectedLength, Int(consumed) == input.count else {
            throw .corrupt(
                .notInflatable,
                "\(context): its compressed bytes do not inflate to the declared \(expectedLength) bytes")
        }
        output.removeLast(output.count - expectedLength)
        return output
    }
}

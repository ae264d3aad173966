/// `LIKE`, the same on every driver: the memory engine matches with it directly, the SQL
/// drivers put it in place of SQLite's own `like()`, whose answers differ at the edges
/// (it stops at a NUL character and refuses patterns longer than 50,000 bytes).
///
/// - `%` matches any run of characters, `_` exactly one character (a Unicode scalar).
/// - ASCII letters match regardless of case; every other character only itself.
/// - Text is compared as its UTF-8 bytes, NUL characters included, of any length.
///
/// ```swift
/// LikePattern.matches("Grace Hopper", pattern: "g%HOP%")   // true
/// ```
package enum LikePattern {
    package static func matches(_ text: String, pattern: String) -> Bool {
        var text = text
        var pattern = pattern
        return text.withUTF8 { subject in pattern.withUTF8 { matches(subject, pattern: $0) } }
    }

    /// Whether the UTF-8 bytes `subject` match the UTF-8 bytes `pattern`.
    ///
    /// Greedy with one backtracking point (the last `%`), which is enough for `%` and `_`:
    /// time grows with the product of the lengths at worst, never exponentially.
    package static func matches(_ subject: UnsafeBufferPointer<UInt8>, pattern: UnsafeBufferPointer<UInt8>) -> Bool {
        var s = 0
        var p = 0
        var resumePattern = -1
        var resumeSubject = 0
        while s < subject.count {
            if p < pattern.count {
                let token = pattern[p]
                if token == UInt8(ascii: "%") {
                    resumePattern = p
                    resumeSubject = s
                    p += 1
                    continue
                }
                if token == UInt8(ascii: "_") {
                    s += scalarLength(subject, at: s)
                    p += 1
                    continue
                }
                if folded(token) == folded(subject[s]) {
                    s += 1
                    p += 1
                    continue
                }
            }
            guard resumePattern >= 0 else { return false }
            // Let the last `%` take one more character, and try again after it.
            resumeSubject += scalarLength(subject, at: resumeSubject)
            s = resumeSubject
            p = resumePattern + 1
        }
        while p < pattern.count, pattern[p] == UInt8(ascii: "%") { p += 1 }
        return p == pattern.count
    }

    /// An ASCII capital as its small letter; every other byte as it is.
    @inline(__always)
    private static func folded(_ byte: UInt8) -> UInt8 {
        byte >= 65 && byte <= 90 ? byte + 32 : byte
    }

    /// How many bytes the UTF-8 character starting at `index` takes (1 for a stray byte).
    @inline(__always)
    private static func scalarLength(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> Int {
        var end = index + 1
        while end < bytes.count, bytes[end] & 0xC0 == 0x80 { end += 1 }
        return end - index
    }
}

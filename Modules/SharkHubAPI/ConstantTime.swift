import Foundation

/// Whether `a` and `b` hold the same bytes, compared in time that does not depend on where
/// they differ: for secrets and tags, which a timing difference would let a caller guess byte
/// by byte.
///
/// ```swift
/// let same = constantTimeEqual(Data(stored), Data(presented))
/// ```
package func constantTimeEqual(_ a: Data, _ b: Data) -> Bool {
    guard a.count == b.count else { return false }
    var difference: UInt8 = 0
    for (x, y) in zip(a, b) { difference |= x ^ y }
    return difference == 0
}

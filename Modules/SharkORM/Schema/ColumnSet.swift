/// A small set of column positions: one machine word for the first 64 columns, a sorted
/// array beyond.
///
/// Iterating it yields the positions in ascending order without allocating, and it hashes as
/// one word in the common case: drivers key their prepared `UPDATE` statements by it.
///
/// ```swift
/// var columns = ColumnSet()
/// columns.insert(3)
/// columns.insert(1)
/// Array(columns)   // [1, 3]
/// ```
public struct ColumnSet: Sendable, Hashable, Sequence {
    /// Bit `n` set: column `n` (n < 64) is a member.
    @usableFromInline var low: UInt64 = 0
    /// Members from 64 up, ascending.
    @usableFromInline var high: [Int32] = []

    public init() {}

    @inlinable
    public mutating func insert(_ column: Int32) {
        if column < 64 {
            low |= 1 << UInt64(column)
        } else if !high.contains(column) {
            high.insert(column, at: high.firstIndex { $0 > column } ?? high.endIndex)
        }
    }

    public var isEmpty: Bool { low == 0 && high.isEmpty }

    /// How many columns are members.
    public var count: Int { low.nonzeroBitCount + high.count }

    public func contains(_ column: Int32) -> Bool {
        column < 64 ? low & (1 << UInt64(column)) != 0 : high.contains(column)
    }

    /// The members in ascending order.
    public var members: [Int32] { Array(self) }

    /// The members of `low`, then of `high`, ascending.
    public struct Iterator: IteratorProtocol {
        var bits: UInt64
        let high: [Int32]
        var highPosition = 0

        public mutating func next() -> Int32? {
            if bits != 0 {
                let column = Int32(bits.trailingZeroBitCount)
                bits &= bits - 1
                return column
            }
            guard highPosition < high.count else { return nil }
            defer { highPosition += 1 }
            return high[highPosition]
        }
    }

    public func makeIterator() -> Iterator { Iterator(bits: low, high: high) }

    public var underestimatedCount: Int { count }
}

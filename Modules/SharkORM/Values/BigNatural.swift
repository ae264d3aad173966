/// A natural number of any size: what exact sums and averages need past 64 bits, and no more
/// (add, subtract, multiply and divide by a word, shift, compare, decimal digits).
///
/// Little-endian 64-bit limbs with no zero limb at the top, so zero is no limbs at all.
///
/// ```swift
/// var n = BigNatural(UInt64.max)
/// n.add(BigNatural(1))
/// print(n.decimalDigits)   // 18446744073709551616
/// ```
package struct BigNatural: Sendable, Hashable, Comparable {
    package private(set) var limbs: [UInt64]

    package init() { limbs = [] }

    package init(_ value: UInt64) { limbs = value == 0 ? [] : [value] }

    /// The number the decimal digits spell (ASCII digits only; anything else counts as 0).
    package init<Digits: Collection>(decimalDigits digits: Digits) where Digits.Element == UInt8 {
        self.init()
        var chunk: UInt64 = 0
        var chunkDigits = 0
        for digit in digits {
            let value = digit &- UInt8(ascii: "0")
            chunk = chunk &* 10 &+ UInt64(value < 10 ? value : 0)
            chunkDigits += 1
            if chunkDigits == 19 {
                multiply(by: 10_000_000_000_000_000_000)
                add(chunk)
                chunk = 0
                chunkDigits = 0
            }
        }
        if chunkDigits > 0 {
            multiply(by: Self.powerOfTen(chunkDigits))
            add(chunk)
        }
    }

    package var isZero: Bool { limbs.isEmpty }

    /// How many bits it takes: the position of the highest set bit, plus one (0 for zero).
    package var bitWidth: Int {
        guard let top = limbs.last else { return 0 }
        return limbs.count * 64 - top.leadingZeroBitCount
    }

    /// The value when it fits in 64 bits.
    package var word: UInt64? {
        limbs.count <= 1 ? (limbs.first ?? 0) : nil
    }

    /// Whether bit `index` (0 the lowest) is set.
    package func bit(_ index: Int) -> Bool {
        let limb = index / 64
        return limb < limbs.count && limbs[limb] & (1 << UInt64(index % 64)) != 0
    }

    /// Whether any of the lowest `count` bits is set.
    package func hasBits(below count: Int) -> Bool {
        let whole = min(count / 64, limbs.count)
        if limbs[..<whole].contains(where: { $0 != 0 }) { return true }
        let rest = count % 64
        return whole < limbs.count && rest > 0 && limbs[whole] & ((1 << UInt64(rest)) - 1) != 0
    }

    package static func < (lhs: BigNatural, rhs: BigNatural) -> Bool {
        if lhs.limbs.count != rhs.limbs.count { return lhs.limbs.count < rhs.limbs.count }
        for index in stride(from: lhs.limbs.count - 1, through: 0, by: -1) where lhs.limbs[index] != rhs.limbs[index] {
            return lhs.limbs[index] < rhs.limbs[index]
        }
        return false
    }

    // MARK: Arithmetic

    package mutating func add(_ value: UInt64) {
        addCarry(value, at: 0)
    }

    /// Adds `value` at limb `start` and carries on as far as it goes.
    private mutating func addCarry(_ value: UInt64, at start: Int) {
        var carry = value
        var index = start
        while carry != 0 {
            if index == limbs.count {
                limbs.append(carry)
                return
            }
            let (sum, overflow) = limbs[index].addingReportingOverflow(carry)
            limbs[index] = sum
            carry = overflow ? 1 : 0
            index += 1
        }
    }

    /// Adds `value << shift`: the shifted word lands in at most two limbs.
    package mutating func add(_ value: UInt64, shiftedLeftBy shift: Int) {
        guard value != 0 else { return }
        let limb = shift / 64
        let offset = UInt64(shift % 64)
        let low = value << offset
        let high = offset == 0 ? 0 : value >> (64 - offset)
        if limbs.count < limb + 2 { limbs.append(contentsOf: repeatElement(0, count: limb + 2 - limbs.count)) }
        let (first, firstCarry) = limbs[limb].addingReportingOverflow(low)
        limbs[limb] = first
        let (second1, overflow1) = limbs[limb + 1].addingReportingOverflow(high)
        let (second2, overflow2) = second1.addingReportingOverflow(firstCarry ? 1 : 0)
        limbs[limb + 1] = second2
        addCarry((overflow1 ? 1 : 0) + (overflow2 ? 1 : 0), at: limb + 2)
        trim()
    }

    package mutating func add(_ other: BigNatural) {
        if limbs.count < other.limbs.count {
            limbs.append(contentsOf: repeatElement(0, count: other.limbs.count - limbs.count))
        }
        var carry: UInt64 = 0
        for index in 0..<limbs.count {
            guard index < other.limbs.count || carry != 0 else { break }
            let addend = index < other.limbs.count ? other.limbs[index] : 0
            let (sum1, overflow1) = limbs[index].addingReportingOverflow(addend)
            let (sum2, overflow2) = sum1.addingReportingOverflow(carry)
            limbs[index] = sum2
            carry = (overflow1 ? 1 : 0) + (overflow2 ? 1 : 0)
        }
        if carry != 0 { limbs.append(carry) }
    }

    /// Subtracts a number no larger than this one.
    package mutating func subtract(_ other: BigNatural) {
        precondition(!(self < other), "BigNatural.subtract would go below zero")
        var borrow: UInt64 = 0
        for index in 0..<limbs.count {
            guard index < other.limbs.count || borrow != 0 else { break }
            let subtrahend = index < other.limbs.count ? other.limbs[index] : 0
            let (difference1, overflow1) = limbs[index].subtractingReportingOverflow(subtrahend)
            let (difference2, overflow2) = difference1.subtractingReportingOverflow(borrow)
            limbs[index] = difference2
            borrow = (overflow1 ? 1 : 0) + (overflow2 ? 1 : 0)
        }
        trim()
    }

    package mutating func multiply(by factor: UInt64) {
        guard factor != 1 else { return }
        guard factor != 0 else { return limbs = [] }
        var carry: UInt64 = 0
        for index in 0..<limbs.count {
            let (high, low) = limbs[index].multipliedFullWidth(by: factor)
            let (sum, overflow) = low.addingReportingOverflow(carry)
            limbs[index] = sum
            carry = high &+ (overflow ? 1 : 0)
        }
        if carry != 0 { limbs.append(carry) }
    }

    /// Multiplies by 10 to the `exponent` (not negative).
    package mutating func multiply(byPowerOfTen exponent: Int) {
        var left = exponent
        while left >= 19 {
            multiply(by: 10_000_000_000_000_000_000)
            left -= 19
        }
        if left > 0 { multiply(by: Self.powerOfTen(left)) }
    }

    /// Divides in place by a non-zero word and returns the remainder.
    @discardableResult
    package mutating func divide(by divisor: UInt64) -> UInt64 {
        precondition(divisor != 0, "BigNatural.divide by zero")
        var remainder: UInt64 = 0
        for index in stride(from: limbs.count - 1, through: 0, by: -1) {
            let (quotient, rest) = divisor.dividingFullWidth((remainder, limbs[index]))
            limbs[index] = quotient
            remainder = rest
        }
        trim()
        return remainder
    }

    /// The product with another number (schoolbook: the operands here have a few limbs).
    package func multiplied(by other: BigNatural) -> BigNatural {
        guard !isZero, !other.isZero else { return BigNatural() }
        var result = [UInt64](repeating: 0, count: limbs.count + other.limbs.count)
        for (i, a) in limbs.enumerated() {
            var carry: UInt64 = 0
            for (j, b) in other.limbs.enumerated() {
                let (high, low) = a.multipliedFullWidth(by: b)
                let (sum1, overflow1) = result[i + j].addingReportingOverflow(low)
                let (sum2, overflow2) = sum1.addingReportingOverflow(carry)
                result[i + j] = sum2
                carry = high &+ (overflow1 ? 1 : 0) &+ (overflow2 ? 1 : 0)
            }
            result[i + other.limbs.count] = carry
        }
        var product = BigNatural()
        product.limbs = result
        product.trim()
        return product
    }

    /// The quotient and remainder of dividing by a non-zero number, bit by bit (the numbers
    /// here are a few hundred bits at most).
    package func quotientAndRemainder(dividingBy divisor: BigNatural) -> (quotient: BigNatural, remainder: BigNatural) {
        precondition(!divisor.isZero, "BigNatural division by zero")
        if let word = divisor.word {
            var quotient = self
            let remainder = quotient.divide(by: word)
            return (quotient, BigNatural(remainder))
        }
        var quotient = BigNatural()
        var remainder = BigNatural()
        for index in stride(from: bitWidth - 1, through: 0, by: -1) {
            remainder = remainder.shiftedLeft(by: 1)
            if bit(index) { remainder.add(1) }
            quotient = quotient.shiftedLeft(by: 1)
            if !(remainder < divisor) {
                remainder.subtract(divisor)
                quotient.add(1)
            }
        }
        return (quotient, remainder)
    }

    package func shiftedLeft(by shift: Int) -> BigNatural {
        guard !isZero, shift > 0 else { return self }
        var result = BigNatural()
        result.limbs = Array(repeating: 0, count: shift / 64) + limbs
        let offset = UInt64(shift % 64)
        guard offset != 0 else { return result }
        var carry: UInt64 = 0
        for index in (shift / 64)..<result.limbs.count {
            let limb = result.limbs[index]
            result.limbs[index] = (limb << offset) | carry
            carry = limb >> (64 - offset)
        }
        if carry != 0 { result.limbs.append(carry) }
        return result
    }

    package func shiftedRight(by shift: Int) -> BigNatural {
        guard shift > 0 else { return self }
        let whole = shift / 64
        guard whole < limbs.count else { return BigNatural() }
        var result = BigNatural()
        result.limbs = Array(limbs[whole...])
        let offset = UInt64(shift % 64)
        if offset != 0 {
            for index in 0..<result.limbs.count {
                let next = index + 1 < result.limbs.count ? result.limbs[index + 1] : 0
                result.limbs[index] = (result.limbs[index] >> offset) | (next << (64 - offset))
            }
        }
        result.trim()
        return result
    }

    /// The decimal digits, most significant first ("0" for zero).
    package var decimalDigits: String {
        guard !isZero else { return "0" }
        var rest = self
        var chunks: [UInt64] = []
        while !rest.isZero { chunks.append(rest.divide(by: 10_000_000_000_000_000_000)) }
        var text = String(chunks.removeLast())
        for chunk in chunks.reversed() {
            let digits = String(chunk)
            text += String(repeating: "0", count: 19 - digits.count) + digits
        }
        return text
    }

    private mutating func trim() {
        while limbs.last == 0 { limbs.removeLast() }
    }

    /// 10 to the `exponent`, for exponents 0 to 19.
    static func powerOfTen(_ exponent: Int) -> UInt64 {
        var power: UInt64 = 1
        for _ in 0..<exponent { power &*= 10 }
        return power
    }
}

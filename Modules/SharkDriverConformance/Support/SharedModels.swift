import Foundation
import SharkORM

/// Prices in decimals: the value rules' and the decimal checks' model.
@Model
final class Price {
    var label: String = ""
    var amount: Decimal = 0
    var discount: Decimal?

    init(_ label: String, _ amount: String, discount: String? = nil) {
        self.label = label
        self.amount = Decimal(string: amount)!
        self.discount = discount.flatMap { Decimal(string: $0) }
    }
}

/// A seeded random number generator (SplitMix64): the same sequence for the same seed.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

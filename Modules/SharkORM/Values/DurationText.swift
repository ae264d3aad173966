extension Duration {
    /// The duration as a person reads it, with three significant digits and the unit that
    /// fits: `840 ns`, `19.6 µs`, `3.52 ms`, `1.25 s` (Swift's own description is
    /// `1.96e-05 seconds`). For traces, logs and tools.
    package var readableText: String {
        let (seconds, attoseconds) = components
        let total = Double(seconds) + Double(attoseconds) / 1e18
        let magnitude = abs(total)
        let (value, unit): (Double, String) =
            switch magnitude {
            case ..<1e-6: (total * 1e9, "ns")
            case ..<1e-3: (total * 1e6, "µs")
            case ..<1: (total * 1e3, "ms")
            default: (total, "s")
            }
        // A nanosecond is the clock's grain: no decimals below it.
        return (unit == "ns" ? String(Int64(value.rounded())) : Self.threeDigits(value)) + " " + unit
    }

    /// `value` with three significant digits (whole numbers from 100 on).
    private static func threeDigits(_ value: Double) -> String {
        let magnitude = abs(value)
        let decimals = magnitude >= 100 ? 0 : magnitude >= 10 ? 1 : 2
        var text = String(Int64((magnitude * pow10(decimals)).rounded()))
        if decimals > 0 {
            while text.count <= decimals { text = "0" + text }
            text.insert(".", at: text.index(text.endIndex, offsetBy: -decimals))
        }
        return (value < 0 ? "-" : "") + text
    }

    private static func pow10(_ exponent: Int) -> Double {
        (0..<exponent).reduce(1) { value, _ in value * 10 }
    }
}

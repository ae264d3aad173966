import Foundation

/// What a column accepts: the one rule every write that does not come from a model object
/// is held to — the row calls (`insertRow`, `updateRow`), a sync import, and the values an
/// engine computes for `updateAll` — so that nothing is ever stored that the model cannot
/// read back as it was. (A model object's own values are checked as they are written: see
/// ``ColumnConvertible``.)
extension ColumnSchema {
    /// The integers the column accepts, from its ``bitWidth`` and logical type: `Int8`'s
    /// -128...127, `UInt8`'s 0...255, `Bool`'s 0...1; `UInt64` and `UInt` up to `Int64.max`.
    /// Nil for a 64-bit signed integer, and for columns of other types.
    ///
    /// ```swift
    /// let level = ColumnSchema(name: "level", type: .integer, isNullable: false, logicalType: .integer, bitWidth: 8)
    /// print(level.integerRange!)   // -128...127
    /// ```
    public var integerRange: ClosedRange<Int64>? {
        guard type == .integer, let bitWidth, bitWidth >= 1, bitWidth <= 64 else { return nil }
        switch logicalType {
        case .bool?: return 0...1
        case .unsignedInteger?:
            return bitWidth >= 63 ? 0...Int64.max : 0...((1 << Int64(bitWidth)) - 1)
        case .integer?:
            guard bitWidth < 64 else { return nil }
            let half = Int64(1) << Int64(bitWidth - 1)
            return -half...(half - 1)
        default: return nil
        }
    }

    /// `value` as this column stores it on every driver alike, or nil when it does not fit
    /// (see ``storedValue(_:computed:)``). A sync import keeps what does not fit for later.
    @_spi(SharkReplication) public func fitting(_ value: Value) -> Value? {
        try? storedValue(value)
    }

    /// `value` as this column stores it, or ``SharkError/invalidValue(_:)`` saying why it
    /// does not fit.
    ///
    /// - NULL needs an optional column.
    /// - An integer must be within ``integerRange``; in a real column it becomes that real,
    ///   in a decimal column that decimal.
    /// - A real must not be NaN (an optional property would read it back as nil); in a
    ///   `Float` column it must be a `Float`.
    /// - Text in a decimal column must be a decimal number (stored in its sortable form); in
    ///   a URL column, a URL.
    /// - A blob in a UUID column must be 16 bytes.
    ///
    /// `computed`: the value is an engine's result for `updateAll`, so it is rounded where the
    /// property's type would round it (a real to `Float`, an integral real to an integer)
    /// rather than refused for it; out of range is refused all the same.
    package func storedValue(_ value: Value, computed: Bool = false) throws(SharkError) -> Value {
        switch (value, type) {
        case (.null, _):
            guard isNullable else { throw misfit("cannot be NULL") }
            return .null
        case (.integer(let integer), .integer):
            if let range = integerRange, !range.contains(integer) {
                throw misfit("\(integer) is out of its range \(range.lowerBound)...\(range.upperBound)")
            }
            return value
        case (.real(let real), .integer) where computed:
            guard real == real.rounded(), let integer = Int64(exactly: real) else {
                throw misfit("\(real) is not an integer")
            }
            return try storedValue(.integer(integer), computed: true)
        case (.integer(let integer), .real):
            let real = Double(integer)
            guard computed || Int64(exactly: real) == integer else {
                throw misfit("\(integer) has no exact Double")
            }
            return try storedValue(.real(real), computed: computed)
        case (.real(let real), .real):
            guard !real.isNaN else { throw misfit("NaN cannot be stored (nil would read back)", .notANumberStored) }
            guard bitWidth == 32 else { return .real(real) }
            let single = Float(real)
            if computed {
                guard single.isFinite || !real.isFinite else { throw misfit("\(real) is beyond Float's range") }
                return .real(Double(single))
            }
            guard Double(single) == real else { throw misfit("\(real) is not a Float") }
            return .real(real)
        case (.text(let text), .text) where logicalType == .sortableDecimal:
            guard let decimal = DecimalText.decode(text), !decimal.isNaN else {
                throw misfit("\(value) is not a decimal number")
            }
            guard computed || ExactDecimal(storedText: text)?.normalized == ExactDecimal(decimal).normalized else {
                throw misfit("\(value) has more digits than a Decimal holds")
            }
            return .text(DecimalText.encode(decimal))
        case (.integer(let integer), .text) where logicalType == .sortableDecimal:
            return .text(DecimalText.encode(Decimal(integer)))
        case (.text(let text), .text) where logicalType == .url:
            guard URL(string: text) != nil else { throw misfit("\(value) is not a URL") }
            return value
        case (.blob(let bytes), .blob) where logicalType == .uuid:
            guard bytes.count == 16 else { throw misfit("a UUID is 16 bytes, not \(bytes.count)") }
            return value
        default:
            guard value.storageType == type else {
                throw misfit("holds \(type.rawValue) values, not \(value.storageType?.rawValue ?? "NULL")")
            }
            return value
        }
    }

    private func misfit(_ reason: String, _ kind: SharkError.ValueReason = .doesNotFitColumn) -> SharkError {
        SharkError.invalidValue(kind, "\(name): \(reason)")
    }
}

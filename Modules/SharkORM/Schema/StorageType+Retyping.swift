extension StorageType {
    /// Whether `value`, stored in a column of this storage class, survives the column being
    /// retyped to `target` unchanged: the rule every driver's automatic migration applies
    /// before it converts a column (SQL drivers with SQLite's `CAST`, the memory engine with
    /// the same conversions), refusing the change when any stored value would not survive.
    ///
    /// Integers become text and text becomes bytes losslessly; an integer survives as a real
    /// when the real holds it exactly, a real as an integer when it is whole, a real as text
    /// when the text reads back as the same real, text as a number when the number prints back
    /// as the same text; anything to or from a blob otherwise only when it is NULL. A value
    /// whose storage class differs from the column's (SQLite lets a column hold any) is judged
    /// by its own class.
    ///
    /// ```swift
    /// StorageType.real.keeps(.real(3.0), whenRetypedTo: .integer)   // true
    /// StorageType.real.keeps(.real(3.5), whenRetypedTo: .integer)   // false
    /// ```
    public func keeps(_ value: Value, whenRetypedTo target: StorageType) -> Bool {
        if value.isNull { return true }
        switch (self, target) {
        case (.integer, .text), (.text, .blob):
            return true
        case (.integer, .real):
            guard case .integer(let integer) = value else { return true }
            return Int64(exactly: Double(integer)) == integer
        case (.real, .integer):
            guard case .real(let real) = value else { return true }
            return Int64(exactly: real) != nil
        case (.real, .text):
            guard case .real(let real) = value else { return true }
            return Value.text(value.coercedToText()).coercedToDouble() == real
        case (.text, .integer):
            guard case .text(let text) = value else { return true }
            return String(value.coercedToInt64()).utf8.elementsEqual(text.utf8)
        case (.text, .real):
            guard case .text(let text) = value else { return true }
            return Value.real(value.coercedToDouble()).coercedToText().utf8.elementsEqual(text.utf8)
                || String(value.coercedToInt64()).utf8.elementsEqual(text.utf8)
        default:
            return self == target
        }
    }
}

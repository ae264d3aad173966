/// The hexadecimal digits of `bytes`, two per byte: the one encoder every module uses (blob
/// literals, descriptions of blob values, SQLCipher's raw-key form).
package func hexadecimal(_ bytes: some Sequence<UInt8>, uppercase: Bool = false) -> String {
    let digits = Array((uppercase ? "0123456789ABCDEF" : "0123456789abcdef").utf8)
    var text: [UInt8] = []
    text.reserveCapacity(bytes.underestimatedCount * 2)
    for byte in bytes {
        text.append(digits[Int(byte >> 4)])
        text.append(digits[Int(byte & 15)])
    }
    return String(decoding: text, as: UTF8.self)
}

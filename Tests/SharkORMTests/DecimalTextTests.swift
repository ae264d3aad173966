import Foundation
@_spi(SharkDriver) import SharkORM
import Testing

@testable import SharkDriverConformance

/// The text Decimal is stored as: it sorts as the numbers do, and reads back exactly.
@Suite("Decimal as sortable text")
struct DecimalTextTests {
    @Test("the sortable text round-trips and refuses what it cannot read")
    func encoding() {
        for text in DecimalTests.amounts + ["1e-100", "-99999999999999999999999999999999999999", "0.000000001"] {
            let value = Decimal(string: text)!
            #expect(DecimalText.decode(DecimalText.encode(value)) == value, "\(text)")
        }
        let sorted = DecimalTests.amounts.map { Decimal(string: $0)! }.sorted()
        #expect(sorted.map(DecimalText.encode) == sorted.map(DecimalText.encode).sorted())
        for bad in ["", "P", "P12", "Pabc1", "N5011", "N501x~", "O1", "Q1", "--1", "1.2.3"] {
            #expect(DecimalText.decode(bad) == nil, "\(bad)")
        }
        #expect(DecimalText.decode("10.5") == Decimal(string: "10.5"))  // plain text still reads
    }
}

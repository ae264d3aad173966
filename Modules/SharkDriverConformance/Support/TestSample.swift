import Foundation
import Testing

/// A test argument shown by a short summary in test names and logs (`String(1,000,000 × "x")`,
/// `Data(1,048,576 bytes)`), never by its whole value: a 1 MB argument printed in every
/// test case's name made the test log megabytes long.
struct TestSample<Value: Sendable>: Sendable, CustomTestStringConvertible {
    let value: Value
    let testDescription: String
}

extension TestSample where Value == String {
    init(_ value: String) {
        self.value = value
        let escaped = value.unicodeScalars.map {
            $0.properties.generalCategory == .control ? $0.escaped(asASCII: true) : String($0)
        }
        .joined()
        if escaped.count <= 60 {
            testDescription = "\"\(escaped)\""
        } else if let first = value.first, value.allSatisfy({ $0 == first }) {
            testDescription = "String(\(value.count.formatted()) × \"\(first)\")"
        } else {
            testDescription = "String(\(value.count.formatted()) characters: \"\(escaped.prefix(40))…\")"
        }
    }
}

extension TestSample where Value == Data {
    init(_ value: Data) {
        self.value = value
        testDescription = "Data(\(value.count.formatted()) bytes)"
    }
}

import Foundation
import SharkORM

/// Every supported property type, non-optional.
@Model
final class AllTypes {
    var bool: Bool = false
    var int: Int = 0
    var int8: Int8 = 0
    var int16: Int16 = 0
    var int32: Int32 = 0
    var int64: Int64 = 0
    var uint: UInt = 0
    var uint8: UInt8 = 0
    var uint16: UInt16 = 0
    var uint32: UInt32 = 0
    var uint64: UInt64 = 0
    var float: Float = 0
    var double: Double = 0
    var string: String = ""
    var data: Data = Data()
    var date: Date = Date(timeIntervalSinceReferenceDate: 0)
    var uuid: UUID = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
    var url: URL = URL(string: "https://example.com")!
    var decimal: Decimal = 0
    var color: Color = .red
    var size: Size = .small
    var point: Point = Point(x: 0, y: 0)
    var tags: [String] = []
}

/// Every supported property type, optional.
@Model
final class OptionalTypes {
    var bool: Bool?
    var int: Int?
    var int64: Int64?
    var uint64: UInt64?
    var double: Double?
    var float: Float?
    var string: String?
    var data: Data?
    var date: Date?
    var uuid: UUID?
    var url: URL?
    var decimal: Decimal?
    var color: Color?
    var size: Size?
    var point: Point?
}

enum Color: String, Codable, Sendable { case red, green, blue }
enum Size: Int, Sendable { case small = 1, medium = 2, large = 3 }
struct Point: Codable, Equatable, Sendable {
    var x: Double
    var y: Double
}

/// The everyday model: an auto-assigned key, indexes, a unique index, hooks that can veto.
@Model
final class Person {
    var name: String = ""
    var age: Int = 0
    var email: String?
    var payrollNumber: Int = 0
    @Transient var scratch = 0
    @Transient var vetoInsert = false
    @Transient var vetoUpdate = false
    @Transient var vetoDelete = false
    @Transient var events: [String] = []

    static let indexes: [Index<Person>] = [.on(\.name), .on(\.age), .unique(\.payrollNumber)]

    init(name: String, age: Int = 0, payrollNumber: Int = 0) {
        self.name = name
        self.age = age
        self.payrollNumber = payrollNumber
    }

    func willInsert() -> Bool {
        events.append("willInsert")
        return !vetoInsert
    }
    func willUpdate() -> Bool {
        events.append("willUpdate")
        return !vetoUpdate
    }
    func willDelete() -> Bool {
        events.append("willDelete")
        return !vetoDelete
    }
    func didInsert() { events.append("didInsert") }
    func didUpdate() { events.append("didUpdate") }
    func didDelete() { events.append("didDelete") }
}

/// A UUID-keyed model: keys assigned by the app (v7 by default).
@Model
final class Note {
    var id: UUID
    var text: String = ""

    init(text: String) {
        self.id = UUID.v7()
        self.text = text
    }
}

/// A String-keyed model, stored under another entity name.
@Model(entity: "settings")
final class Setting {
    var id: String
    var value: String = ""

    init(id: String, value: String) {
        self.id = id
        self.value = value
    }
}

/// A model with ten persisted columns besides the key, for bulk tests.
@Model
final class Wide {
    var a: Int = 0
    var b: Int = 0
    var c: Double = 0
    var d: Double = 0
    var e: String = ""
    var f: String = ""
    var g: Bool = false
    var h: Int64 = 0
    var i: String?
    var j: Date = Date(timeIntervalSinceReferenceDate: 0)
}

/// Properties declared without type annotations, types inferred from their literals.
@Model
final class Inferred {
    var count = 0
    var ratio = 0.5
    var label = "x"
    var flag = true
    var created = Date(timeIntervalSinceReferenceDate: 1)
}

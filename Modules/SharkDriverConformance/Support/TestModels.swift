import Foundation
@_spi(SharkDriver) import SharkORM

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

/// More than 64 persisted columns: change tracking beyond its one-word fast path.
@Model
final class VeryWide {
    var p1: Int = 1
    var p2: Int = 2
    var p3: Int = 3
    var p4: Int = 4
    var p5: Int = 5
    var p6: Int = 6
    var p7: Int = 7
    var p8: Int = 8
    var p9: Int = 9
    var p10: Int = 10
    var p11: Int = 11
    var p12: Int = 12
    var p13: Int = 13
    var p14: Int = 14
    var p15: Int = 15
    var p16: Int = 16
    var p17: Int = 17
    var p18: Int = 18
    var p19: Int = 19
    var p20: Int = 20
    var p21: Int = 21
    var p22: Int = 22
    var p23: Int = 23
    var p24: Int = 24
    var p25: Int = 25
    var p26: Int = 26
    var p27: Int = 27
    var p28: Int = 28
    var p29: Int = 29
    var p30: Int = 30
    var p31: Int = 31
    var p32: Int = 32
    var p33: Int = 33
    var p34: Int = 34
    var p35: Int = 35
    var p36: Int = 36
    var p37: Int = 37
    var p38: Int = 38
    var p39: Int = 39
    var p40: Int = 40
    var p41: Int = 41
    var p42: Int = 42
    var p43: Int = 43
    var p44: Int = 44
    var p45: Int = 45
    var p46: Int = 46
    var p47: Int = 47
    var p48: Int = 48
    var p49: Int = 49
    var p50: Int = 50
    var p51: Int = 51
    var p52: Int = 52
    var p53: Int = 53
    var p54: Int = 54
    var p55: Int = 55
    var p56: Int = 56
    var p57: Int = 57
    var p58: Int = 58
    var p59: Int = 59
    var p60: Int = 60
    var p61: Int = 61
    var p62: Int = 62
    var p63: Int = 63
    var p64: Int = 64
    var p65: Int = 65
    var p66: Int = 66
    var p67: Int = 67
    var p68: Int = 68
    var p69: Int = 69
    var p70: Int = 70
}

/// An index on a transient property: a declaration mistake the store must refuse.
@Model
final class BadIndex {
    var name: String = ""
    @Transient var scratch = 0
    static let indexes: [Index<BadIndex>] = [.on(\.scratch)]
}

/// A UUID key with no initial value and no initializer: the macro gives it a v7 UUID.
@Model
final class Tagged {
    var id: UUID
    var label: String = ""
}

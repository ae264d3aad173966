import Foundation
@_spi(SharkDriver) import SharkORM
import Testing

/// Every supported type goes in and comes back unchanged, extremes included.
@Suite("Round trip of every supported type")
struct RoundTripTests {
    private func roundTrip(_ object: AllTypes, on driver: ConformanceDriver) throws -> AllTypes {
        let store = try driver.makeStore()
        defer { store.close() }
        try store.commit(object)
        return try #require(try store.find(AllTypes.self, id: object.id))
    }

    func defaults(driver: ConformanceDriver) throws {
        let back = try roundTrip(AllTypes(), on: driver)
        #expect(back.bool == false && back.int == 0 && back.string == "" && back.data.isEmpty)
        #expect(back.color == .red && back.size == .small && back.point == Point(x: 0, y: 0) && back.tags.isEmpty)
    }

    func integerExtremes(driver: ConformanceDriver) throws {
        for useMax in [true, false] {
            let object = AllTypes()
            object.int = useMax ? .max : .min
            object.int8 = useMax ? .max : .min
            object.int16 = useMax ? .max : .min
            object.int32 = useMax ? .max : .min
            object.int64 = useMax ? .max : .min
            // UInt and UInt64 go up to Int64.max, the largest integer a store holds.
            object.uint = useMax ? UInt(Int64.max) : .min
            object.uint8 = useMax ? .max : .min
            object.uint16 = useMax ? .max : .min
            object.uint32 = useMax ? .max : .min
            object.uint64 = useMax ? UInt64(Int64.max) : .min
            object.bool = useMax
            let back = try roundTrip(object, on: driver)
            #expect(back.int == object.int && back.int8 == object.int8 && back.int16 == object.int16)
            #expect(back.int32 == object.int32 && back.int64 == object.int64)
            #expect(back.uint == object.uint && back.uint8 == object.uint8 && back.uint16 == object.uint16)
            #expect(back.uint32 == object.uint32 && back.uint64 == object.uint64 && back.bool == object.bool)
        }
    }

    func unsignedAboveInt64(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        for value in [UInt64(Int64.max) + 1, .max] {
            let object = AllTypes()
            object.uint64 = value
            #expect(throws: SharkError.self) { try store.commit(object) }
            let other = AllTypes()
            other.uint = UInt(value)
            #expect(throws: SharkError.self) { try store.commit(other) }
            let optional = OptionalTypes()
            optional.uint64 = value
            #expect(throws: SharkError.self) { try store.commit(optional) }
        }
        #expect(try AllTypes.query(in: store).count() == 0)
        #expect(try OptionalTypes.query(in: store).count() == 0)
        // Compared with such a value, every stored one is smaller.
        let stored = AllTypes()
        stored.uint64 = UInt64(Int64.max)
        try store.commit(stored)
        #expect(try AllTypes.query(in: store).where(\.uint64 < UInt64.max).count() == 1)
        #expect(try AllTypes.query(in: store).where(\.uint64 >= UInt64(Int64.max) + 1).count() == 0)
        #expect(try AllTypes.query(in: store).where(\.uint64 == UInt64.max).count() == 0)
    }

    /// Each value round-trips alone, in a store of its own.
    func floatingPoint(driver: ConformanceDriver) throws {
        for value in [
            0.0, -0.0, 1.5, -1e-300, Double.leastNonzeroMagnitude, Double.greatestFiniteMagnitude, .infinity,
            -.infinity, .pi,
        ] {
            let object = AllTypes()
            object.double = value
            object.float = Float(value)
            let back = try roundTrip(object, on: driver)
            #expect(back.double.bitPattern == value.bitPattern, "\(value)")
            #expect(back.float.bitPattern == Float(value).bitPattern, "\(value)")
        }
    }

    func notANumber(driver: ConformanceDriver) throws {
        let object = AllTypes()
        object.double = .nan
        object.float = .nan
        let back = try roundTrip(object, on: driver)
        #expect(back.double.isNaN && back.float.isNaN)
    }

    static let stringSamples = [
        "", String(repeating: "x", count: 1_000_000), "👩🏽‍💻 héllo wörld 🦈", "a\u{0}b\u{0}", "'quoted' \"double\"",
    ].map(TestSample.init)

    func strings(driver: ConformanceDriver) throws {
        for sample in Self.stringSamples {
            let object = AllTypes()
            object.string = sample.value
            #expect(try roundTrip(object, on: driver).string == sample.value, "\(sample.testDescription)")
        }
    }

    static let blobSamples = [
        Data(), Data((0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) }), Data((0...255).map(UInt8.init)),
    ].map(TestSample.init)

    func blobs(driver: ConformanceDriver) throws {
        for sample in Self.blobSamples {
            let object = AllTypes()
            object.data = sample.value
            #expect(try roundTrip(object, on: driver).data == sample.value, "\(sample.testDescription)")
        }
    }

    func dates(driver: ConformanceDriver) throws {
        let samples = [
            Date(timeIntervalSinceReferenceDate: 786_123_456.123_456_7), Date(timeIntervalSince1970: 0.000_001),
            Date.distantPast, Date.distantFuture, Date(),
        ]
        for sample in samples {
            let object = AllTypes()
            object.date = sample
            let back = try roundTrip(object, on: driver)
            #expect(back.date == sample)
        }
    }

    func foundationValues(driver: ConformanceDriver) throws {
        let object = AllTypes()
        object.uuid = UUID()
        object.url = URL(string: "https://example.com/a%20b?q=1#frag")!
        object.decimal = Decimal(string: "12345678901234567890.123456789")!
        object.color = .blue
        object.size = .large
        object.point = Point(x: -1.25, y: 1e10)
        object.tags = ["a", "", "ü"]
        let back = try roundTrip(object, on: driver)
        #expect(back.uuid == object.uuid && back.url == object.url && back.decimal == object.decimal)
        #expect(back.color == .blue && back.size == .large && back.point == object.point && back.tags == object.tags)
    }

    func optionals(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        let empty = OptionalTypes()
        try store.commit(empty)
        let emptyBack = try #require(try store.find(OptionalTypes.self, id: empty.id))
        #expect(emptyBack.bool == nil && emptyBack.int == nil && emptyBack.string == nil && emptyBack.data == nil)
        #expect(emptyBack.date == nil && emptyBack.uuid == nil && emptyBack.url == nil && emptyBack.decimal == nil)
        #expect(emptyBack.color == nil && emptyBack.size == nil && emptyBack.point == nil && emptyBack.double == nil)

        let full = OptionalTypes()
        full.bool = false
        full.int = 0
        full.int64 = .min
        full.uint64 = UInt64(Int64.max)
        full.double = -0.0
        full.float = 1.5
        full.string = ""
        full.data = Data()
        full.date = Date(timeIntervalSinceReferenceDate: 0.000_1)
        full.uuid = UUID()
        full.url = URL(string: "file:///tmp/x")
        full.decimal = 0
        full.color = .green
        full.size = .medium
        full.point = Point(x: 1, y: 2)
        try store.commit(full)
        let back = try #require(try store.find(OptionalTypes.self, id: full.id))
        #expect(back.bool == false && back.int == 0 && back.int64 == .min && back.uint64 == UInt64(Int64.max))
        #expect(back.double?.bitPattern == (-0.0).bitPattern && back.float == 1.5)
        #expect(back.string == "" && back.data == Data() && back.date == full.date && back.uuid == full.uuid)
        #expect(back.url == full.url && back.decimal == 0 && back.color == .green && back.size == .medium)
        #expect(back.point == Point(x: 1, y: 2))
    }

    func inferredTypes(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        let object = Inferred()
        object.count = 3
        object.ratio = -2.25
        object.label = "y"
        object.flag = false
        object.created = Date(timeIntervalSinceReferenceDate: 2.5)
        try store.commit(object)
        let back = try #require(try store.find(Inferred.self, id: object.id))
        #expect(back.count == 3 && back.ratio == -2.25 && back.label == "y" && !back.flag)
        #expect(back.created == object.created)
        #expect(Inferred.schema.columns.map(\.type) == [.integer, .integer, .real, .text, .integer, .real])
    }
}

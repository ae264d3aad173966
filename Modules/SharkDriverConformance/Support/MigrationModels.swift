import Foundation
@_spi(SharkDriver) import SharkORM

// Successive versions of one entity, "Employee", as an app would ship them. Each test opens a
// file with one version, closes it, and reopens it with the next.

@Model(entity: "Employee")
final class EmployeeV1 {
    var name: String = ""
    var age: Int = 0
    var salary: Double = 0
    var notes: String = ""
    static let indexes: [Index<EmployeeV1>] = [.on(\.name)]
}

/// Adds columns (with and without initial values), removes `notes`, swaps the index.
@Model(entity: "Employee")
final class EmployeeV2 {
    var name: String = ""
    var age: Int = 0
    var salary: Double = 0
    var title: String = "Engineer"
    var level: Int = 3
    var manager: String?
    static let indexes: [Index<EmployeeV2>] = [.on(\.age), .unique(\.name)]
}

/// Retypes `age` to text (lossless) and `salary` to an integer (lossless only for whole values).
@Model(entity: "Employee")
final class EmployeeV3 {
    var name: String = ""
    var age: String = ""
    var salary: Int = 0
}

/// Retypes `name` to an integer: lossy for names that are not numbers.
@Model(entity: "Employee")
final class EmployeeV4 {
    var name: Int = 0
}

/// Makes an optional column non-optional: NULLs are back-filled.
@Model(entity: "Contact")
final class ContactV1 {
    var email: String?
}

@Model(entity: "Contact")
final class ContactV2 {
    var email: String = "unknown@example.com"
}

/// Renames `name` to `fullName` and `salary` to `pay`, keeping their values; retypes `age`.
@Model(entity: "Employee")
final class EmployeeV5 {
    @Renamed(from: "name") var fullName: String = ""
    var age: Int = 0
    @Renamed(from: "salary") var pay: Double = 0
    static let indexes: [Index<EmployeeV5>] = [.on(\.fullName)]
}

/// A level stored as an `Int`, then narrowed to an `Int8`.
@Model(entity: "Level")
final class LevelWide {
    var value: Int = 0
}

@Model(entity: "Level")
final class LevelNarrow {
    var value: Int8 = 0
}

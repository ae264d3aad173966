import Foundation
@_spi(SharkDriver) import SharkORM
import Testing

/// Properties named with Swift keywords and raw identifiers.
@Model
final class Clause {
    var `where`: String = ""
    var `default`: Int = 0
    var `class`: String?
    var `first name`: String = ""
    var _private: Int = 0

    static let indexes: [Index<Clause>] = [.on(\.`where`), .unique(\.`first name`)]
}

@Model(entity: "sqlite_people")
final class SQLiteNamed {
    var name: String = ""
}

@Model(entity: "_shark_schema")
final class MetadataNamed {
    var name: String = ""
}

@Model(entity: "SQLITE_MASTER")
final class MasterNamed {
    var name: String = ""
}

@Model(entity: "Cased")
final class CasedUpper {
    var name: String = ""
}

@Model(entity: "cased")
final class CasedLower {
    var name: String = ""
}

@Model
final class CaseTwins {
    var name: String = ""
    var Name: String = ""
}

/// Index names from parts holding underscores, which must not collide across entities.
@Model(entity: "a_b")
final class UnderscoreEntity {
    var c: Int = 0
    static let indexes: [Index<UnderscoreEntity>] = [.on(\.c)]
}

@Model(entity: "a")
final class PlainEntity {
    var b_c: Int = 0
    static let indexes: [Index<PlainEntity>] = [.on(\.b_c)]
}

struct NamingTests {

    func keywordProperties(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        let clause = Clause()
        clause.where = "age > 3"
        clause.default = 7
        clause.class = "first"
        clause.`first name` = "Ada"
        clause._private = 3
        try store.commit(clause)
        clause.default = 8
        #expect(clause.changedProperties == ["default"])
        try store.commit(clause)
        let found = try #require(try Clause.query(in: store).where(\.`where` == "age > 3").first())
        #expect(found.default == 8 && found.class == "first" && found.`first name` == "Ada" && found._private == 3)
        #expect(try Clause.query(in: store).where(\.`first name` == "Ada").orderBy(\.default).count() == 1)
        #expect(Clause.schema.columns.map(\.name) == ["id", "where", "default", "class", "first name", "_private"])
        let twin = Clause()
        twin.`first name` = "Ada"
        #expect(throws: SharkError.self) { try store.commit(twin) }
    }

    func reservedEntityNames(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        func expectRefused(_ commit: () throws -> Void) {
            #expect {
                try commit()
            } throws: { error in
                guard case SharkError.invalidModel(_, let reason) = error else { return false }
                return reason.contains("reserved")
            }
        }
        expectRefused { try store.commit(SQLiteNamed()) }
        expectRefused { try store.commit(MetadataNamed()) }
        expectRefused { try store.commit(MasterNamed()) }
        expectRefused { _ = try SQLiteNamed.query(in: store).fetch() }
        // Nothing was created, and the store still works.
        try store.commit(Person(name: "Ada"))
        #expect(try Person.query(in: store).count() == 1)
    }

    func caseClashingEntities(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        try store.commit(CasedUpper())
        #expect {
            try store.commit(CasedLower())
        } throws: { error in
            guard case SharkError.invalidModel(let entity, _) = error else { return false }
            return entity == "cased"
        }
        #expect(try CasedUpper.query(in: store).count() == 1)
    }

    func caseClashingColumns(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        #expect {
            try store.commit(CaseTwins())
        } throws: { error in
            guard case SharkError.invalidModel(_, let reason) = error else { return false }
            return reason.contains("'name' and 'Name'")
        }
    }

    func indexNames(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        let left = UnderscoreEntity()
        left.c = 1
        let right = PlainEntity()
        right.b_c = 2
        try store.commit(left)
        try store.commit(right)
        #expect(try UnderscoreEntity.query(in: store).where(\.c == 1).count() == 1)
        #expect(try PlainEntity.query(in: store).where(\.b_c == 2).count() == 1)
        let names = Set(UnderscoreEntity.schema.indexes.map(\.name) + PlainEntity.schema.indexes.map(\.name))
        #expect(names.count == 2)
    }
}

typealias BadgeNumber = String

/// A key declared through a typealias: the type checker, not the macro, decides it is valid.
@Model
final class Badge {
    var id: BadgeNumber = ""
    var holder: String = ""
}

struct TypealiasKeyTests {

    func typealiasedKey(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        #expect(Badge._sharkKeyKind == .string)
        let badge = Badge()
        badge.id = "B-7"
        badge.holder = "Ada"
        try store.commit(badge)
        #expect(try store.find(Badge.self, id: "B-7")?.holder == "Ada")
    }
}

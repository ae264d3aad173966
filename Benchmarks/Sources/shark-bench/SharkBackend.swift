import Foundation
import SharkORM

/// The workloads through SharkORM's public API, on any store.
final class SharkBackend: Backend {
    private let store: Store
    private let cleanup: () -> Void
    private var fetched: [Row10] = []
    private var prepared: [Row10] = []

    init(_ store: Store, cleanup: @escaping () -> Void = {}) throws {
        self.store = store
        self.cleanup = cleanup
        try store.prepare(Row10.self)
    }

    func prepareInsert(_ rows: [InputRow]) {
        prepared = rows.map(Row10.init)
    }

    func insert(_ rows: [InputRow]) throws {
        // Kept until the backend closes: freeing the objects is not part of an insert.
        try store.commit(prepared)
    }

    func fetchAll() throws -> Int {
        fetched = try Row10.query(in: store).fetch()
        return fetched.count
    }

    func ranges(_ starts: [Int], width: Int) throws -> Int {
        var rows = 0
        for start in starts {
            rows += try Row10.query(in: store).where(.between(\.a, start, start + width - 1)).fetch().count
        }
        return rows
    }

    func updateAll() throws {
        for object in fetched { object.b = InputRow.updatedB(a: object.a) }
        try store.commit(fetched)
    }

    func removeEveryOther() throws -> Int {
        let doomed = stride(from: 0, to: fetched.count, by: 2).map { fetched[$0] }
        try store.write { tx in
            for object in doomed { try tx.remove(object) }
        }
        return doomed.count
    }

    func lookups(_ keys: [Int64]) throws -> Int {
        var found = 0
        for key in keys where try store.find(Row10.self, id: key) != nil { found += 1 }
        return found
    }

    func queries(_ values: [Int]) throws -> Int {
        var rows = 0
        for value in values { rows += try Row10.query(in: store).where(\.a == value).fetch().count }
        return rows
    }

    func sumOfH() throws -> Int64 {
        try Row10.query(in: store).sum(\.h) ?? 0
    }

    func prepareJoin(members: Int, teams: Int) throws {
        let stored = (0..<teams).map { Team10(name: "team \($0)") }
        try store.commit(stored)
        try store.commit((0..<members).map { Member10(name: "member \($0)", team: stored[$0 % teams]) })
    }

    func joinPages(_ starts: [Int64], width: Int) throws -> Int {
        var loaded = 0
        for start in starts {
            let page = try Member10.query(in: store)
                .where(.between(\.id, start, start + Int64(width) - 1))
                .including(\.team)
                .fetch()
            for member in page where member.team?.isFault == false { loaded += 1 }
        }
        return loaded
    }

    func close() {
        store.close()
        cleanup()
    }
}

/// A team and its members, for J.
@Model
final class Team10 {
    var name: String = ""
    init(name: String) { self.name = name }
}

@Model
final class Member10 {
    var name: String = ""
    var team: Team10?

    init(name: String, team: Team10?) {
        self.name = name
        self.team = team
    }
}

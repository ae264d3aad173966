import Foundation
import SharkORM
import SharkSQLCipher
import SharkSQLite
import SharkSync

/// A team's members, with a value of every logical type the command line shows specially.
@Model
final class Member {
    var id: UUID
    var name: String = ""
    var age: Int?
    var joined: Date = Date(timeIntervalSinceReferenceDate: 0)
    var salary: Decimal = 0
    var active: Bool = true
    var team: Team?
    static let indexes: [Index<Member>] = [.on(\.name)]

    init(id: UUID, name: String, age: Int?, joined: Date, salary: Decimal, active: Bool) {
        self.id = id
        self.name = name
        self.age = age
        self.joined = joined
        self.salary = salary
        self.active = active
    }
}

@Model
final class Team {
    var id: String
    var title: String = ""

    init(id: String, title: String) {
        self.id = id
        self.title = title
    }
}

/// Database files and change logs made with the library, for the command line to read.
enum Fixtures {
    static let lineage = "cli-tests"
    static let passphrase = "correct horse battery staple"
    static let ada = UUID(uuidString: "00000000-0000-0000-0000-0000000000A1")!
    static let bob = UUID(uuidString: "00000000-0000-0000-0000-0000000000B2")!
    static let cy = UUID(uuidString: "00000000-0000-0000-0000-0000000000C3")!
    static let site = UUID(uuidString: "00000000-0000-0000-0000-00000000005E")!

    /// A new empty directory for one test.
    static func directory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("shark-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Fills `store` with two teams and three members, with sync enabled.
    static func fill(_ store: Store) throws {
        var options = SyncOptions(site: site)
        options.now = { 1_790_000_000_000 }
        _ = try SyncEngine(store: store, lineage: lineage, models: [Member.self, Team.self], options: options)
        let research = Team(id: "research", title: "Research")
        let sales = Team(id: "sales", title: "Sales")
        let joined = Date(timeIntervalSince1970: 1_700_000_000)
        let ada = Member(
            id: ada, name: "Ada", age: 36, joined: joined, salary: Decimal(string: "1234.50")!, active: true)
        ada.team = research
        let bob = Member(id: bob, name: "Bob, \"the builder\"", age: nil, joined: joined, salary: 99, active: false)
        bob.team = sales
        let cy = Member(
            id: cy, name: "Cy", age: 19, joined: joined.addingTimeInterval(86_400), salary: 10, active: true)
        cy.team = research
        try store.commit([research, sales])
        try store.commit([ada, bob, cy])
    }

    /// A plain SQLite database with the fixture rows, closed.
    static func plainDatabase(in directory: URL, name: String = "team.sqlite") throws -> String {
        let path = directory.appendingPathComponent(name).path
        let store = try Store(.sqlite(path: path))
        try fill(store)
        store.close()
        return path
    }

    /// An encrypted database with the fixture rows, closed.
    static func encryptedDatabase(in directory: URL, name: String = "vault.sqlite") throws -> String {
        let path = directory.appendingPathComponent(name).path
        let store = try Store(.sqlcipher(path: path, key: .passphrase(passphrase)))
        try fill(store)
        store.close()
        return path
    }

    /// A store of the same lineage on another site, with one member of its own, closed; and
    /// the change log it exports.
    static func peerChangeLog(in directory: URL, key: ChangeLogKey? = nil) throws -> String {
        let peerPath = directory.appendingPathComponent("peer-\(UUID().uuidString).sqlite").path
        let store = try Store(.sqlite(path: peerPath))
        let sync = try SyncEngine(store: store, lineage: lineage, models: [Member.self, Team.self])
        let dee = Member(
            id: UUID(uuidString: "00000000-0000-0000-0000-0000000000D4")!, name: "Dee", age: 41,
            joined: Date(timeIntervalSince1970: 1_750_000_000), salary: 7, active: true)
        try store.commit(dee)
        let file = try sync.exportChanges(key: key)
        store.close()
        let path = directory.appendingPathComponent("peer.sharklog").path
        try file.write(to: URL(fileURLWithPath: path))
        return path
    }
}

import GRDB

/// J through GRDB: a `belongsTo` association, fetched with `including(optional:)` into a
/// record that holds the member and its team (GRDB writes the LEFT JOIN).
extension GRDBBackend {
    func prepareJoin(members: Int, teams: Int) throws {
        try pool.write { db in
            try db.create(table: "team") { table in
                table.autoIncrementedPrimaryKey("id")
                table.column("name", .text).notNull()
            }
            try db.create(table: "member") { table in
                table.autoIncrementedPrimaryKey("id")
                table.column("name", .text).notNull()
                table.column("team", .integer).indexed()
            }
            for n in 0..<teams {
                var team = TeamRecord(id: nil, name: "team \(n)")
                try team.insert(db)
            }
            for n in 0..<members {
                var member = MemberRecord(id: nil, name: "member \(n)", team: Int64(n % teams + 1))
                try member.insert(db)
            }
        }
    }

    func joinPages(_ starts: [Int64], width: Int) throws -> Int {
        try pool.read { db in
            var loaded = 0
            for start in starts {
                let page =
                    try MemberRecord
                    .filter((start...(start + Int64(width) - 1)).contains(Column("id")))
                    .including(optional: MemberRecord.teamRecord)
                    .asRequest(of: MemberWithTeam.self)
                    .fetchAll(db)
                for row in page where row.team != nil { loaded += 1 }
            }
            return loaded
        }
    }
}

struct TeamRecord: FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "team"
    var id: Int64?
    var name: String

    init(id: Int64?, name: String) {
        self.id = id
        self.name = name
    }

    init(row: GRDB.Row) throws {
        id = row["id"]
        name = row["name"]
    }

    func encode(to container: inout PersistenceContainer) throws {
        container["id"] = id
        container["name"] = name
    }

    mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}

struct MemberRecord: FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "member"
    static let teamRecord = belongsTo(TeamRecord.self, key: "teamRecord", using: ForeignKey(["team"]))
    var id: Int64?
    var name: String
    var team: Int64?

    init(id: Int64?, name: String, team: Int64?) {
        self.id = id
        self.name = name
        self.team = team
    }

    init(row: GRDB.Row) throws {
        id = row["id"]
        name = row["name"]
        team = row["team"]
    }

    func encode(to container: inout PersistenceContainer) throws {
        container["id"] = id
        container["name"] = name
        container["team"] = team
    }

    mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}

/// A member and the team `including(optional:)` joined to it.
struct MemberWithTeam: FetchableRecord {
    var member: MemberRecord
    var team: TeamRecord?

    init(row: GRDB.Row) throws {
        member = try MemberRecord(row: row)
        team = row["teamRecord"]
    }
}

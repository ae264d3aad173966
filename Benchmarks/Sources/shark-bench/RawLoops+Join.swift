import CSQLite

/// J by hand: one LEFT JOIN per page, a team object built for every member that has one.
extension RawDatabase {
    func prepareJoin(members: Int, teams: Int) throws {
        exec(
            """
            CREATE TABLE team (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
            CREATE TABLE member (id INTEGER PRIMARY KEY, name TEXT NOT NULL, team INTEGER);
            CREATE INDEX member_team ON member (team)
            """)
        exec("BEGIN IMMEDIATE")
        let team = prepare("INSERT INTO team (id, name) VALUES (?, ?)")
        for n in 0..<teams {
            _ = shark_bind_int64(api, team, 1, Int64(n + 1))
            bind("team \(n)", 2, team)
            guard shark_step(api, team) == SHARK_SQLITE_DONE else { fatalError("insert failed") }
            _ = shark_reset(api, team)
        }
        let member = prepare("INSERT INTO member (id, name, team) VALUES (?, ?, ?)")
        for n in 0..<members {
            _ = shark_bind_int64(api, member, 1, Int64(n + 1))
            bind("member \(n)", 2, member)
            _ = shark_bind_int64(api, member, 3, Int64(n % teams + 1))
            guard shark_step(api, member) == SHARK_SQLITE_DONE else { fatalError("insert failed") }
            _ = shark_reset(api, member)
        }
        exec("COMMIT")
        _ = api.pointee.finalize(team)
        _ = api.pointee.finalize(member)
    }

    func joinPages(_ starts: [Int64], width: Int) throws -> Int {
        let statement = prepare(
            "SELECT m.id, m.name, m.team, t.id, t.name FROM member m LEFT JOIN team t ON t.id = m.team "
                + "WHERE m.id BETWEEN ? AND ?")
        var loaded = 0
        for start in starts {
            _ = shark_bind_int64(api, statement, 1, start)
            _ = shark_bind_int64(api, statement, 2, start + Int64(width) - 1)
            var page: [PlainMember] = []
            while shark_step(api, statement) == SHARK_SQLITE_ROW {
                let member = PlainMember()
                member.id = shark_column_int64(api, statement, 0)
                member.name = text(statement, 1)
                if shark_column_type(api, statement, 3) != SHARK_SQLITE_NULL {
                    let team = PlainTeam()
                    team.id = shark_column_int64(api, statement, 3)
                    team.name = text(statement, 4)
                    member.team = team
                    loaded += 1
                }
                page.append(member)
            }
            _ = shark_reset(api, statement)
        }
        _ = api.pointee.finalize(statement)
        return loaded
    }
}

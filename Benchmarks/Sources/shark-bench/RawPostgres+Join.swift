import Foundation
import NIOCore
import PostgresNIO

/// J by hand over postgres-nio: one LEFT JOIN per page, prepared once, the pages handed to
/// the connection at once; a team object built for every member that has one.
extension RawPostgres {
    func prepareJoin(members: Int, teams: Int) throws {
        try run { connection, logger in
            try await connection.query(
                #"CREATE TABLE team (id bigint PRIMARY KEY, name text COLLATE "C" NOT NULL)"#, logger: logger)
            try await connection.query(
                #"CREATE TABLE member (id bigint PRIMARY KEY, name text COLLATE "C" NOT NULL, team bigint)"#,
                logger: logger)
            try await connection.query("CREATE INDEX member_team ON member (team)", logger: logger)
            try await connection.copyFrom(table: "team", logger: logger) { writer in
                var buffer = ByteBuffer()
                for n in 0..<teams { buffer.writeString("\(n + 1)\tteam \(n)\n") }
                try await writer.write(buffer)
            }
            try await connection.copyFrom(table: "member", logger: logger) { writer in
                var buffer = ByteBuffer()
                for n in 0..<members { buffer.writeString("\(n + 1)\tmember \(n)\t\(n % teams + 1)\n") }
                try await writer.write(buffer)
            }
        }
    }

    struct Page: BigintStatement {
        static let sql =
            "SELECT m.id, m.name, t.id, t.name FROM member m LEFT JOIN team t ON t.id = m.team "
            + "WHERE m.id BETWEEN $1 AND $2"
        let parameters: [Int64]
        func decodeRow(_ row: PostgresRow) throws -> (Int64, String, Int64?, String?) {
            try row.decode((Int64, String, Int64?, String?).self)
        }
    }

    func joinPages(_ starts: [Int64], width: Int) throws -> Int {
        let pages = try run { connection, logger in
            try await pipelined(starts.count) { index in
                try await connection.rows(
                    Page(parameters: [starts[index], starts[index] + Int64(width) - 1]), logger: logger)
            }
        }
        var loaded = 0
        for page in pages {
            var members: [PlainMember] = []
            for (id, name, teamID, teamName) in page {
                let member = PlainMember()
                member.id = id
                member.name = name
                if let teamID, let teamName {
                    let team = PlainTeam()
                    team.id = teamID
                    team.name = teamName
                    member.team = team
                    loaded += 1
                }
                members.append(member)
            }
        }
        return loaded
    }
}

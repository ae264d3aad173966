/// One way of storing the rows: a SharkORM driver, a hand-written C loop, GRDB, a Dictionary.
///
/// The harness creates a fresh backend for every repetition and runs the workloads in
/// `Workload.allCases` order on it: `update` works on the rows `fetchAll` read, as an app
/// would change objects it fetched.
protocol Backend: AnyObject {
    /// Builds what `insert` will write (objects, records), untimed: an app has its objects
    /// before it saves them.
    func prepareInsert(_ rows: [InputRow])
    /// Inserts every row prepared by `prepareInsert` in one transaction.
    func insert(_ rows: [InputRow]) throws
    /// Reads every row into objects; returns how many.
    func fetchAll() throws -> Int
    /// Runs one indexed range query on `a` per start, into objects; returns the rows read.
    func ranges(_ starts: [Int], width: Int) throws -> Int
    /// Sets `b` to `InputRow.updatedB(a:)` on every row fetched by `fetchAll`, in one
    /// transaction.
    func updateAll() throws
    /// Looks each key up; returns how many were found.
    func lookups(_ keys: [Int64]) throws -> Int
    /// Fetches, for each value, the rows whose indexed `a` equals it, one query each, into
    /// objects; returns the rows read.
    func queries(_ values: [Int]) throws -> Int
    /// The sum of `h` over every row.
    func sumOfH() throws -> Int64
    /// Stores `members` members (member n, from 0, with key n + 1) and `teams` teams, member n
    /// in team n % teams; untimed.
    func prepareJoin(members: Int, teams: Int) throws
    /// Reads, for each start, the `width` members with keys from it, each with its team
    /// loaded; returns how many members came with their team.
    func joinPages(_ starts: [Int64], width: Int) throws -> Int
    /// Removes every other row read by `fetchAll` (the first, the third…) in one transaction;
    /// returns how many it removed.
    func removeEveryOther() throws -> Int
    /// Closes the database and removes its files.
    func close()
}

extension Backend {
    func prepareInsert(_ rows: [InputRow]) {}
}

/// A team and a member for the hand-written baselines.
final class PlainTeam {
    var id: Int64 = 0
    var name = ""
}

final class PlainMember {
    var id: Int64 = 0
    var name = ""
    var team: PlainTeam?
}

/// The backends `shark-bench` knows, by the name the command line and the report use.
enum BackendKind: String, CaseIterable, Sendable {
    case rawSQLite = "raw-sqlite"
    case rawSQLCipher = "raw-sqlcipher"
    case grdb = "grdb"
    case sharkSQLite = "sqlite"
    case sharkSQLCipher = "sqlcipher"
    case sharkMemory = "memory"
    case dictionary = "dictionary"
    // The PostgreSQL family (--postgres), on a server.
    case rawPostgres = "raw-postgres"
    case sharkPostgres = "postgres"
    case fluent = "fluent"

    /// The backends of the PostgreSQL family: what `--postgres` runs, against a server.
    static let postgresFamily: [BackendKind] = [.rawPostgres, .sharkPostgres, .fluent]

    /// The embedded backends: what runs by default, with no server.
    static var embedded: [BackendKind] { allCases.filter { !postgresFamily.contains($0) } }

    var title: String {
        switch self {
        case .rawSQLite: "raw C SQLite"
        case .rawSQLCipher: "raw C SQLCipher"
        case .grdb: "GRDB record"
        case .sharkSQLite: "SharkORM sqlite"
        case .sharkSQLCipher: "SharkORM sqlcipher"
        case .sharkMemory: "SharkORM memory"
        case .dictionary: "Dictionary floor"
        case .rawPostgres: "raw postgres-nio"
        case .sharkPostgres: "SharkORM postgres"
        case .fluent: "Fluent"
        }
    }

    /// Whether the backend can run `workload` (a Dictionary has no ordered index).
    func supports(_ workload: Workload) -> Bool {
        !(self == .dictionary && (workload == .range || workload == .join || workload == .query))
    }
}

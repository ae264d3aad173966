import ArgumentParser
import Foundation
import SharkHub
import SharkORM
import SharkPostgres
import SharkSQLite

#if canImport(Glibc)
    import Glibc
#endif

/// The hub's own database, named on the command line: a SQLite file (created when missing),
/// for one small hub, or a PostgreSQL URL, which several hub processes share.
struct HubDatabaseOptions: ParsableArguments {
    @Argument(
        help: ArgumentHelp(
            "The hub's database: a SQLite file (created when missing) or a PostgreSQL URL without its password "
                + "(postgresql://user@host:port/database?schema=hub).",
            valueName: "hub-database"))
    var path: String

    @OptionGroup var password: PostgresPasswordOptions

    var database: HubDatabase { HubDatabase(path: path, password: password.source) }

    /// Opens the hub over its database.
    func open(limits: HubLimits = HubLimits()) async throws -> Hub { try await database.open(limits: limits) }
}

/// Where the hub's state lives, and the password that opens it when it is PostgreSQL's.
struct HubDatabase {
    /// A SQLite file or a PostgreSQL URL without its password.
    let path: String
    let password: PostgresPassword

    /// Opens the hub over its database.
    func open(limits: HubLimits = HubLimits()) async throws -> Hub {
        let configuration: StoreConfiguration
        if PostgresLocation.isURL(path) {
            configuration = try PostgresLocation(path, password: password, readOnly: false).configuration
        } else {
            configuration = .sqlite(path: path)
        }
        return try await Hub(store: try Store(configuration), limits: limits)
    }

    /// For a SQLite database, the lock that keeps a second hub process off the file (its
    /// state is one process's: PostgreSQL is for several): held until the process ends.
    /// Nothing for PostgreSQL.
    func lockForServing() throws {
        guard !PostgresLocation.isURL(path) else { return }
        let lockPath = path + ".hub-lock"
        let descriptor = Glibc.open(lockPath, O_CREAT | O_RDWR | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw CommandFailure(
                "cannot create \(lockPath): \(String(cString: strerror(errno)))", exitCode: CommandFailure.cannotCreate)
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            Glibc.close(descriptor)
            throw CommandFailure(
                "another hub process serves \(path): one process per SQLite database (use PostgreSQL for several)",
                exitCode: CommandFailure.temporaryFailure)
        }
        // Left open on purpose: the lock lasts as long as the process.
    }
}

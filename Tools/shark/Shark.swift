import ArgumentParser
import Foundation
import SharkORM

/// `shark`: SharkORM database files and change logs, without the app's model types. Everything
/// it shows comes from the schemas and logical types each database records.
@main
struct Shark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "shark",
        abstract: "Inspect, query, encrypt and sync SharkORM database files.",
        discussion: """
            Works on SQLite and SQLCipher database files written by SharkORM, and on the change \
            logs its sync exports, from what they record: no model types needed. info, query, \
            export, inspect and verify only read: they never create, modify or switch the journal \
            mode of a database.

            Keys never go on the command line (where shell history and ps would show them): \
            give a database's key with --key-file FILE or --key-env VARIABLE, or in SHARK_KEY; \
            without any, shark asks for it (without echo) when a terminal is attached. A \
            change log's key (32 bytes, or 64 hexadecimal digits) comes with --log-key-file, \
            --log-key-env or SHARK_LOG_KEY.

            info, query, export and import also take a PostgreSQL database, named by a URL \
            without its password: postgresql://user@host:port/database?schema=app (the server's \
            certificate verified; &sslrootcert=ca.pem names its authority), or through the \
            server's Unix socket, postgresql://user@%2Fvar%2Frun%2Fpostgresql/database. Its \
            password comes from --password-file FILE, --password-env VARIABLE, PGPASSWORD or \
            libpq's password file (PGPASSFILE, ~/.pgpass).

            Exit codes: 0 success; 1 the check found problems; 64 a wrong command line (unknown \
            entity, malformed predicate); 65 bad data (not a database, a damaged file or change \
            log, another lineage); 66 a missing input file; 69 a needed tool is missing; 73 the \
            output file exists; 74 an I/O error; 77 a missing or wrong key.
            """,
        version: sharkORMVersion,
        subcommands: [
            InfoCommand.self, QueryCommand.self, ExportCommand.self, ImportCommand.self, InspectCommand.self,
            VerifyCommand.self, DigestCommand.self, EncryptCommand.self, DecryptCommand.self, RekeyCommand.self,
            BenchCommand.self, ServeCommand.self, HubCommand.self, SyncCommand.self,
        ]
    )

    /// Runs the command line, with every error on one line of standard error (the argument
    /// parser's own errors print usage over several lines): `shark: error: …`.
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var asynchronous = command as? any AsyncParsableCommand {
                try await asynchronous.run()
            } else {
                try command.run()
            }
        } catch {
            let code = exitCode(for: error)
            if code == .success {
                // --help and --version.
                Terminal.write(fullMessage(for: error) + "\n")
                Foundation.exit(0)
            }
            let message = self.message(for: error)
            if !message.isEmpty {
                // An error of the command line itself: say where help is.
                Terminal.reportError(message + " (see shark --help, or shark COMMAND --help)")
            }
            Foundation.exit(code.rawValue)
        }
    }
}

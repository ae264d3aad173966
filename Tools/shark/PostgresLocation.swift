import ArgumentParser
import Foundation
import SharkORM
import SharkPostgres

/// Where a PostgreSQL database's password comes from on the command line: a file or an
/// environment variable named by an option, never the value itself.
struct PostgresPasswordOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "PostgreSQL: read the password from the first line of this file.", valueName: "path"))
    var passwordFile: String?

    @Option(
        help: ArgumentHelp(
            "PostgreSQL: read the password from this environment variable.", valueName: "variable"))
    var passwordEnv: String?

    func validate() throws {
        if passwordFile != nil && passwordEnv != nil {
            throw ValidationError("give the password one way: --password-file or --password-env")
        }
    }

    /// The password's source: an option's, else libpq's (`PGPASSWORD`, then `PGPASSFILE` or
    /// `~/.pgpass`), else none.
    var source: PostgresPassword { Self.source(file: passwordFile, environment: passwordEnv) }

    /// The password's source: the file or the environment variable named, else libpq's.
    static func source(file passwordFile: String?, environment passwordEnv: String?) -> PostgresPassword {
        if let passwordFile { return .file(passwordFile) }
        if let passwordEnv { return .environment(passwordEnv) }
        let environment = ProcessInfo.processInfo.environment
        if environment["PGPASSWORD"] != nil { return .environment("PGPASSWORD") }
        let home = environment["HOME"] ?? NSHomeDirectory()
        if environment["PGPASSFILE"] != nil || FileManager.default.fileExists(atPath: home + "/.pgpass") {
            return .passwordFile
        }
        return .none
    }
}

/// A PostgreSQL database named on the command line, as a libpq connection URL without its
/// password: `postgresql://user@host:port/database?schema=app&sslrootcert=ca.pem`, or for a
/// server on this machine, its socket's folder as the host
/// (`postgresql://app@%2Fvar%2Frun%2Fpostgresql/app` or `postgresql:///app?host=/var/run/postgresql`).
///
/// What the URL leaves out comes from libpq's environment variables (`PGHOST`, `PGPORT`,
/// `PGUSER`, `PGDATABASE`) and libpq's defaults (the socket folder /var/run/postgresql, port
/// 5432, the database named for the user). TLS is verified against the system's authorities or
/// `sslrootcert`; `sslmode=disable` only for this machine; the modes that skip verification
/// are refused. A password in the URL is refused: it would show in the process list and the
/// shell's history.
struct PostgresLocation {
    static let schemes: Set<String> = ["postgresql", "postgres"]
    static let parameters: Set<String> = ["host", "port", "dbname", "user", "schema", "sslmode", "sslrootcert"]

    let settings: PostgresSettings

    /// Whether `text` names a PostgreSQL database rather than a file.
    static func isURL(_ text: String) -> Bool {
        guard let colon = text.firstIndex(of: ":") else { return false }
        return schemes.contains(text[..<colon].lowercased()) && text[colon...].hasPrefix("://")
    }

    init(_ text: String, password: PostgresPassword, readOnly: Bool) throws {
        guard let url = URLComponents(string: text), let scheme = url.scheme, Self.schemes.contains(scheme.lowercased())
        else {
            throw CommandFailure(
                "\(Self.withoutUserInformation(text)) is not a PostgreSQL URL "
                    + "(postgresql://user@host:port/database?schema=…)",
                exitCode: CommandFailure.usage)
        }
        if url.password != nil {
            throw CommandFailure(
                "the URL holds a password, which the process list and the shell's history would show: "
                    + "give it with --password-file, --password-env, PGPASSWORD or a password file (PGPASSFILE)",
                exitCode: CommandFailure.usage)
        }
        var query: [String: String] = [:]
        for item in url.queryItems ?? [] {
            guard Self.parameters.contains(item.name) else {
                throw CommandFailure(
                    "the URL's parameter \(item.name) is not one shark reads ("
                        + Self.parameters.sorted().joined(separator: ", ") + ")",
                    exitCode: CommandFailure.usage)
            }
            query[item.name] = item.value ?? ""
        }
        let environment = ProcessInfo.processInfo.environment
        var host =
            url.percentEncodedHost.flatMap { $0.isEmpty ? nil : $0.removingPercentEncoding } ?? query["host"]
            ?? environment["PGHOST"] ?? "/var/run/postgresql"
        if host.hasPrefix("[") && host.hasSuffix("]") {
            // An IPv6 address, bracketed in the URL; a zone (`%25eth0`) is not one TLS can name.
            host = String(host.dropFirst().dropLast().prefix { $0 != "%" })
        }
        let portText = url.port.map(String.init) ?? query["port"] ?? environment["PGPORT"] ?? "5432"
        guard let port = Int(portText), (1...65_535).contains(port) else {
            throw CommandFailure("the port \(portText) is not a port number", exitCode: CommandFailure.usage)
        }
        // URLComponents decodes the user already.
        let user =
            url.user.flatMap { $0.isEmpty ? nil : $0 } ?? query["user"] ?? environment["PGUSER"] ?? environment["USER"]
            ?? "postgres"
        let path = url.path.hasPrefix("/") ? String(url.path.dropFirst()) : url.path
        let database = path.isEmpty ? query["dbname"] ?? environment["PGDATABASE"] ?? user : path
        let tls: PostgresTLS
        switch query["sslmode"] ?? "verify-full" {
        case "verify-full": tls = .verified(certificateAuthority: query["sslrootcert"])
        case "disable": tls = .disabled
        case let mode:
            throw CommandFailure(
                "sslmode=\(mode) would accept a server whose certificate is not verified: shark verifies it "
                    + "(verify-full, the default) or, for a server on this machine, uses none (disable)",
                exitCode: CommandFailure.usage)
        }
        let endpoint: PostgresSettings.Endpoint =
            host.hasPrefix("/") ? .socket(folder: host, port: port) : .tcp(host: host, port: port)
        var settings = PostgresSettings(
            endpoint: endpoint, database: database, user: user, password: password,
            tls: host.hasPrefix("/") ? .disabled : tls, schema: query["schema"] ?? "public", connections: 2)
        settings.isReadOnly = readOnly
        settings.applicationName = "shark"
        self.settings = settings
    }

    /// `text` without what may stand between `://` and `@` (a password, when a URL holds
    /// one), for messages.
    static func withoutUserInformation(_ text: String) -> String {
        guard let start = text.range(of: "://"), let at = text[start.upperBound...].firstIndex(of: "@") else {
            return text
        }
        return String(text[..<start.upperBound]) + "…" + String(text[at...])
    }

    /// The store, opened read-only unless `writable`.
    var configuration: StoreConfiguration { .postgres(settings) }
}

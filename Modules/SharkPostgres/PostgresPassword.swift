import Foundation

/// Where a PostgreSQL store finds its password: never in code that a command line or a URL
/// would show, always read when the store opens.
///
/// ```swift
/// import SharkORM
/// import SharkPostgres
///
/// // From the environment (a container's secret), a file only the app can read, or libpq's
/// // password file (PGPASSFILE, else ~/.pgpass), the way psql finds it.
/// let fromEnvironment = PostgresPassword.environment("APP_DATABASE_PASSWORD")
/// let fromFile = PostgresPassword.file("/run/secrets/db-password")
/// let likePsql = PostgresPassword.passwordFile
/// print(fromEnvironment, fromFile, likePsql)
/// ```
public enum PostgresPassword: Sendable, Hashable, CustomStringConvertible {
    /// The value of an environment variable.
    case environment(String)
    /// The first line of a file (a trailing newline is not part of the password).
    case file(String)
    /// libpq's password file: the one `PGPASSFILE` names, else `~/.pgpass`; the first line
    /// whose host, port, database and user match (`*` matches anything) gives the password.
    /// As in libpq, a file that others can read is ignored.
    case passwordFile
    /// No password: the server trusts the connection (peer authentication on a Unix socket).
    case none

    public var description: String {
        switch self {
        case .environment(let name): return "the environment variable \(name)"
        case .file(let path): return "the file \(path)"
        case .passwordFile: return "the password file (PGPASSFILE or ~/.pgpass)"
        case .none: return "no password"
        }
    }

    /// The password, read now. `host` is what a password file's host field matches:
    /// the host name, or for a Unix socket `localhost` and the socket's folder.
    func resolve(hosts: [String], port: Int, database: String, user: String) throws -> String? {
        switch self {
        case .none:
            return nil
        case .environment(let name):
            guard let value = ProcessInfo.processInfo.environment[name] else {
                throw PostgresError.passwordUnavailable(source: description, reason: "the variable is not set")
            }
            return value
        case .file(let path):
            guard let data = FileManager.default.contents(atPath: path) else {
                throw PostgresError.passwordUnavailable(source: description, reason: "the file cannot be read")
            }
            guard let text = String(data: data, encoding: .utf8) else {
                throw PostgresError.passwordUnavailable(source: description, reason: "the file is not UTF-8 text")
            }
            return String(text.prefix { $0 != "\n" && $0 != "\r\n" && $0 != "\r" })
        case .passwordFile:
            let environment = ProcessInfo.processInfo.environment
            let path =
                environment["PGPASSFILE"]
                ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.pgpass"
            return try PasswordFile.password(
                in: path, hosts: hosts, port: port, database: database, user: user, source: description)
        }
    }
}

/// libpq's password file format: `hostname:port:database:username:password`, one entry per
/// line, `*` matching anything, `\:` and `\\` escaping, `#` starting a comment.
enum PasswordFile {
    static func password(
        in path: String, hosts: [String], port: Int, database: String, user: String, source: String
    ) throws -> String {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
            let data = FileManager.default.contents(atPath: path)
        else {
            throw PostgresError.passwordUnavailable(source: source, reason: "\(path) cannot be read")
        }
        // libpq ignores a password file that its group or others may read: so do we, loudly.
        if let permissions = attributes[.posixPermissions] as? Int, permissions & 0o077 != 0 {
            throw PostgresError.passwordUnavailable(
                source: source,
                reason: "\(path) may be read by others (permissions \(String(permissions, radix: 8))); chmod 600 it")
        }
        let text = String(decoding: data, as: UTF8.self)
        for line in text.split(omittingEmptySubsequences: true, whereSeparator: \.isNewline) {
            if line.hasPrefix("#") { continue }
            let fields = Self.fields(of: line)
            guard fields.count == 5 else { continue }
            func matches(_ field: String, _ value: String) -> Bool { field == "*" || field == value }
            guard hosts.contains(where: { matches(fields[0], $0) }), matches(fields[1], String(port)),
                matches(fields[2], database), matches(fields[3], user)
            else { continue }
            return fields[4]
        }
        throw PostgresError.passwordUnavailable(
            source: source, reason: "no line of \(path) matches \(hosts[0]):\(port):\(database):\(user)")
    }

    /// The colon-separated fields of one line, escapes resolved.
    static func fields(of line: Substring) -> [String] {
        var fields: [String] = []
        var current = ""
        var escaped = false
        for character in line {
            if escaped {
                current.append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == ":" && fields.count < 4 {
                fields.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        fields.append(current)
        return fields
    }
}

import ArgumentParser
import Foundation
import SharkORM
import SharkSQLCipher

/// `shark encrypt PLAIN -o ENCRYPTED`: an encrypted copy of a plain database.
struct EncryptCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "encrypt",
        abstract: "Write an encrypted (SQLCipher) copy of a plain SQLite database.",
        discussion: """
            Examples:
              shark encrypt app.sqlite -o app.encrypted            (asks for the key twice)
              shark encrypt app.sqlite -o app.encrypted --key-file app.key
              SHARK_KEY=… shark encrypt app.sqlite -o app.encrypted

            The plain file is left as it was; the copy is written whole or not at all, and an \
            existing output file is never replaced. Open the copy with \
            .sqlcipher(path:key:) and the same key.
            """)

    @Argument(help: ArgumentHelp("The plain SQLite database.", valueName: "database"))
    var path: String

    @Option(name: .shortAndLong, help: ArgumentHelp("The encrypted copy to write.", valueName: "file"))
    var output: String

    @OptionGroup var key: DatabaseKeyOptions

    @Option(help: "The cipher page size of the copy: 4096 (SQLCipher 4's and SharkORM's) or 1024 (SQLCipher 3's).")
    var pageSize = 4096

    @Flag(help: "Print a JSON summary for scripts.")
    var json = false

    func validate() throws {
        // The sizes SharkORM (and so every shark command) opens without being told.
        guard pageSize == 4096 || pageSize == 1024 else {
            throw ValidationError("--page-size is 4096 or 1024, not \(pageSize)")
        }
    }

    func run() throws {
        try reportingFailures {
            guard try DatabaseFile.kind(of: path) == .plain else {
                throw CommandFailure(
                    "\(path) is not a plain SQLite database (already encrypted? use shark rekey to change its key)",
                    exitCode: CommandFailure.dataError)
            }
            try copyDatabase(
                path, to: output, encrypted: true, json: json,
                key: { try key.key(prompt: "Key for \(output)", confirms: true) }
            ) { key in
                try SQLCipher.encrypt(plainDatabaseAt: path, into: output, key: key, pageSize: pageSize)
            }
        }
    }
}

/// `shark decrypt ENCRYPTED -o PLAIN`: a plain copy of an encrypted database.
struct DecryptCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decrypt",
        abstract: "Write a plain SQLite copy of an encrypted database.",
        discussion: """
            Examples:
              shark decrypt app.encrypted -o app.sqlite --key-file app.key

            The encrypted file is left as it was; the copy is written whole or not at all, and \
            an existing output file is never replaced. The copy is not protected: mind where it goes.
            """)

    @Argument(help: ArgumentHelp("The encrypted database.", valueName: "database"))
    var path: String

    @Option(name: .shortAndLong, help: ArgumentHelp("The plain copy to write.", valueName: "file"))
    var output: String

    @OptionGroup var key: DatabaseKeyOptions

    @Flag(help: "Print a JSON summary for scripts.")
    var json = false

    func run() throws {
        try reportingFailures {
            guard try DatabaseFile.kind(of: path) == .encryptedOrOther else {
                throw CommandFailure(
                    "\(path) is not encrypted: there is nothing to decrypt", exitCode: CommandFailure.dataError)
            }
            try copyDatabase(path, to: output, encrypted: false, json: json, key: { try key.key() }) { key in
                try SQLCipher.decrypt(databaseAt: path, key: key, into: output)
            }
        }
    }
}

/// `shark rekey DB`: changes an encrypted database's key in place.
struct RekeyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rekey",
        abstract: "Change the key of an encrypted database, in place.",
        discussion: """
            Examples:
              shark rekey vault.sqlite                       (asks for the current key, then the new one twice)
              shark rekey vault.sqlite --key-file old.key --new-key-file new.key
              SHARK_KEY=… SHARK_NEW_KEY=… shark rekey vault.sqlite

            Every page is re-encrypted in one transaction: an interruption leaves the old key \
            in place. Close apps that have the database open first.
            """)

    @OptionGroup var database: DatabaseOptions

    @OptionGroup var newKey: NewKeyOptions

    @Flag(help: "Print a JSON summary for scripts.")
    var json = false

    func run() throws {
        try reportingFailures {
            guard try DatabaseFile.kind(of: database.path) == .encryptedOrOther else {
                throw CommandFailure(
                    "\(database.path) is not encrypted: use shark encrypt to make an encrypted copy",
                    exitCode: CommandFailure.dataError)
            }
            // The current key is checked read-only first: a wrong one changes nothing.
            let current = try database.key.key()
            try database.open(key: current).close()
            let key = try newKey.key(raw: database.key.rawKey)
            let store = try database.open(writable: true, key: current)
            defer { store.close() }
            try withProgress("re-encrypting") { try SQLCipher.rekey(store, to: key) }
            Terminal.write(
                json
                    ? JSONText.object([("file", .string(database.path)), ("rekeyed", .bool(true))]).rendered
                    : "\(database.path) has its new key\n")
        }
    }
}

/// What `encrypt` and `decrypt` share: the checks before the copy (no output to replace, its
/// folder there, no live log beside the source), the key (asked before any progress is
/// drawn), the copy, and the report.
func copyDatabase(
    _ path: String, to output: String, encrypted: Bool, json: Bool, key: () throws -> SQLCipherKey,
    copy: (SQLCipherKey) throws -> Void
) throws {
    try refuseExisting(output)
    try OutputFile.checkFolder(of: output)
    try refuseLive(path)
    let key = try key()
    try withProgress(encrypted ? "encrypting" : "decrypting") { try copy(key) }
    Terminal.write(
        json
            ? JSONText.object([
                ("file", .string(output)), ("encrypted", .bool(encrypted)),
                ("bytes", .integer(DatabaseFile.size(of: output))),
            ]).rendered
            : "wrote \(output), \(encrypted ? "encrypted" : "not encrypted")\n")
}

/// Refuses to copy a database a program has open with a write-ahead log beside it: the copy
/// would fold the log into it (SQLCipher 3 copies only through a connection that can write).
func refuseLive(_ path: String) throws {
    let resolved = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
    // An empty log (what a program killed with the file open leaves) holds nothing to fold.
    let logSize = (try? FileManager.default.attributesOfItem(atPath: resolved + "-wal")[.size] as? Int) ?? 0
    if logSize > 0 {
        throw CommandFailure(
            "\(path) has a write-ahead log beside it (a program has it open, or was interrupted): close that "
                + "program, or open and close the database once, then try again",
            exitCode: CommandFailure.temporaryFailure)
    }
}

/// Refuses to write over `path`.
func refuseExisting(_ path: String) throws {
    if FileManager.default.fileExists(atPath: path) {
        throw CommandFailure(
            "\(path) exists: choose another name (shark never replaces a database)",
            exitCode: CommandFailure.cannotCreate)
    }
}

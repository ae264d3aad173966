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

    @Option(help: "The cipher page size of the copy, in bytes.")
    var pageSize = 4096

    func run() throws {
        try reportingFailures {
            guard try DatabaseFile.kind(of: path) == .plain else {
                throw CommandFailure(
                    "\(path) is not a plain SQLite database (already encrypted? use shark rekey to change its key)",
                    exitCode: CommandFailure.dataError)
            }
            try refuseExisting(output)
            let key = try key.key(prompt: "Key for \(output)", confirms: true)
            try withProgress("encrypting") {
                try SQLCipher.encrypt(plainDatabaseAt: path, into: output, key: key, pageSize: pageSize)
            }
            Terminal.write("wrote \(output), encrypted\n")
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

    func run() throws {
        try reportingFailures {
            guard try DatabaseFile.kind(of: path) == .encryptedOrOther else {
                throw CommandFailure(
                    "\(path) is not encrypted: there is nothing to decrypt", exitCode: CommandFailure.dataError)
            }
            try refuseExisting(output)
            let key = try key.key()
            try withProgress("decrypting") { try SQLCipher.decrypt(databaseAt: path, key: key, into: output) }
            Terminal.write("wrote \(output), not encrypted\n")
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

    func run() throws {
        try reportingFailures {
            guard try DatabaseFile.kind(of: database.path) == .encryptedOrOther else {
                throw CommandFailure(
                    "\(database.path) is not encrypted: use shark encrypt to make an encrypted copy",
                    exitCode: CommandFailure.dataError)
            }
            let store = try database.open(writable: true)
            defer { store.close() }
            let key = try newKey.key(raw: database.key.rawKey)
            try withProgress("re-encrypting") { try SQLCipher.rekey(store, to: key) }
            Terminal.write("\(database.path) has its new key\n")
        }
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

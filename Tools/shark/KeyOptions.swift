import ArgumentParser
import Foundation
import SharkORM
import SharkSQLCipher
import SharkSync

/// Where a key comes from: a file, an environment variable, or the terminal (without echo).
/// Never the command line, where shell history and `ps` would show it.
struct KeySource {
    var file: String?
    var variable: String?
    /// The variable read when neither a file nor a variable is named.
    var defaultVariable: String
    /// What the prompt asks for.
    var prompt: String
    /// Whether a typed key is asked twice (a new key).
    var confirms: Bool
    /// The options that give this key, for messages.
    var options: String

    /// The key's text; throws when there is none to read.
    func text() throws -> String {
        if let file {
            guard let data = FileManager.default.contents(atPath: file) else {
                throw CommandFailure("cannot read the key file \(file)", exitCode: CommandFailure.noInput)
            }
            return try nonEmpty(Self.firstLine(of: data), from: "the key file \(file)")
        }
        let environment = ProcessInfo.processInfo.environment
        if let variable {
            guard let value = environment[variable] else {
                throw CommandFailure(
                    "the environment variable \(variable) is not set", exitCode: CommandFailure.permission)
            }
            return try nonEmpty(value, from: "the environment variable \(variable)")
        }
        if let value = environment[defaultVariable] {
            return try nonEmpty(value, from: "the environment variable \(defaultVariable)")
        }
        guard let typed = try Terminal.readSecret(prompt: prompt + ": ") else {
            throw CommandFailure(
                "\(prompt.lowercased()) is needed: give it with \(options)", exitCode: CommandFailure.permission)
        }
        if confirms {
            guard try Terminal.readSecret(prompt: "Again: ") == typed else {
                throw CommandFailure("the two keys typed differ", exitCode: CommandFailure.permission)
            }
        }
        return try nonEmpty(typed, from: "the terminal")
    }

    private func nonEmpty(_ key: String, from source: String) throws -> String {
        guard !key.isEmpty else {
            throw CommandFailure("\(source) holds an empty key", exitCode: CommandFailure.permission)
        }
        return key
    }

    /// A key file's content up to its first line break: editors end files with one.
    static func firstLine(of data: Data) -> String {
        let text = String(decoding: data, as: UTF8.self)
        return String(text.prefix { $0 != "\n" && $0 != "\r\n" && $0 != "\r" })
    }
}

/// The key of an encrypted database: `--key-file`, `--key-env`, `SHARK_KEY` or a prompt.
struct DatabaseKeyOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Read the database's key from the first line of this file.", valueName: "file"))
    var keyFile: String?

    @Option(help: ArgumentHelp("Read the database's key from this environment variable.", valueName: "variable"))
    var keyEnv: String?

    @Flag(help: "The keys are 64 hexadecimal digits (raw 256-bit keys), not passphrases.")
    var rawKey = false

    func source(prompt: String = "Database key", confirms: Bool = false) -> KeySource {
        KeySource(
            file: keyFile, variable: keyEnv, defaultVariable: "SHARK_KEY", prompt: prompt, confirms: confirms,
            options: "--key-file, --key-env or SHARK_KEY")
    }

    /// The key, read from its source.
    func key(prompt: String = "Database key", confirms: Bool = false) throws -> SQLCipherKey {
        try Self.cipherKey(source(prompt: prompt, confirms: confirms).text(), raw: rawKey)
    }

    static func cipherKey(_ text: String, raw: Bool) throws -> SQLCipherKey {
        guard raw else { return .passphrase(text) }
        guard let bytes = bytes(fromHexadecimal: text.trimmingCharacters(in: .whitespaces)), bytes.count == 32 else {
            throw CommandFailure("a raw key is 64 hexadecimal digits", exitCode: CommandFailure.usage)
        }
        return .raw(Data(bytes))
    }
}

/// The new key of `rekey`: `--new-key-file`, `--new-key-env`, `SHARK_NEW_KEY` or a prompt.
struct NewKeyOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Read the new key from the first line of this file.", valueName: "file"))
    var newKeyFile: String?

    @Option(help: ArgumentHelp("Read the new key from this environment variable.", valueName: "variable"))
    var newKeyEnv: String?

    func key(raw: Bool) throws -> SQLCipherKey {
        let source = KeySource(
            file: newKeyFile, variable: newKeyEnv, defaultVariable: "SHARK_NEW_KEY", prompt: "New key", confirms: true,
            options: "--new-key-file, --new-key-env or SHARK_NEW_KEY")
        return try DatabaseKeyOptions.cipherKey(source.text(), raw: raw)
    }
}

/// The key of an encrypted change log: `--log-key-file`, `--log-key-env` or `SHARK_LOG_KEY`:
/// 32 bytes, or 64 hexadecimal digits. After a rotation, one key per line (or separated by
/// commas), each `ID:HEX` (a bare `HEX` is id 0): the first seals what this device writes,
/// the others open files sealed before the rotation.
struct LogKeyOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Read the change log's key from this file: 32 bytes, or 64 hex digits; after a rotation, one ID:HEX "
                + "per line, the current key first.", valueName: "file"))
    var logKeyFile: String?

    @Option(
        help: ArgumentHelp(
            "Read the change log's key (64 hex digits, or ID:HEX keys separated by commas) from this environment "
                + "variable.", valueName: "variable"))
    var logKeyEnv: String?

    /// The key to read `file` with: the one given with an option, always; the one in
    /// `SHARK_LOG_KEY` only when the file is encrypted (a key left in the environment must
    /// not stop plain files from reading).
    func key(for file: Data) throws -> ChangeLogKey? {
        try key(isEncrypted: file.count >= 12 && file[file.startIndex + 10] & 1 != 0)
    }

    /// The key for a file that is (or is not) encrypted: nil for a plain file unless a key
    /// was given explicitly (the import then says one was not expected).
    func key(isEncrypted: Bool) throws -> ChangeLogKey? {
        if logKeyFile == nil, logKeyEnv == nil, !isEncrypted { return nil }
        return try key()
    }

    /// The key when one is given (a file, a variable or `SHARK_LOG_KEY`); nil otherwise: change
    /// logs are often not encrypted, so there is no prompt.
    func key() throws -> ChangeLogKey? {
        if let logKeyFile {
            guard let data = FileManager.default.contents(atPath: logKeyFile) else {
                throw CommandFailure("cannot read the key file \(logKeyFile)", exitCode: CommandFailure.noInput)
            }
            if data.count == 32 { return try ChangeLogKey(bytes: data) }
            return try Self.key(text: String(decoding: data, as: UTF8.self), from: "the key file \(logKeyFile)")
        }
        let environment = ProcessInfo.processInfo.environment
        if let logKeyEnv {
            guard let value = environment[logKeyEnv] else {
                throw CommandFailure(
                    "the environment variable \(logKeyEnv) is not set", exitCode: CommandFailure.permission)
            }
            return try Self.key(text: value, from: "the environment variable \(logKeyEnv)")
        }
        if let value = environment["SHARK_LOG_KEY"] {
            return try Self.key(text: value, from: "the environment variable SHARK_LOG_KEY")
        }
        return nil
    }

    /// The keys of `text`, one per line (lines starting with `#` left out) or between
    /// commas, each `ID:HEX` or `HEX` (id 0): the first the current key, which retires the
    /// others.
    static func key(text: String, from source: String) throws -> ChangeLogKey {
        let entries = text.split(whereSeparator: { $0.isNewline || $0 == "," })
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty && !$0.hasPrefix("#") }
        guard !entries.isEmpty else {
            throw CommandFailure("\(source) holds no change-log key", exitCode: CommandFailure.permission)
        }
        var keys: [ChangeLogKey] = []
        for (line, entry) in entries.enumerated() {
            let parts = entry.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            let (idText, hex) = parts.count == 2 ? (String(parts[0]), String(parts[1])) : ("0", entry)
            guard let id = UInt32(idText.trimmingCharacters(in: .whitespaces)),
                let bytes = bytes(fromHexadecimal: hex.trimmingCharacters(in: .whitespaces)), bytes.count == 32
            else {
                throw CommandFailure(
                    "\(source), key \(line + 1), is not a change-log key (64 hexadecimal digits, or ID:HEX with an id "
                        + "from 0 to \(UInt32.max))", exitCode: CommandFailure.permission)
            }
            keys.append(try ChangeLogKey(bytes: bytes, id: id))
        }
        do {
            return try keys[0].retiring(Array(keys.dropFirst()))
        } catch {
            throw CommandFailure(
                "\(source): \(error) (the current key comes first, the keys it replaced after it)",
                exitCode: CommandFailure.usage)
        }
    }
}

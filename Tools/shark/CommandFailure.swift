import ArgumentParser
import Foundation
import SharkHub
import SharkHubClient
import SharkORM
import SharkSQLCipher
import SharkSync

/// An error as the command line reports it: one line on standard error that says what
/// failed and what to do, and the exit code of its kind (the `sysexits` conventions).
struct CommandFailure: Error {
    var message: String
    var exitCode: Int32

    static let usage: Int32 = 64
    static let dataError: Int32 = 65
    static let noInput: Int32 = 66
    static let unavailable: Int32 = 69
    /// A failure inside the tool or a library it uses, not the input (EX_SOFTWARE).
    static let software: Int32 = 70
    static let cannotCreate: Int32 = 73
    static let temporaryFailure: Int32 = 75
    static let ioError: Int32 = 74
    static let permission: Int32 = 77
    /// Interrupted at a prompt (Ctrl-C), as shells report SIGINT.
    static let interrupted: Int32 = 130

    init(_ message: String, exitCode: Int32) {
        self.message = message
        self.exitCode = exitCode
    }

    /// How `error` is reported.
    init(describing error: any Error) {
        switch error {
        case let failure as CommandFailure:
            self = failure
        case let error as SharkError:
            self.init(describing: error)
        case let error as SQLCipherError:
            switch error {
            case .wrongKey(let path):
                self.init(
                    "the key does not open \(path) (or it is not a database): check the key given with --key-file, "
                        + "--key-env or SHARK_KEY", exitCode: Self.permission)
            case .notEncrypted(let path):
                self.init("\(path) is not encrypted: use shark encrypt to make an encrypted copy", exitCode: Self.usage)
            case .invalidRawKey:
                self.init("\(error): a raw key is 64 hexadecimal digits", exitCode: Self.usage)
            case .missingLibrary:
                self.init(error.description, exitCode: Self.unavailable)
            }
        case let error as SyncError:
            switch error {
            case .keyMismatch(let reason) where reason.reason == .keyNotExpected:
                self.init(
                    "\(reason): leave out --log-key-file and --log-key-env for this file", exitCode: Self.permission)
            case .keyMismatch(let reason):
                self.init(
                    "\(reason) with --log-key-file, --log-key-env or SHARK_LOG_KEY", exitCode: Self.permission)
            case .wrongKey:
                self.init(
                    "\(error): check the key given with --log-key-file, --log-key-env or SHARK_LOG_KEY",
                    exitCode: Self.permission)
            case .misuse, .unsupportedModel:
                self.init(error.description, exitCode: Self.usage)
            case .internalFailure:
                self.init(error.description, exitCode: Self.software)
            case .file(let reason) where reason.reason == .cannotOpen:
                self.init(error.description, exitCode: Self.noInput)
            case .file:
                self.init(error.description, exitCode: Self.ioError)
            case .notAChangeLog, .unsupportedFormatVersion, .corrupt, .tooLarge, .foreignLineage, .belowHorizon,
                .mergePolicy:
                self.init(error.description, exitCode: Self.dataError)
            }
        case let error as SyncClientError:
            switch error.reason {
            case .unauthorized, .forbidden:
                self.init(
                    "\(error.message): check the token given with --token-file, --token-env or SHARK_HUB_TOKEN",
                    exitCode: Self.permission)
            case .notFound, .insecureAddress: self.init(error.message, exitCode: Self.usage)
            case .rejectedFile, .snapshotMismatch: self.init(error.message, exitCode: Self.dataError)
            case .unavailable, .busy: self.init(error.message, exitCode: Self.temporaryFailure)
            case .quotaExceeded, .stateFolder: self.init(error.message, exitCode: Self.cannotCreate)
            case .refused, .badResponse: self.init(error.message, exitCode: Self.unavailable)
            case .retiredKey:
                self.init(
                    "\(error.message) (give the new key first, then the older ones, as ID:HEX lines of "
                        + "--log-key-file, or separated by commas in --log-key-env or SHARK_LOG_KEY)",
                    exitCode: Self.permission)
            case .stale:
                self.init(
                    "\(error.message) (shark export on a device that synced, shark import here, then shark sync)",
                    exitCode: Self.dataError)
            }
        case let error as HubError:
            switch error.reason {
            case .notFound: self.init(error.message, exitCode: Self.noInput)
            default: self.init(error.message, exitCode: Self.usage)
            }
        case let error as CocoaError where error.code == .fileReadNoSuchFile:
            self.init("no such file: \(error.filePath ?? "?")", exitCode: Self.noInput)
        case let error as CocoaError:
            self.init(error.localizedDescription, exitCode: Self.ioError)
        default:
            self.init(String(describing: error), exitCode: Self.ioError)
        }
    }

    private init(describing error: SharkError) {
        switch error {
        case .fileNotFound(let path): self.init("no such file: \(path)", exitCode: Self.noInput)
        case .notADatabase(let path):
            self.init(
                "\(path) is not a database (or it is encrypted: give its key with --key-file, --key-env or SHARK_KEY)",
                exitCode: Self.dataError)
        case .corrupt: self.init("\(error): restore it from a backup", exitCode: Self.dataError)
        case .malformedPredicate(let syntax):
            // The description's caret diagram takes lines; one line names the offset instead.
            self.init(
                "malformed predicate \(syntax.text.debugDescription): expected \(syntax.expected) at offset "
                    + "\(syntax.offset), found \(syntax.found)", exitCode: Self.usage)
        case .invalidQuery: self.init(error.description, exitCode: Self.usage)
        case .invalidModel(let entity, let reason): self.init("\(entity): \(reason)", exitCode: Self.usage)
        case .cannotOpen: self.init(error.description, exitCode: Self.cannotCreate)
        case .readOnly(let path, _):
            self.init(
                "\(path) cannot be read without writing to it (an interrupted writer left a journal to roll back?): "
                    + "open it once with the app, or with shark import, then try again", exitCode: Self.dataError)
        default: self.init(error.description, exitCode: Self.ioError)
        }
    }
}

/// `reportingFailures` for an async command's body.
func reportingFailures(_ body: () async throws -> Void) async throws {
    do {
        try await body()
    } catch {
        throw reported(error)
    }
}

/// Runs a command's body, reporting any error as one line on standard error and exiting
/// with its code.
func reportingFailures(_ body: () throws -> Void) throws {
    do {
        try body()
    } catch {
        throw reported(error)
    }
}

/// Reports `error` as one line on standard error, and returns the exit code to throw.
private func reported(_ error: any Error) -> ExitCode {
    if let exit = error as? ExitCode { return exit }
    let failure = CommandFailure(describing: error)
    Terminal.reportError(failure.message)
    return ExitCode(failure.exitCode)
}

extension CocoaError {
    fileprivate var filePath: String? {
        (userInfo[NSFilePathErrorKey] as? String) ?? (userInfo["NSFilePath"] as? String)
    }
}

import Foundation
import SharkSync

/// Reading a command's input file whole: a path, `-` for standard input, or a pipe such as
/// `/dev/stdin` (which `Data(contentsOf:)` cannot read).
enum InputFile {
    static func read(_ path: String) throws -> Data {
        if path == "-" { return FileHandle.standardInput.readDataToEndOfFile() }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw CommandFailure("no such file: \(path)", exitCode: CommandFailure.noInput)
        }
        guard !isDirectory.boolValue else {
            throw CommandFailure("\(path) is a directory, not a file", exitCode: CommandFailure.noInput)
        }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw CommandFailure("cannot read \(path): check its permissions", exitCode: CommandFailure.noInput)
        }
        defer { try? handle.close() }
        do {
            return try handle.readToEnd() ?? Data()
        } catch {
            throw CommandFailure("cannot read \(path): \(error.localizedDescription)", exitCode: CommandFailure.ioError)
        }
    }
}

/// Reading and checking a change-log file, with the command line's errors (each naming the file).
enum ChangeLogFile {
    static func read(_ path: String, keys: LogKeyOptions) throws -> (Data, ChangeLogContents) {
        let data = try InputFile.read(path)
        do {
            return (data, try ChangeLogContents(reading: data, key: try keys.key(for: data)))
        } catch {
            var failure = CommandFailure(describing: error)
            failure.message = "\(path): \(failure.message)"
            throw failure
        }
    }
}

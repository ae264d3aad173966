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

/// A change-log file named on the command line, as a file that can be read more than once
/// (checked, then imported): standard input or a pipe is first copied to a temporary file,
/// a piece at a time, which `remove()` deletes.
struct LocalChangeLogFile {
    let url: URL
    private let isCopy: Bool

    init(_ path: String) throws {
        var status = stat()
        if path != "-", stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG {
            url = URL(fileURLWithPath: path)
            isCopy = false
            return
        }
        if path != "-" {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                throw CommandFailure("no such file: \(path)", exitCode: CommandFailure.noInput)
            }
            guard !isDirectory.boolValue else {
                throw CommandFailure("\(path) is a directory, not a file", exitCode: CommandFailure.noInput)
            }
        }
        guard let input = path == "-" ? FileHandle.standardInput : FileHandle(forReadingAtPath: path) else {
            throw CommandFailure("cannot read \(path): check its permissions", exitCode: CommandFailure.noInput)
        }
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("shark-input-\(UUID().uuidString)")
        guard FileManager.default.createFile(atPath: copy.path, contents: nil),
            let output = FileHandle(forWritingAtPath: copy.path)
        else {
            throw CommandFailure("cannot copy \(path) to a temporary file", exitCode: CommandFailure.ioError)
        }
        defer { try? output.close() }
        do {
            while let piece = try input.read(upToCount: 1 << 20), !piece.isEmpty { try output.write(contentsOf: piece) }
        } catch {
            try? FileManager.default.removeItem(at: copy)
            throw CommandFailure("cannot read \(path): \(error.localizedDescription)", exitCode: CommandFailure.ioError)
        }
        url = copy
        isCopy = true
    }

    /// Deletes the temporary copy, if one was made.
    func remove() {
        if isCopy { try? FileManager.default.removeItem(at: url) }
    }
}

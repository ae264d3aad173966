import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Standard output, standard error and the terminal behind them.
enum Terminal {
    /// Whether standard output goes to a terminal (not a pipe or a file).
    static var outputIsTerminal: Bool { isatty(STDOUT_FILENO) == 1 }
    /// Whether standard error goes to a terminal: progress is drawn only then.
    static var errorIsTerminal: Bool { isatty(STDERR_FILENO) == 1 }

    /// Writes `text` to standard output as is.
    static func write(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    /// Writes `bytes` to standard output.
    static func write(_ bytes: Data) {
        FileHandle.standardOutput.write(bytes)
    }

    /// Writes one line to standard error.
    static func writeError(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    /// An error as one line on standard error: `shark: error: …`.
    static func reportError(_ message: String) {
        let oneLine = message.split(whereSeparator: \.isNewline).joined(separator: " ")
        writeError("shark: error: " + oneLine)
    }

    /// Reads a line from the terminal without echoing it (a key); nil when there is no
    /// terminal to ask. Ctrl-C or Ctrl-D cancels (the terminal is restored either way: the
    /// keys arrive as bytes, not as signals that would end the process with echo still off).
    static func readSecret(prompt: String) throws -> String? {
        let descriptor = open("/dev/tty", O_RDWR | O_NOCTTY)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var original = termios()
        guard tcgetattr(descriptor, &original) == 0 else { return nil }
        var silent = original
        silent.c_lflag &= ~tcflag_t(ECHO | ISIG)
        _ = prompt.withCString { Foundation.write(descriptor, $0, strlen($0)) }
        guard tcsetattr(descriptor, TCSAFLUSH, &silent) == 0 else { return nil }
        defer {
            _ = tcsetattr(descriptor, TCSAFLUSH, &original)
            _ = "\n".withCString { Foundation.write(descriptor, $0, 1) }
        }
        var bytes: [UInt8] = []
        defer { for index in bytes.indices { bytes[index] = 0 } }
        var byte: UInt8 = 0
        while read(descriptor, &byte, 1) == 1, byte != 10, byte != 13 {
            if byte == 3 || (byte == 4 && bytes.isEmpty) {
                throw CommandFailure("cancelled", exitCode: CommandFailure.interrupted)
            }
            bytes.append(byte)
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// Readable sizes for people: `1.2 MB`.
enum Readable {
    static func bytes(_ count: Int) -> String {
        let units = ["bytes", "KB", "MB", "GB", "TB"]
        var value = Double(count)
        var unit = 0
        while value >= 1000, unit < units.count - 1 {
            value /= 1000
            unit += 1
        }
        return unit == 0 ? "\(count) bytes" : String(format: "%.1f ", value) + units[unit]
    }
}

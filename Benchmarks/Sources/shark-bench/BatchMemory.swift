import Foundation
import SharkORM
import SharkSQLite

/// The peak resident memory of a process that iterates every row of a large SQLite store
/// with `batch(size:)`: the store is filled by this process, and iterated by a fresh one
/// (this same binary, `--batch-iterate`), so the peak it reports is the iteration's alone.
enum BatchMemory {
    /// Fills a store with `rows` rows, iterates it in a child process, and prints the result.
    static func measure(rows: Int, size: Int, directory: String) throws {
        let path = directory + "/shark-batch-\(UUID().uuidString).sqlite"
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let store = try Store(.sqlite(path: path))
        try store.prepare(Row10.self)
        let chunk = 10_000
        for start in stride(from: 0, to: rows, by: chunk) {
            let input = InputRow.make(from: start, count: Swift.min(chunk, rows - start))
            try store.commit(input.map(Row10.init))
        }
        store.close()

        let child = Process()
        child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL
        child.arguments = ["--batch-iterate", path, "--batch-size", String(size)]
        let output = Pipe()
        child.standardOutput = output
        try child.run()
        child.waitUntilExit()
        let report = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        print("batch(size: \(size)) over \(rows) rows of a SQLite store: \(report.trimmingCharacters(in: .newlines))")
    }

    /// Iterates the store at `path` and prints the rows seen and the process's peak RSS.
    static func iterate(path: String, size: Int) throws {
        let store = try Store(.sqlite(path: path))
        var seen = 0
        try Row10.query(in: store).batch(size: size) { rows in seen += rows.count }
        store.close()
        print("\(seen) rows iterated, peak resident memory \(peakResidentMegabytes()) MB")
    }

    /// `VmHWM` of /proc/self/status: the peak resident set size of this process.
    static func peakResidentMegabytes() -> String {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
            let kilobytes = Double(line.split(separator: " ").dropFirst().first ?? "")
        else { return "unknown" }
        return String(format: "%.1f", kilobytes / 1024)
    }
}

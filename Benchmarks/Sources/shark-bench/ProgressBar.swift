import Foundation

/// A progress bar on standard error while the backends run: drawn only when standard error is
/// a terminal, so logs and pipes get the tables alone.
final class ProgressBar {
    private let total: Int
    private var done = 0
    private let isShown = isatty(STDERR_FILENO) != 0
    private let started = ContinuousClock.now

    init(total: Int) { self.total = max(1, total) }

    /// The next step starts: `label` says which.
    func step(_ label: String) {
        defer { done += 1 }
        guard isShown else { return }
        let width = 30
        let filled = min(width, done * width / total)
        let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
        let seconds = Int((ContinuousClock.now - started).components.seconds)
        FileHandle.standardError.write(Data("\u{1B}[2K\r\(bar) \(done)/\(total) \(label)  \(seconds) s".utf8))
    }

    func finish() {
        if isShown { FileHandle.standardError.write(Data("\u{1B}[2K\r".utf8)) }
    }
}

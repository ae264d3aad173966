import Foundation
import Synchronization

/// A progress bar on standard error, for work that may take more than a second: drawn only
/// when standard error is a terminal, and only once a second has passed, so short commands
/// and piped output stay quiet. Counting rows, it shows how many are done of how many, the
/// rate, and the time left at that rate.
final class Progress: Sendable {
    private struct State {
        var done = 0
        var total: Int?
        var label: String
        /// What the steps count ("rows"): shown with the rate and the time left.
        var unit: String?
        var drawn = false
        var finished = false
        /// While the caller writes to the terminal, the bar stays off it.
        var paused = false
    }

    private let state: Mutex<State>
    private let started = ContinuousClock.now
    private let isShown = Terminal.errorIsTerminal
    private static let delay = Duration.seconds(1)

    /// A bar for `total` steps (nil: a spinner, for one long step) counting `unit`s.
    init(_ label: String, total: Int? = nil, unit: String? = nil) {
        state = Mutex(State(total: total, label: label, unit: unit))
        guard isShown else { return }
        // Redraws while a single long step runs (a spinner has no other occasion to).
        Thread.detachNewThread { [weak self] in
            while let self, self.tick() { Thread.sleep(forTimeInterval: 0.1) }
        }
    }

    /// `count` more steps done; `label` replaces the description when given. Resumes a
    /// paused bar.
    func advance(by count: Int = 1, label: String? = nil) {
        state.withLock { state in
            state.done += count
            state.paused = false
            if let label { state.label = label }
        }
    }

    /// Takes the bar off the terminal until the next `advance`, so that output written to
    /// the same terminal in between does not mix with it.
    func pause() {
        guard isShown else { return }
        let wasDrawn = state.withLock { state in
            state.paused = true
            defer { state.drawn = false }
            return state.drawn
        }
        if wasDrawn { FileHandle.standardError.write(Data("\r\u{1B}[2K".utf8)) }
    }

    /// Clears the bar; nothing is drawn afterwards.
    func finish() {
        guard isShown else { return }
        let wasDrawn = state.withLock { state in
            state.finished = true
            return state.drawn
        }
        if wasDrawn { FileHandle.standardError.write(Data("\r\u{1B}[2K".utf8)) }
    }

    /// Draws the bar if it is time; false once finished.
    private func tick() -> Bool {
        let elapsed = ContinuousClock.now - started
        return state.withLock { state in
            guard !state.finished else { return false }
            guard elapsed >= Self.delay, !state.paused else { return true }
            state.drawn = true
            FileHandle.standardError.write(Data(("\r\u{1B}[2K" + Self.line(state, elapsed: elapsed)).utf8))
            return true
        }
    }

    private static func line(_ state: State, elapsed: Duration) -> String {
        let seconds = Int(elapsed.components.seconds)
        guard let total = state.total, total > 0 else {
            let frames = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"]
            let frame = frames[Int(elapsed.components.attoseconds / 100_000_000_000_000_000) % frames.count]
            return "\(frame) \(state.label)  \(seconds) s"
        }
        let width = 30
        let filled = min(width, state.done * width / total)
        let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
        guard let unit = state.unit else { return "\(bar) \(state.done)/\(total) \(state.label)  \(seconds) s" }
        let elapsedSeconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let rate = Double(state.done) / max(elapsedSeconds, 0.001)
        let left = rate > 0 ? Int((Double(max(0, total - state.done)) / rate).rounded(.up)) : nil
        return "\(bar) \(state.done)/\(total) \(unit), \(Int(rate))/s, "
            + (left.map { "\(Self.clock($0)) left" } ?? "…") + "  \(state.label)"
    }

    /// Seconds as m:ss, or h:mm:ss past an hour.
    static func clock(_ seconds: Int) -> String {
        let (hours, minutes, rest) = (seconds / 3600, seconds / 60 % 60, seconds % 60)
        let tail = String(format: "%02d:%02d", minutes, rest)
        return hours > 0 ? "\(hours):\(tail)" : String(format: "%d:%02d", minutes, rest)
    }
}

/// Runs `body` under a progress spinner labelled `label`.
func withProgress<T>(_ label: String, _ body: () throws -> T) rethrows -> T {
    let progress = Progress(label)
    defer { progress.finish() }
    return try body()
}

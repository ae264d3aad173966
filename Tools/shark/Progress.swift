import Foundation
import Synchronization

/// A progress bar on standard error, for work that may take more than a second: drawn only
/// when standard error is a terminal, and only once a second has passed, so short commands
/// and piped output stay quiet.
final class Progress: Sendable {
    private struct State {
        var done = 0
        var total: Int?
        var label: String
        var drawn = false
        var finished = false
    }

    private let state: Mutex<State>
    private let started = ContinuousClock.now
    private let isShown = Terminal.errorIsTerminal
    private static let delay = Duration.seconds(1)

    /// A bar for `total` steps (nil: a spinner, for one long step).
    init(_ label: String, total: Int? = nil) {
        state = Mutex(State(total: total, label: label))
        guard isShown else { return }
        // Redraws while a single long step runs (a spinner has no other occasion to).
        Thread.detachNewThread { [weak self] in
            while let self, self.tick() { Thread.sleep(forTimeInterval: 0.1) }
        }
    }

    /// One more step done; `label` replaces the description when given.
    func advance(label: String? = nil) {
        state.withLock { state in
            state.done += 1
            if let label { state.label = label }
        }
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
            guard elapsed >= Self.delay else { return true }
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
        return "\(bar) \(state.done)/\(total) \(state.label)  \(seconds) s"
    }
}

/// Runs `body` under a progress spinner labelled `label`.
func withProgress<T>(_ label: String, _ body: () throws -> T) rethrows -> T {
    let progress = Progress(label)
    defer { progress.finish() }
    return try body()
}

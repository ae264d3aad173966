import CHeapStats
import Foundation
import Synchronization

/// The peak heap a piece of work holds beyond what was held when it started, sampled every
/// few milliseconds on a thread of its own (Swift objects, SQLite's page cache and statements,
/// the memory engine's tables: all come from the C heap). One process runs every backend, so
/// the process's peak resident size could not tell them apart; the heap in use can.
final class PeakMemory: Sendable {
    private let baseline = shark_heap_in_use()
    private let peak = Atomic<Int>(0)
    private let running = Atomic<Bool>(true)
    private let stopped = DispatchSemaphore(value: 0)

    /// Starts sampling.
    init() {
        Thread.detachNewThread { [self] in
            while running.load(ordering: .relaxed) {
                sample()
                usleep(2_000)
            }
            stopped.signal()
        }
    }

    private func sample() {
        peak.max(Int(shark_heap_in_use()) - Int(baseline), ordering: .relaxed)
    }

    /// Stops sampling; the peak in bytes above the start.
    func stop() -> Int {
        sample()
        running.store(false, ordering: .relaxed)
        stopped.wait()
        return peak.load(ordering: .relaxed)
    }

    /// Runs `body`, and returns its peak.
    static func measure(_ body: () throws -> Void) rethrows -> Int {
        let sampler = PeakMemory()
        do {
            try body()
        } catch {
            _ = sampler.stop()
            throw error
        }
        return sampler.stop()
    }
}

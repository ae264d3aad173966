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

    /// Starts sampling, every `interval`. Each sample takes the allocator's lock while it
    /// walks the heap: every 2 ms over a heap of a million rows' objects, that slowed the work
    /// it measured by half, so work that allocates much is sampled less often.
    init(every interval: Duration = .milliseconds(2)) {
        let microseconds = useconds_t(
            interval.components.seconds * 1_000_000 + interval.components.attoseconds / 1_000_000_000_000)
        Thread.detachNewThread { [self] in
            while running.load(ordering: .relaxed) {
                sample()
                usleep(microseconds)
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
    static func measure(every interval: Duration = .milliseconds(2), _ body: () throws -> Void) rethrows -> Int {
        let sampler = PeakMemory(every: interval)
        do {
            try body()
        } catch {
            _ = sampler.stop()
            throw error
        }
        return sampler.stop()
    }
}

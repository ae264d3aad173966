import Logging
import ServiceLifecycle

/// Removes the uploads left unfinished past ``HubLimits/unfinishedUploadLifetime`` every few
/// minutes while a hub serves (``HubServer/serve(_:logger:alongside:onRunning:)``). Each hub process sweeps;
/// on a shared database they remove the same rows in transactions, so two sweeps at once
/// only repeat work.
struct ExpiredUploadSweeper: Service {
    let hub: Hub
    let metrics: HubMetrics
    let logger: Logger

    /// A quarter of the lifetime, at most 10 minutes, at least a second.
    var interval: Duration {
        .milliseconds(Int64(max(1, min(600, hub.limits.unfinishedUploadLifetime / 4)) * 1000))
    }

    func run() async throws {
        // Ends when the hub shuts down: a service that returned earlier would stop the hub.
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do { try await Task.sleep(for: interval) } catch { return }
                do {
                    let removed = try await hub.removeExpiredUploads()
                    if removed > 0 {
                        metrics.expiredUploadsRemoved(removed)
                        logger.info("removed expired unfinished uploads", metadata: ["uploads": "\(removed)"])
                    }
                } catch {
                    logger.warning("could not remove expired uploads: \(error)")
                }
            }
        }
    }
}

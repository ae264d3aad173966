import Logging
import ServiceLifecycle

/// The hub's chores while it serves (``HubServer/serve(_:logger:alongside:onRunning:)``),
/// every few minutes: removing the uploads left unfinished past
/// ``HubLimits/unfinishedUploadLifetime``, and dropping the files every device and the
/// verified snapshot cover (``Hub/dropCoveredFiles()``). Each hub process does them; on a
/// shared database they change the same rows in transactions, so two at once only repeat
/// work.
struct HubHousekeeping: Service {
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
                do {
                    let dropped = try await hub.dropCoveredFiles()
                    if dropped > 0 {
                        logger.info(
                            "dropped files every device and the verified snapshot hold",
                            metadata: ["files": "\(dropped)"])
                    }
                } catch {
                    logger.warning("could not drop covered files: \(error)")
                }
            }
        }
    }
}

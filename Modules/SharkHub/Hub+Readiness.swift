import Foundation
import SharkORM

extension Hub {
    /// Whether the hub can serve: its database answers a read of its own tables. A hub keeps
    /// nothing between requests, so this is all a load balancer needs to know before sending
    /// it devices (`GET /v1/ready`); `/v1/health` says only that the process answers.
    ///
    /// Throws what the store throws when it cannot.
    ///
    /// ```swift
    /// do { try await hub.checkDatabase() } catch { print("not ready: \(error)") }
    /// ```
    public func checkDatabase() async throws {
        _ = try await HubSpace.query(in: store).limit(1).count()
    }
}

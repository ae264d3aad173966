import Foundation
import SharkORM

extension Hub {
    /// Whether the hub can serve: its database answers a read of its own tables. A hub keeps
    /// nothing between requests, so this is all a load balancer needs to know before sending
    /// it devices (`GET /v1/ready`); `/v1/health` says only that the process answers.
    ///
    /// ```swift
    /// do { try await hub.checkDatabase() } catch { print("not ready: \(error)") }
    /// ```
    public func checkDatabase() async throws {
        do {
            _ = try await HubSpace.query(in: store).limit(1).count()
        } catch {
            throw HubError(.unavailable, "the hub's database does not answer: \(error)")
        }
    }
}

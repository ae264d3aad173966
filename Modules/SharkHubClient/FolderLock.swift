import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One sync at a time per state folder, across processes: an exclusive `flock` on its
/// `lock` file, held while the sync runs. Two syncs of one folder would upload one pending
/// file twice and overwrite each other's state. The kernel drops the lock when the process
/// dies, so a crash never leaves a folder locked.
final class FolderLock: Sendable {
    private let descriptor: Int32

    private init(descriptor: Int32) { self.descriptor = descriptor }

    /// Locks `folder` (created when missing), or throws `busy` when another sync holds it.
    static func acquire(_ folder: URL) async throws -> FolderLock {
        try await BlockingIO.run {
            do {
                // The user's alone: the state names files and the lock must not be another's.
                try FileManager.default.createDirectory(
                    at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            } catch {
                throw SyncClientError(.stateFolder, "cannot create the state folder \(folder.path): \(error)")
            }
            let path = folder.appendingPathComponent("lock").path
            let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
            guard descriptor >= 0 else {
                throw SyncClientError(.stateFolder, "cannot open \(path): \(String(cString: strerror(errno)))")
            }
            guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
                close(descriptor)
                throw SyncClientError(.busy, "another sync is using the state folder \(folder.path)")
            }
            return FolderLock(descriptor: descriptor)
        }
    }

    /// Gives the folder back. Closing the descriptor releases the lock.
    func release() {
        close(descriptor)
    }
}

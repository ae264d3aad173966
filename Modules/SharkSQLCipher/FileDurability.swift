import Foundation
@_spi(SharkDriver) import SharkORM

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Making a finished file durable and putting it in place in one step: what lets `encrypt`
/// and `decrypt` promise that their destination is either absent or complete.
enum FileDurability {
    /// Flushes the file at `path` to the disk.
    static func synchronize(_ path: String) throws {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { throw failure("cannot open \(path) to flush it", path: path) }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw failure("cannot flush \(path) to the disk", path: path) }
    }

    /// Renames `source` to `destination`, which must not exist: the rename is atomic, so a
    /// reader (or a crash) sees either no destination or the whole file. The folder is then
    /// flushed, so the new name survives a power cut.
    static func move(_ source: String, toNew destination: String) throws {
        // link() fails when the destination exists, where rename() would replace it. A file
        // system without hard links gets a rename after a last look.
        if link(source, destination) == 0 {
            unlink(source)
        } else if errno == EEXIST {
            throw SharkError.cannotOpen(path: destination, reason: "the file already exists")
        } else if errno == EPERM || errno == EOPNOTSUPP || errno == ENOTSUP,
            !FileManager.default.fileExists(atPath: destination)
        {
            guard rename(source, destination) == 0 else {
                throw failure("cannot move the finished copy to \(destination)", path: destination)
            }
        } else {
            throw failure("cannot move the finished copy to \(destination)", path: destination)
        }
        let folder = URL(fileURLWithPath: destination).deletingLastPathComponent().path
        let descriptor = open(folder, O_RDONLY)
        if descriptor >= 0 {
            _ = fsync(descriptor)
            close(descriptor)
        }
    }

    private static func failure(_ what: String, path: String) -> SharkError {
        SharkError.cannotOpen(path: path, reason: "\(what): \(String(cString: strerror(errno)))")
    }
}

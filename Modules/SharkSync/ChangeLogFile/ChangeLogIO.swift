import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where the bytes of a change log being read come from: a file read piece by piece, so that
/// a log of ten million rows is never held whole, or bytes already in memory (the `Data`
/// forms of the API, for small logs).
package protocol ChangeLogInput {
    var length: Int { get }
    func bytes(at offset: Int, count: Int) throws(SyncError) -> [UInt8]
}

/// Bytes in memory.
struct InMemoryChangeLogInput: ChangeLogInput {
    let data: Data

    var length: Int { data.count }

    func bytes(at offset: Int, count: Int) throws(SyncError) -> [UInt8] {
        let start = data.startIndex + offset
        return [UInt8](data[start..<start + count])
    }
}

/// A file, read where asked (`pread`). A file that cannot be read twice (a pipe, standard
/// input) is first copied to an unnamed temporary file, since the digest is checked in a
/// first pass and the frames applied in a second.
final class FileChangeLogInput: ChangeLogInput {
    private let descriptor: Int32
    let length: Int

    init(_ url: URL) throws(SyncError) {
        let path = url.path
        let opened = open(path, O_RDONLY | O_CLOEXEC)
        guard opened >= 0 else { throw .file(.cannotOpen, "cannot open \(path): \(Self.reason())") }
        var status = stat()
        guard fstat(opened, &status) == 0 else {
            close(opened)
            throw .file(.cannotRead, "cannot read \(path): \(Self.reason())")
        }
        if status.st_mode & S_IFMT == S_IFREG {
            descriptor = opened
            length = Int(status.st_size)
            return
        }
        defer { close(opened) }
        let spool = try TemporaryFile()
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let count = buffer.withUnsafeMutableBytes { systemRead(opened, $0.baseAddress!, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { throw .file(.cannotRead, "cannot read \(path): \(Self.reason())") }
            if count == 0 { break }
            try spool.append(buffer[..<count])
        }
        descriptor = dup(spool.descriptor)
        length = spool.length
    }

    deinit { close(descriptor) }

    func bytes(at offset: Int, count: Int) throws(SyncError) -> [UInt8] {
        try Self.read(descriptor, at: offset, count: count)
    }

    static func reason() -> String { String(cString: strerror(errno)) }
}

/// Where the bytes of a change log being written go.
protocol ChangeLogOutput {
    mutating func write(_ bytes: some Collection<UInt8>) throws(SyncError)
}

/// Bytes in memory (the `Data` forms of the API).
struct InMemoryChangeLogOutput: ChangeLogOutput {
    var bytes: [UInt8] = []

    mutating func write(_ bytes: some Collection<UInt8>) throws(SyncError) { self.bytes.append(contentsOf: bytes) }
}

/// An open file descriptor the caller owns (a `FileHandle`: standard output, a pipe, a socket).
struct DescriptorChangeLogOutput: ChangeLogOutput {
    let descriptor: Int32

    mutating func write(_ bytes: some Collection<UInt8>) throws(SyncError) {
        let contiguous = Array(bytes)
        var done = 0
        while done < contiguous.count {
            let written = contiguous.withUnsafeBytes {
                systemWrite(descriptor, $0.baseAddress! + done, $0.count - done)
            }
            if written < 0, errno == EINTR { continue }
            guard written > 0 else {
                throw .file(.cannotWrite, "cannot write the change log: \(FileChangeLogInput.reason())")
            }
            done += written
        }
    }
}

/// A file written under a temporary name beside its destination and renamed into place once
/// complete: an export that fails (a full disk, a store error) leaves no partial file, and
/// the destination changes in one step.
final class AtomicFileChangeLogOutput: ChangeLogOutput {
    private let destination: URL
    private let partial: URL
    private var output: DescriptorChangeLogOutput
    private var isFinished = false

    init(_ destination: URL) throws(SyncError) {
        self.destination = destination
        partial = destination.deletingLastPathComponent().appendingPathComponent(
            ".\(destination.lastPathComponent).\(UUID().uuidString).partial")
        let descriptor = open(partial.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw .file(.cannotOpen, "cannot create \(destination.path): \(FileChangeLogInput.reason())")
        }
        output = DescriptorChangeLogOutput(descriptor: descriptor)
    }

    deinit {
        if !isFinished {
            close(output.descriptor)
            unlink(partial.path)
        }
    }

    func write(_ bytes: some Collection<UInt8>) throws(SyncError) { try output.write(bytes) }

    /// Flushes the file to disk and renames it into place.
    func finish() throws(SyncError) {
        isFinished = true
        defer { close(output.descriptor) }
        guard fsync(output.descriptor) == 0, rename(partial.path, destination.path) == 0 else {
            let reason = FileChangeLogInput.reason()
            unlink(partial.path)
            throw .file(.cannotWrite, "cannot write \(destination.path): \(reason)")
        }
    }
}

/// An unnamed temporary file (unlinked as soon as it is created), appended to and read back:
/// where a writer keeps its compressed frames until the header that precedes them is known,
/// and where a reader keeps a log that came through a pipe.
final class TemporaryFile {
    let descriptor: Int32
    private(set) var length = 0

    init() throws(SyncError) {
        let directory = FileManager.default.temporaryDirectory.path
        var template = Array("\(directory)/sharklog-XXXXXX".utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else {
            throw .file(.cannotOpen, "cannot create a temporary file in \(directory): \(FileChangeLogInput.reason())")
        }
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }

    func append(_ bytes: some Collection<UInt8>) throws(SyncError) {
        var output = DescriptorChangeLogOutput(descriptor: descriptor)
        try output.write(bytes)
        length += bytes.count
    }
}

/// The compressed frames of a change log being written, in order: in memory while they are
/// few, in a temporary file past a few megabytes, so that an export's memory does not grow
/// with the store.
final class FrameSpool {
    private var buffer: [UInt8] = []
    private var file: TemporaryFile?
    /// Each frame's position among the spooled bytes, its length, and its inflated length.
    private(set) var frames: [(offset: Int, length: Int, payloadLength: Int)] = []
    private var length = 0
    private static let memoryLimit = 8 << 20

    func append(_ deflated: [UInt8], payloadLength: Int) throws(SyncError) {
        frames.append((length, deflated.count, payloadLength))
        length += deflated.count
        buffer.append(contentsOf: deflated)
        if buffer.count > Self.memoryLimit { try spill() }
    }

    private func spill() throws(SyncError) {
        if file == nil { file = try TemporaryFile() }
        try file!.append(buffer)
        buffer.removeAll(keepingCapacity: true)
    }

    /// The bytes of frame `index`, read back.
    func frame(_ index: Int) throws(SyncError) -> [UInt8] {
        let (offset, length, _) = frames[index]
        let inFile = file?.length ?? 0
        if offset >= inFile { return Array(buffer[(offset - inFile)..<(offset - inFile + length)]) }
        if offset + length > inFile { try spill() }  // a frame split between file and buffer
        return try FileChangeLogInput.read(file!.descriptor, at: offset, count: length)
    }
}

extension FileChangeLogInput {
    /// `count` bytes at `offset` of an open descriptor.
    static func read(_ descriptor: Int32, at offset: Int, count: Int) throws(SyncError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let read = bytes.withUnsafeMutableBytes { buffer in
                pread(descriptor, buffer.baseAddress! + done, count - done, off_t(offset + done))
            }
            if read < 0, errno == EINTR { continue }
            guard read > 0 else {
                throw .file(.cannotRead, "cannot read the change log: \(read == 0 ? "it ended early" : reason())")
            }
            done += read
        }
        return bytes
    }
}

/// `write(2)`, named apart from the `write` methods above.
private func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    write(descriptor, bytes, count)
}

/// `read(2)`, named apart from the `read` function above.
private func systemRead(_ descriptor: Int32, _ bytes: UnsafeMutableRawPointer, _ count: Int) -> Int {
    read(descriptor, bytes, count)
}

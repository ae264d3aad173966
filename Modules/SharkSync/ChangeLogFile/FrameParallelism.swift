import Dispatch

/// Work on the frames of a change log, several at once: a frame is deflated, sealed, opened,
/// inflated and parsed on its own, so a file of many frames uses every core (as pigz does for
/// gzip). Results come back in frame order, and of several failures the first frame's is
/// the one thrown, so a damaged file reports the same error however the work was spread.
enum FrameParallelism {
    static func map<Output: Sendable>(
        _ count: Int, _ body: @Sendable (Int) throws(SyncError) -> Output
    ) throws(SyncError) -> [Output] {
        guard count > 1 else {
            var results: [Output] = []
            for index in 0..<count { results.append(try body(index)) }
            return results
        }
        let slots = Slots<Result<Output, SyncError>>(count: count)
        defer { slots.deallocate() }
        DispatchQueue.concurrentPerform(iterations: count) { index in
            slots.store(Result { () throws(SyncError) -> Output in try body(index) }, at: index)
        }
        var results: [Output] = []
        results.reserveCapacity(count)
        for index in 0..<count {
            switch slots.take(at: index) {
            case .success(let result)?: results.append(result)
            case .failure(let error)?: throw error
            case nil: throw .internalFailure(.frameScheduling, "frame \(index) was not worked on")
            }
        }
        return results
    }
}

/// One slot per frame, each written by exactly one worker, read once all have finished
/// (`concurrentPerform` returns only then): that is what makes sharing it safe.
private struct Slots<Element>: @unchecked Sendable {
    private let base: UnsafeMutablePointer<Element?>
    private let count: Int

    init(count: Int) {
        self.count = count
        base = .allocate(capacity: count)
        base.initialize(repeating: nil, count: count)
    }

    func store(_ element: Element, at index: Int) { base[index] = element }

    func take(at index: Int) -> Element? { base[index].take() }

    func deallocate() {
        base.deinitialize(count: count)
        base.deallocate()
    }
}

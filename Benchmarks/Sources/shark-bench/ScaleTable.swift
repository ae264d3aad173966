import Foundation

extension ScaleBench {
    /// The Markdown tables of `figures`: per operation, each backend's cost at each size with
    /// its growth; the windows of `batch(size:)`; the heap and file bytes per row.
    static func table(_ figures: ScaleFigures) -> String {
        let sizes = figures.sizes
        let sizeTitles = sizes.map { $0.formatted() }
        var lines = [
            "Z: the cost of one operation as the store grows (\(sizeTitles.joined(separator: ", ")) rows of 10 "
                + "columns), keys uniformly random over the store; µs, median of \(figures.runs) runs of "
                + "\(figures.probes) probes (5× for lookups) with the runs' spread "
                + "(\(SharkStoreRuns.buildDescription)). Growth: the largest size's cost over the smallest's; "
                + "for a SharkORM SQL driver, also over the growth of the raw C loop on its library.",
            "",
        ]
        for operation in ScaleOperation.allCases where !operation.isWindow {
            let rows = figures.backends.compactMap { backend -> [String]? in
                let cells = sizes.map { size in
                    figures.point(backend, operation, size).map {
                        String(
                            format: "%@ (%@–%@)", microseconds($0.medianMicroseconds),
                            microseconds($0.minMicroseconds), microseconds($0.maxMicroseconds))
                    } ?? "—"
                }
                guard cells.contains(where: { $0 != "—" }) else { return nil }
                let growth = figures.growth(backend, operation)
                let relative = ScaleFigures.baseline(of: backend).flatMap { raw -> Double? in
                    guard let own = growth, let base = figures.growth(raw, operation), base > 0 else { return nil }
                    return own / base
                }
                return [title(backend)] + cells + [
                    growth.map { String(format: "%.2f×", $0) } ?? "—",
                    relative.map { String(format: "%.2f", $0) } ?? "",
                ]
            }
            guard !rows.isEmpty else { continue }
            lines.append("**\(operation.title)**")
            lines.append("")
            lines += markdownTable(["backend"] + sizeTitles + ["growth", "growth ÷ raw C's"], rows)
            lines.append("")
        }
        let windowRows = figures.backends.flatMap { backend in
            sizes.compactMap { size -> [String]? in
                let pairs: [(ScaleOperation, ScaleOperation)] = [
                    (.windowStart, .windowEnd), (.orderedWindowStart, .orderedWindowEnd),
                ]
                let cells = pairs.flatMap { first, last -> [String] in
                    guard let start = figures.point(backend, first, size),
                        let end = figures.point(backend, last, size)
                    else { return ["—", "—", "—"] }
                    return [
                        microseconds(start.medianMicroseconds), microseconds(end.medianMicroseconds),
                        String(format: "%.2f×", end.medianMicroseconds / max(start.medianMicroseconds, 1e-9)),
                    ]
                }
                guard cells.contains(where: { $0 != "—" }) else { return nil }
                return [title(backend), size.formatted(), max(1_000, size / 100).formatted()] + cells
            }
        }
        if !windowRows.isEmpty {
            lines.append("**batch(size:) over the whole store: its first windows against its last**")
            lines.append("")
            lines += markdownTable(
                [
                    "backend", "rows", "window", "by key: first", "last", "last ÷ first", "ordered: first", "last",
                    "last ÷ first",
                ], windowRows)
            lines.append("")
        }
        let footprintRows = figures.backends.compactMap { backend -> [String]? in
            let cells = sizes.map { size in
                figures.footprints.first { $0.backend == backend && $0.rows == size }.map {
                    String(format: "%.0f", $0.heapBytesPerRow)
                } ?? "—"
            }
            guard cells.contains(where: { $0 != "—" }) else { return nil }
            let file = figures.footprints.last { $0.backend == backend }?.fileBytesPerRow
            return [title(backend)] + cells + [file.map { String(format: "%.0f", $0) } ?? "—"]
        }
        lines.append("**Bytes per row: heap the filled store holds (its page cache, for a file), and its files**")
        lines.append("")
        lines += markdownTable(
            ["backend"] + sizeTitles.map { "heap at \($0)" } + ["file at \(sizeTitles.last ?? "")"], footprintRows)
        return lines.joined(separator: "\n")
    }

    private static func title(_ backend: String) -> String { BackendKind(rawValue: backend)?.title ?? backend }

    /// Microseconds with three significant digits: "0.412", "41.2", "4120".
    static func microseconds(_ value: Double) -> String {
        switch value {
        case ..<1: String(format: "%.3f", value)
        case ..<10: String(format: "%.2f", value)
        case ..<100: String(format: "%.1f", value)
        default: String(format: "%.0f", value)
        }
    }
}

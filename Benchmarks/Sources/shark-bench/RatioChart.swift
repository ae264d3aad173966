import Foundation

/// `--svg FILE`: a bar chart of a run, drawn by the tool itself: for each workload, each
/// backend's time as a ratio to raw C SQLite on a log scale (bars grow from 1× to the left
/// when faster, to the right when slower, each labelled with its ratio), then each backend's
/// peak heap. Readable without the table.
struct RatioChart {
    let results: BenchResults

    private static let colors = [
        "raw-sqlite": "#4d4d4d", "raw-sqlcipher": "#9e9e9e", "grdb": "#e6862e", "sqlite": "#2b6cb0",
        "sqlcipher": "#6b46c1", "memory": "#2f855a", "dictionary": "#c53030",
    ]
    private let width = 980.0
    private let plotLeft = 360.0
    private let plotRight = 900.0
    private let barHeight = 11.0
    private let barGap = 3.0
    private let groupGap = 14.0

    /// One bar: a backend's ratio, and what its tooltip says.
    private typealias Bar = (backend: String, ratio: Double, detail: String)

    var svg: String {
        let backends = results.backends
        var body: [String] = []
        var y = 0.0

        // Title, settings, legend.
        body.append(
            text(
                24, y + 28, "shark-bench: time relative to raw C SQLite (log scale; left of 1× is faster)", size: 17,
                weight: "bold"))
        body.append(
            text(
                24, y + 48,
                "\(results.rows) rows, median of \(results.runs) runs, \(results.build), SQLite \(results.sqliteVersion), \(results.date)",
                size: 12, fill: "#555"))
        body.append(text(24, y + 64, results.machine.summary, size: 12, fill: "#555"))
        y += 82
        var legendX = 24.0
        for backend in backends {
            body.append(rect(legendX, y - 9, 10, 10, color(backend.id)))
            body.append(text(legendX + 14, y, backend.title, size: 11))
            legendX += 30 + Double(backend.title.count) * 6.6
            if legendX > width - 160 {
                legendX = 24
                y += 16
            }
        }
        y += 22

        // Every workload against raw C SQLite.
        let groups = results.workloads.map { workload in
            (
                workload.title,
                backends.compactMap { backend -> Bar? in
                    guard let timing = workload.timings.first(where: { $0.backend == backend.id }),
                        let ratio = timing.ratioToRawSQLite
                    else { return nil }
                    return (backend.id, ratio, String(format: "%.2f ms", timing.medianMilliseconds))
                }
            )
        }
        y = ratioPanel(groups, top: y, into: &body)

        // What sync and observation cost SharkORM's drivers, against the same work without them.
        var overheads: [(String, [Bar])] = []
        if let sync = results.sync, !sync.isEmpty {
            overheads.append(
                (
                    "S insert with sync / without (goal ≤ 1.5×)",
                    sync.map { ($0.backend, $0.captureRatio, "capture cost") }
                ))
            overheads.append(
                (
                    "S import / the same plain inserts (goal ≤ 2×)",
                    sync.map {
                        ($0.backend, 1 / max($0.importShareOfPlainInserts, 1e-9), "import time over plain inserts")
                    }
                ))
        }
        if let observation = results.observation, !observation.isEmpty {
            overheads.append(
                (
                    "O 10 live queries observing / none (goal ≤ 1.2×)",
                    observation.map {
                        ($0.backend, $0.ratio, String(format: "p99 latency %.2f ms", $0.latencyP99Milliseconds))
                    }
                ))
        }
        if !overheads.isEmpty {
            body.append(
                text(
                    24, y, "Sync and observation: SharkORM's drivers against the same work without them", size: 14,
                    weight: "bold"))
            y = ratioPanel(overheads, top: y + 22, into: &body)
        }

        // Peak heap.
        let peaks = backends.compactMap { backend in backend.peakMemoryBytes.map { (backend, Double($0) / 1_000_000) } }
        if !peaks.isEmpty {
            body.append(
                text(
                    24, y, "Peak heap per backend beyond its start (MB, one repetition's most)", size: 14,
                    weight: "bold"))
            y += 14
            let largest = max(peaks.map(\.1).max() ?? 1, 0.001)
            for (backend, megabytes) in peaks {
                body.append(text(24, y + barHeight - 1.5, backend.title, size: 12))
                let length = megabytes / largest * (plotRight - plotLeft)
                body.append(rect(plotLeft, y, max(1, length), barHeight, color(backend.id)))
                body.append(
                    text(
                        plotLeft + length + 4, y + barHeight - 1.5, String(format: "%.1f MB", megabytes), size: 10,
                        fill: "#333"))
                y += barHeight + barGap + 2
            }
            y += 10
        }
        let height = y + 10
        return """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(height))" viewBox="0 0 \(Int(width)) \(Int(height))" font-family="Helvetica, Arial, sans-serif">
            <rect width="100%" height="100%" fill="#ffffff"/>
            \(body.joined(separator: "\n"))
            </svg>

            """
    }

    /// Groups of bars on a log scale around 1×, labelled; returns where the panel ends.
    private func ratioPanel(_ groups: [(String, [Bar])], top: Double, into body: inout [String]) -> Double {
        let ratios = groups.flatMap { $0.1.map(\.ratio) }.filter { $0 > 0 && $0.isFinite }
        let (low, high) = Self.domain(ratios)
        func x(_ ratio: Double) -> Double {
            plotLeft + (log10(ratio) - log10(low)) / (log10(high) - log10(low)) * (plotRight - plotLeft)
        }
        var y = top
        var bars: [String] = []
        for (title, rows) in groups where !rows.isEmpty {
            let groupHeight = Double(rows.count) * (barHeight + barGap)
            bars.append(text(24, y + groupHeight / 2 + 4, Self.shorten(title, to: 52), size: 12))
            for bar in rows {
                let ratio = bar.ratio.isFinite && bar.ratio > 0 ? bar.ratio : 1
                let start = x(1)
                let end = x(min(max(ratio, low), high))
                bars.append(
                    rect(
                        min(start, end), y, max(1, abs(end - start)), barHeight, color(bar.backend),
                        title: "\(bar.backend): \(bar.detail)"))
                let label = String(format: ratio < 10 ? "%.2f×" : "%.0f×", ratio)
                bars.append(
                    ratio >= 1
                        ? text(end + 4, y + barHeight - 1.5, label, size: 10, fill: "#333")
                        : text(end - 4, y + barHeight - 1.5, label, size: 10, fill: "#333", anchor: "end"))
                y += barHeight + barGap
            }
            y += groupGap
        }
        // The grid goes under the bars.
        for tick in Self.ticks(low, high) {
            let tickX = x(tick)
            body.append(
                line(tickX, top - 6, tickX, y - groupGap + 4, tick == 1 ? "#222" : "#ddd", width: tick == 1 ? 1.5 : 1))
            body.append(text(tickX, y + 8, Self.tickLabel(tick), size: 10, fill: "#555", anchor: "middle"))
        }
        body += bars
        return y + 34
    }

    private func color(_ backend: String) -> String { Self.colors[backend] ?? "#888888" }

    /// The ratios' range, widened to whole 1-2-5 steps and always including 1×.
    static func domain(_ ratios: [Double]) -> (Double, Double) {
        let low = min(ratios.min() ?? 1, 1) / 1.25
        let high = max(ratios.max() ?? 1, 1) * 1.25
        let steps = ticks(1e-6, 1e6)
        return (steps.last { $0 <= low } ?? low, steps.first { $0 >= high } ?? high)
    }

    /// 1-2-5 ticks between `low` and `high`.
    static func ticks(_ low: Double, _ high: Double) -> [Double] {
        var ticks: [Double] = []
        var decade = pow(10, floor(log10(low)))
        while decade <= high {
            for step in [1.0, 2, 5] where decade * step >= low * 0.999 && decade * step <= high * 1.001 {
                ticks.append(decade * step)
            }
            decade *= 10
        }
        return ticks
    }

    static func tickLabel(_ tick: Double) -> String {
        tick >= 1 ? String(format: "%.0f×", tick) : String(format: "%g×", tick)
    }

    static func shorten(_ text: String, to length: Int) -> String {
        text.count <= length ? text : String(text.prefix(length - 1)) + "…"
    }

    private func text(
        _ x: Double, _ y: Double, _ content: String, size: Double, fill: String = "#111", weight: String = "normal",
        anchor: String = "start"
    ) -> String {
        "<text x=\"\(Self.number(x))\" y=\"\(Self.number(y))\" font-size=\"\(Self.number(size))\" fill=\"\(fill)\" "
            + "font-weight=\"\(weight)\" text-anchor=\"\(anchor)\">\(Self.escaped(content))</text>"
    }

    private func rect(_ x: Double, _ y: Double, _ width: Double, _ height: Double, _ fill: String, title: String? = nil)
        -> String
    {
        let shape =
            "<rect x=\"\(Self.number(x))\" y=\"\(Self.number(y))\" width=\"\(Self.number(width))\" height=\"\(Self.number(height))\" fill=\"\(fill)\""
        guard let title else { return shape + "/>" }
        return shape + "><title>\(Self.escaped(title))</title></rect>"
    }

    private func line(_ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double, _ stroke: String, width: Double) -> String
    {
        "<line x1=\"\(Self.number(x1))\" y1=\"\(Self.number(y1))\" x2=\"\(Self.number(x2))\" y2=\"\(Self.number(y2))\" "
            + "stroke=\"\(stroke)\" stroke-width=\"\(Self.number(width))\"/>"
    }

    static func number(_ value: Double) -> String { String(format: "%.1f", value) }

    static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}

import Foundation

/// `--scale-svg FILE`: Z drawn by the tool itself, one panel per operation: each backend's
/// cost (log scale) against the store's size (log scale), a line per backend labelled at its
/// right end with its growth ratio, largest size over smallest. A flat line is a cost that
/// does not grow with the store.
struct ScaleChart {
    let figures: ScaleFigures
    let caption: String

    private static let colors = [
        "raw-sqlite": "#4d4d4d", "raw-sqlcipher": "#9e9e9e", "sqlite": "#2b6cb0", "sqlcipher": "#6b46c1",
        "memory": "#2f855a", "dictionary": "#c53030",
    ]
    private let panelWidth = 470.0
    private let panelHeight = 230.0
    private let columns = 2

    var svg: String {
        var body: [String] = []
        body.append(
            text(24, 28, "shark-bench Z: the cost of one operation against the store's size", size: 17, bold: true))
        body.append(text(24, 48, caption, size: 12, fill: "#555"))
        var legendX = 24.0
        for backend in figures.backends {
            body.append(
                "<rect x=\"\(legendX)\" y=\"59\" width=\"10\" height=\"10\" fill=\"\(color(backend))\"/>")
            let title = BackendKind(rawValue: backend)?.title ?? backend
            body.append(text(legendX + 14, 68, title, size: 11))
            legendX += 30 + Double(title.count) * 6.6
        }
        let operations = ScaleOperation.allCases.filter { operation in
            !operation.isWindow && figures.points.contains { $0.operation == operation.rawValue }
        }
        for (index, operation) in operations.enumerated() {
            let left = 24 + Double(index % columns) * (panelWidth + 24)
            let top = 90 + Double(index / columns) * (panelHeight + 30)
            body += panel(operation, left: left, top: top)
        }
        let rows = (operations.count + columns - 1) / columns
        let height = 90 + Double(rows) * (panelHeight + 30) + 10
        let width = 24 + Double(columns) * (panelWidth + 24)
        return """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(height))" \
            viewBox="0 0 \(Int(width)) \(Int(height))" font-family="Helvetica, Arial, sans-serif">
            <rect width="100%" height="100%" fill="white"/>
            \(body.joined(separator: "\n"))
            </svg>

            """
    }

    private func panel(_ operation: ScaleOperation, left: Double, top: Double) -> [String] {
        var parts = [text(left, top + 12, operation.title, size: 13, bold: true)]
        let plotLeft = left + 54
        let plotRight = left + panelWidth - 110
        let plotTop = top + 24
        let plotBottom = top + panelHeight - 24
        let points = figures.points.filter { $0.operation == operation.rawValue && $0.medianMicroseconds > 0 }
        guard let low = points.map(\.medianMicroseconds).min(), let high = points.map(\.medianMicroseconds).max(),
            let smallest = figures.sizes.first, let largest = figures.sizes.last
        else { return parts }
        let yLow = log10(low) - 0.15
        let yHigh = max(log10(high) + 0.15, yLow + 0.5)
        func x(_ rows: Int) -> Double {
            guard largest > smallest else { return (plotLeft + plotRight) / 2 }
            let share =
                (log10(Double(rows)) - log10(Double(smallest))) / (log10(Double(largest)) - log10(Double(smallest)))
            return plotLeft + share * (plotRight - plotLeft)
        }
        func y(_ microseconds: Double) -> Double {
            plotBottom - (log10(microseconds) - yLow) / (yHigh - yLow) * (plotBottom - plotTop)
        }
        parts.append(
            "<rect x=\"\(plotLeft)\" y=\"\(plotTop)\" width=\"\(plotRight - plotLeft)\" height=\"\(plotBottom - plotTop)\" fill=\"none\" stroke=\"#ccc\"/>"
        )
        // Gridlines at each power of ten; within one decade, at the panel's lowest and highest
        // figures instead.
        var ticks = stride(from: ceil(yLow), through: floor(yHigh), by: 1).map { pow(10, $0) }
        if ticks.isEmpty { ticks = [low, high] }
        for value in ticks {
            parts.append(
                "<line x1=\"\(plotLeft)\" x2=\"\(plotRight)\" y1=\"\(y(value))\" y2=\"\(y(value))\" stroke=\"#eee\"/>")
            parts.append(
                text(plotLeft - 6, y(value) + 4, ScaleBench.microseconds(value) + " µs", size: 10, anchor: "end"))
        }
        for size in figures.sizes {
            parts.append(text(x(size), plotBottom + 14, size.formatted(), size: 10, anchor: "middle"))
        }
        var labelYs: [Double] = []
        for backend in figures.backends {
            let line = figures.sizes.compactMap { size in
                figures.point(backend, operation, size).map { (x(size), y($0.medianMicroseconds)) }
            }
            guard let last = line.last else { continue }
            let path = line.map { String(format: "%.1f,%.1f", $0.0, $0.1) }.joined(separator: " ")
            parts.append(
                "<polyline points=\"\(path)\" fill=\"none\" stroke=\"\(color(backend))\" stroke-width=\"2\"/>")
            for point in line {
                parts.append(
                    "<circle cx=\"\(point.0)\" cy=\"\(point.1)\" r=\"2.5\" fill=\"\(color(backend))\"/>")
            }
            var labelY = last.1 + 4
            while labelYs.contains(where: { abs($0 - labelY) < 11 }) { labelY += 11 }
            labelYs.append(labelY)
            let growth = figures.growth(backend, operation).map { String(format: "%.2f×", $0) } ?? ""
            parts.append(text(plotRight + 6, labelY, growth, size: 10, fill: color(backend)))
        }
        return parts
    }

    private func color(_ backend: String) -> String { Self.colors[backend] ?? "#000" }

    private func text(
        _ x: Double, _ y: Double, _ content: String, size: Int, fill: String = "#222", bold: Bool = false,
        anchor: String = "start"
    ) -> String {
        let escaped = content.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
        return
            "<text x=\"\(x)\" y=\"\(y)\" font-size=\"\(size)\" fill=\"\(fill)\" text-anchor=\"\(anchor)\"\(bold ? " font-weight=\"bold\"" : "")>\(escaped)</text>"
    }
}

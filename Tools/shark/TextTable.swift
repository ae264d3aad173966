/// A plain-text table for the terminal: a header, a rule, then rows; numbers right-aligned,
/// long cells cut with an ellipsis (the `json` and `csv` formats keep whole values).
struct TextTable {
    var headers: [String]
    var rows: [[(text: String, isNumber: Bool)]] = []
    /// The widest a cell is shown.
    var maximumWidth = 48
    /// Widths the columns keep at least (those of the rows written before, when a table is
    /// written a window at a time).
    var minimumWidths: [Int] = []

    init(headers: [String]) { self.headers = headers }

    mutating func append(_ cells: [(text: String, isNumber: Bool)]) { rows.append(cells) }

    var rendered: String { render(includingHeader: true).text }

    /// The table's lines (the header and its rule first when `includingHeader`), and the
    /// columns' widths.
    func render(includingHeader: Bool) -> (text: String, widths: [Int]) {
        let cut = rows.map {
            $0.map { (text: Self.cut(Self.oneLine($0.text), to: maximumWidth), isNumber: $0.isNumber) }
        }
        var widths = headers.map(\.count)
        for (index, width) in minimumWidths.enumerated() where index < widths.count {
            widths[index] = max(widths[index], width)
        }
        for row in cut {
            for (index, cell) in row.enumerated() where index < widths.count {
                widths[index] = max(widths[index], cell.text.count)
            }
        }
        func line(_ cells: [(text: String, isNumber: Bool)]) -> String {
            var parts: [String] = []
            for (index, cell) in cells.enumerated() {
                let padding = String(repeating: " ", count: max(0, widths[index] - cell.text.count))
                let isLast = index == cells.count - 1
                parts.append(cell.isNumber ? padding + cell.text : (isLast ? cell.text : cell.text + padding))
            }
            let line = parts.joined(separator: "  ")
            return String(line[..<(line.lastIndex { $0 != " " }.map(line.index(after:)) ?? line.startIndex)])
        }
        var lines: [String] = []
        if includingHeader {
            lines.append(line(headers.map { (text: $0, isNumber: false) }))
            lines.append(widths.map { String(repeating: "-", count: $0) }.joined(separator: "  "))
        }
        lines += cut.map(line)
        return (lines.joined(separator: "\n") + "\n", widths)
    }

    private static func oneLine(_ text: String) -> String {
        guard text.contains(where: \.isNewline) else { return text }
        return text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).joined(separator: "⏎")
    }

    private static func cut(_ text: String, to width: Int) -> String {
        text.count <= width ? text : String(text.prefix(width - 1)) + "…"
    }
}

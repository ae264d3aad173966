import Foundation

/// The tables `shark-bench` prints: milliseconds with ratios to the raw C SQLite loop, the
/// spread of each cell, and each SharkORM driver against the loop over its own library.
struct Report {
    let timings: [Workload: [BackendKind: [Double]]]
    let backends: [BackendKind]
    let workloads: [Workload]
    let rows: Int
    let runs: Int
    let rangeWidth: Int
    var markdown: Bool
    /// What the ratios are to: raw C SQLite, or raw postgres-nio for the PostgreSQL family.
    var baseline: BackendKind = .rawSQLite
    /// The database engine, when not SQLite ("PostgreSQL 15.18").
    var engine: String?

    func median(_ workload: Workload, _ backend: BackendKind) -> Double? {
        guard let values = timings[workload]?[backend], !values.isEmpty else { return nil }
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    func ratio(_ workload: Workload, _ backend: BackendKind, to baseline: BackendKind) -> Double? {
        guard let value = median(workload, backend), let base = median(workload, baseline), base > 0 else { return nil }
        return value / base
    }

    /// What a short or debug run says of itself: its numbers are indicative, and differences
    /// inside the spread are noise, not findings.
    var shortRunCaution: String? {
        var reasons: [String] = []
        if rows < 100_000 { reasons.append("\(rows) rows") }
        if runs < 5 { reasons.append(runs < 3 ? "\(runs) repetition(s), too few for a spread" : "\(runs) repetitions") }
        if SharkStoreRuns.isDebugBuild { reasons.append("a debug build") }
        guard !reasons.isEmpty else { return nil }
        return "INDICATIVE ONLY (\(reasons.joined(separator: ", "))): a difference inside the spread is noise, "
            + "not a finding. Measurements: --rows 100000 --runs 5, release build (docs/benchmarks.md)."
    }

    func render(sqliteVersion: String, peakMemory: [BackendKind: Int] = [:]) -> String {
        var lines: [String] = []
        lines.append(
            "\(rows) rows × 10 columns, ranges of \(rangeWidth) rows, \(engine ?? "SQLite \(sqliteVersion)"), median of "
                + "\(runs) interleaved repetitions, order rotated (\(SharkStoreRuns.buildDescription))")
        if let caution = shortRunCaution { lines.append(caution) }
        lines.append("")
        lines.append("Milliseconds (median), and the ratio to \(baseline.title) in the same run:")
        lines.append("")
        lines += table(header: ["workload"] + backends.map(\.title)) { workload in
            backends.map { backend in
                guard let time = median(workload, backend) else { return "—" }
                let ratio = self.ratio(workload, backend, to: baseline).map { String(format: " (%.2f×)", $0) } ?? ""
                return String(format: "%.2f", time * 1000) + ratio
            }
        }
        lines.append("")
        lines.append("Spread, min–max milliseconds:")
        lines.append("")
        lines += table(header: ["workload"] + backends.map(\.title)) { workload in
            backends.map { backend in
                guard let values = timings[workload]?[backend], let low = values.min(), let high = values.max() else {
                    return "—"
                }
                return String(format: "%.2f–%.2f", low * 1000, high * 1000)
            }
        }
        lines.append("")
        lines.append(
            baseline == .rawPostgres
                ? "SharkORM against raw postgres-nio (goal: 1.30× at most) and Fluent (goal: below 1×), lower is faster:"
                : "Each SharkORM driver against the loop over its own library (lower is faster):")
        lines.append("")
        let comparisons: [(String, BackendKind, BackendKind)] = [
            ("sqlite / raw SQLite", .sharkSQLite, .rawSQLite),
            ("sqlcipher / raw SQLCipher", .sharkSQLCipher, .rawSQLCipher),
            ("sqlcipher / sqlite", .sharkSQLCipher, .sharkSQLite),
            ("memory / raw SQLite", .sharkMemory, .rawSQLite),
            ("memory / Dictionary", .sharkMemory, .dictionary),
            ("GRDB / raw SQLite", .grdb, .rawSQLite),
            ("postgres / raw postgres-nio", .sharkPostgres, .rawPostgres),
            ("postgres / Fluent", .sharkPostgres, .fluent),
            ("Fluent / raw postgres-nio", .fluent, .rawPostgres),
        ].filter { backends.contains($0.1) && backends.contains($0.2) }
        lines += table(header: ["workload"] + comparisons.map(\.0)) { workload in
            comparisons.map { _, backend, baseline in
                ratio(workload, backend, to: baseline).map { String(format: "%.2f×", $0) } ?? "—"
            }
        }
        if !peakMemory.isEmpty {
            lines.append("")
            lines.append("Peak heap beyond the start of a repetition (MB, the most of any repetition):")
            lines.append("")
            let cells = backends.map { backend in
                peakMemory[backend].map { String(format: "%.1f", Double($0) / 1e6) } ?? "—"
            }
            lines += rows(header: [""] + backends.map(\.title), body: [["peak heap"] + cells])
        }
        return lines.joined(separator: "\n")
    }

    private func table(header: [String], cells: (Workload) -> [String]) -> [String] {
        rows(header: header, body: workloads.map { [$0.title] + cells($0) })
    }

    private func rows(header: [String], body: [[String]]) -> [String] {
        if markdown { return markdownTable(header, body) }
        let widths = header.indices.map { column in
            ([header] + body).map { $0[column].count }.max() ?? 0
        }
        return ([header] + body).map { row in
            row.enumerated().map { column, text in
                column == 0
                    ? text.padding(toLength: widths[column], withPad: " ", startingAt: 0)
                    : String(repeating: " ", count: widths[column] - text.count) + text
            }.joined(separator: "  ")
        }
    }
}

/// A Markdown table: the header, then the rows, the first column left-aligned and the others
/// (figures) right-aligned.
func markdownTable(_ header: [String], _ rows: [[String]]) -> [String] {
    let alignment = ["---"] + Array(repeating: "---:", count: max(0, header.count - 1))
    return ([header, alignment] + rows).map { "| " + $0.joined(separator: " | ") + " |" }
}

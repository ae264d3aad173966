import Foundation

/// `--compare OLD.json`: what got faster or slower since an earlier run, workload by workload
/// and backend by backend. Changes within ±5 % are noise on a shared machine and marked as such.
struct Comparison {
    let old: BenchResults
    let new: BenchResults

    /// The threshold beyond which a change is reported as faster or slower.
    static let noise = 0.05

    /// "faster" when a cost went from `before` to a `now` more than 5 % lower.
    static func verdict(_ before: Double, _ now: Double) -> String {
        let change = now / before - 1
        return change < -noise ? "faster" : change > noise ? "slower" : "same (within ±5 %)"
    }

    var rendered: String {
        var lines = [
            "Compared with \(old.date) (\(old.rows) rows, \(old.runs) runs, \(old.machine.summary)):", "",
            "| workload | backend | before (ms) | now (ms) | change | ratio to raw C before → now | |",
            "| --- | --- | ---: | ---: | ---: | --- | --- |",
        ]
        for workload in new.workloads {
            for timing in workload.timings {
                guard let before = old.timing(workload.id, timing.backend) else { continue }
                let change = timing.medianMilliseconds / before.medianMilliseconds - 1
                let verdict = Self.verdict(before.medianMilliseconds, timing.medianMilliseconds)
                let ratios = [before.ratioToRawSQLite, timing.ratioToRawSQLite].map {
                    $0.map { String(format: "%.2f×", $0) } ?? "—"
                }.joined(separator: " → ")
                lines.append(
                    "| \(workload.id) | \(timing.backend) | "
                        + String(
                            format: "%.2f | %.2f | %+.1f %%", before.medianMilliseconds, timing.medianMilliseconds,
                            change * 100)
                        + " | \(ratios) | \(verdict) |")
            }
        }
        for figure in new.sync ?? [] {
            guard let before = old.sync?.first(where: { $0.backend == figure.backend }) else { continue }
            lines.append(
                "| S capture | \(figure.backend) | | | | "
                    + String(format: "%.2f× → %.2f×", before.captureRatio, figure.captureRatio)
                    + " (sync on / off) | \(Self.verdict(before.captureRatio, figure.captureRatio)) |")
            lines.append(
                "| S import | \(figure.backend) | | | | "
                    + String(
                        format: "%.0f%% → %.0f%%", before.importShareOfPlainInserts * 100,
                        figure.importShareOfPlainInserts * 100)
                    + " of plain inserts | \(Self.verdict(figure.importShareOfPlainInserts, before.importShareOfPlainInserts)) |"
            )
        }
        for figure in new.observation ?? [] {
            guard let before = old.observation?.first(where: { $0.backend == figure.backend }) else { continue }
            lines.append(
                "| O observing | \(figure.backend) | | | | "
                    + String(format: "%.2f× → %.2f×", before.ratio, figure.ratio)
                    + " (observed / not) | \(Self.verdict(before.ratio, figure.ratio)) |")
        }
        if old.rows != new.rows || old.machine.cpu != new.machine.cpu {
            lines += [
                "",
                "Note: the runs differ in rows or machine; the ratios to raw C of each run compare better than times.",
            ]
        }
        return lines.joined(separator: "\n")
    }
}

import Foundation

/// The part of a Markdown file that `--markdown-into` rewrites: the lines between
/// `<!-- shark-bench:begin -->` and `<!-- shark-bench:end -->`. What is around them (the
/// analysis, the history) stays as written.
enum GeneratedSection {
    static let begin = "<!-- shark-bench:begin -->"
    static let end = "<!-- shark-bench:end -->"

    /// Puts `content` between the markers of the file at `path` (only checks that they are
    /// there when `dryRun`); returns the new text.
    static func splice(_ content: String, into path: String, dryRun: Bool) throws -> String {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        guard let start = text.range(of: begin),
            let finish = text.range(of: end, range: start.upperBound..<text.endIndex)
        else {
            throw BenchError.wrongResult("\(path) has no \(begin) … \(end) lines to write the results between")
        }
        let spliced = String(text[..<start.upperBound]) + "\n" + content + "\n" + String(text[finish.lowerBound...])
        if !dryRun { try spliced.write(toFile: path, atomically: true, encoding: .utf8) }
        return spliced
    }
}

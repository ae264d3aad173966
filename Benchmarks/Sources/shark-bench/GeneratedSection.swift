import Foundation

/// The part of a Markdown file that `--markdown-into` rewrites: the lines between
/// `<!-- shark-bench:begin -->` and `<!-- shark-bench:end -->` (for a run of Z alone,
/// `<!-- shark-bench-scale:begin -->` and `<!-- shark-bench-scale:end -->`). What is around
/// them (the analysis, the history) stays as written.
enum GeneratedSection {
    /// The markers of the section named `name`.
    static func markers(_ name: String) -> (begin: String, end: String) {
        ("<!-- \(name):begin -->", "<!-- \(name):end -->")
    }

    /// Puts `content` between the markers of section `name` in the file at `path` (only
    /// checks that they are there when `dryRun`); returns the new text.
    static func splice(_ content: String, into path: String, section name: String, dryRun: Bool) throws -> String {
        let (begin, end) = markers(name)
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

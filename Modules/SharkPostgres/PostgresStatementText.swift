/// What raw SQL text holds, read the way PostgreSQL's lexer reads it: how many statements,
/// which `$n` parameters, and the words it begins with. Quoted text (`'…'`, `E'…'`,
/// `"…"`, `$tag$…$tag$`) and comments (`--`, nested `/* */`) are skipped, so a `;` or a `$1`
/// inside them counts for nothing.
///
/// Raw SQL is checked with it before anything runs: PostgreSQL accepts a parameter the text
/// never uses (postgres-nio declares each argument's type), which would silently bind an
/// argument to nothing; and a transaction statement would take the store's transactions out
/// of its hands.
struct PostgresStatementText {
    /// The statements, each without its surrounding blanks and comments; empty ones (`;;`)
    /// are not counted, as PostgreSQL does not count them.
    private(set) var statements: [String] = []
    /// The highest parameter number used (`$3` → 3); 0 when none.
    private(set) var highestParameter = 0
    /// The first two words of the first statement, upper-cased ("SELECT", "CREATE TABLE").
    private(set) var leadingWords: [String] = []
    /// Every name the text holds as PostgreSQL resolves it: a plain word folded to lower
    /// case, a quoted one (`"Person"`) as written.
    private(set) var names: Set<String> = []

    init(_ sql: String) {
        let text = Array(sql.unicodeScalars)
        var index = 0
        var current = String.UnicodeScalarView()
        var words: [String] = []
        var word = ""

        func endWord() {
            if !word.isEmpty {
                if words.count < 2 { words.append(word.uppercased()) }
                names.insert(word.lowercased())
            }
            word = ""
        }
        func endStatement() {
            endWord()
            let statement = String(current).trimmingBlanks()
            if !statement.isEmpty {
                statements.append(statement)
                if statements.count == 1 { leadingWords = words }
            }
            current = String.UnicodeScalarView()
            words = []
        }
        /// Copies text through the closing `quote` (doubled = escaped; a backslash escapes too
        /// in an `E'…'` string) into the statement, and returns what the quotes hold.
        @discardableResult
        func skipQuoted(_ quote: Unicode.Scalar, backslashEscapes: Bool) -> String {
            var content = String.UnicodeScalarView()
            current.append(text[index])
            index += 1
            while index < text.count {
                let scalar = text[index]
                current.append(scalar)
                index += 1
                if backslashEscapes && scalar == "\\" && index < text.count {
                    current.append(text[index])
                    content.append(text[index])
                    index += 1
                } else if scalar == quote {
                    if index < text.count && text[index] == quote {
                        current.append(text[index])
                        content.append(quote)
                        index += 1
                    } else {
                        break
                    }
                } else {
                    content.append(scalar)
                }
            }
            return String(content)
        }

        while index < text.count {
            let scalar = text[index]
            let next: Unicode.Scalar? = index + 1 < text.count ? text[index + 1] : nil
            switch scalar {
            case "-" where next == "-":
                endWord()
                // As PostgreSQL's lexer: a line comment ends at either line break.
                while index < text.count && text[index] != "\n" && text[index] != "\r" { index += 1 }
                current.append(" ")
            case "/" where next == "*":
                endWord()
                var depth = 0
                while index < text.count {
                    if text[index] == "/" && index + 1 < text.count && text[index + 1] == "*" {
                        depth += 1
                        index += 2
                    } else if text[index] == "*" && index + 1 < text.count && text[index + 1] == "/" {
                        depth -= 1
                        index += 2
                        if depth == 0 { break }
                    } else {
                        index += 1
                    }
                }
                current.append(" ")
            case "'":
                // E'…' (or e'…'), just read as a word, escapes with backslashes.
                let escapes = word.uppercased() == "E"
                endWord()
                skipQuoted("'", backslashEscapes: escapes)
            case "\"":
                endWord()
                names.insert(skipQuoted("\"", backslashEscapes: false))
            case "$" where word.isEmpty:
                if let number = Self.parameter(in: text, at: index) {
                    highestParameter = max(highestParameter, number.value)
                    current.append(contentsOf: text[index..<number.end])
                    index = number.end
                } else if let tag = Self.dollarTag(in: text, at: index) {
                    // $tag$ … $tag$: everything up to the same tag again is text.
                    current.append(contentsOf: text[index..<(index + tag.count)])
                    index += tag.count
                    while index < text.count && !text[index...].starts(with: tag) {
                        current.append(text[index])
                        index += 1
                    }
                    current.append(contentsOf: text[index..<min(text.count, index + tag.count)])
                    index = min(text.count, index + tag.count)
                } else {
                    current.append(scalar)
                    index += 1
                }
            case ";":
                endStatement()
                index += 1
            default:
                if word.isEmpty ? Self.startsName(scalar) : Self.continuesName(scalar) {
                    word.unicodeScalars.append(scalar)
                } else {
                    endWord()
                }
                current.append(scalar)
                index += 1
            }
        }
        endStatement()
    }

    /// `$` followed by digits at `start`: the parameter's number and where it ends.
    private static func parameter(in text: [Unicode.Scalar], at start: Int) -> (value: Int, end: Int)? {
        var end = start + 1
        var value = 0
        while end < text.count, Self.isDigit(text[end]) {
            value = min(value * 10 + Int(text[end].value - 48), Int(Int32.max))
            end += 1
        }
        return end > start + 1 ? (value, end) : nil
    }

    /// A dollar-quote opening at `start` (`$$`, `$body$`): its scalars; nil when the `$` is
    /// not one.
    private static func dollarTag(in text: [Unicode.Scalar], at start: Int) -> [Unicode.Scalar]? {
        var end = start + 1
        while end < text.count,
            end == start + 1 ? startsName(text[end]) : (continuesName(text[end]) && text[end] != "$")
        {
            end += 1
        }
        guard end < text.count, text[end] == "$" else { return nil }
        return Array(text[start...end])
    }

    // PostgreSQL's lexer reads names byte by byte: ASCII letters, `_` and every byte of a
    // character beyond ASCII start one; digits and `$` continue it.
    private static func startsName(_ scalar: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || scalar == "_" || scalar.value >= 0x80
    }

    private static func continuesName(_ scalar: Unicode.Scalar) -> Bool {
        startsName(scalar) || isDigit(scalar) || scalar == "$"
    }

    private static func isDigit(_ scalar: Unicode.Scalar) -> Bool { ("0"..."9").contains(scalar) }

    /// Whether the statement begins a transaction, ends one or works with savepoints or
    /// prepared transactions: the store's own work.
    var controlsTransactions: Bool {
        guard let first = leadingWords.first else { return false }
        switch first {
        case "BEGIN", "START", "COMMIT", "END", "ROLLBACK", "ABORT", "SAVEPOINT", "RELEASE": return true
        case "PREPARE": return leadingWords.dropFirst().first == "TRANSACTION"
        default: return false
        }
    }
}

extension String {
    fileprivate func trimmingBlanks() -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
            let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })
        else { return "" }
        return String(scalars[first...last])
    }
}

/// Splits a string predicate into tokens for ``PredicateParser``.
///
/// It refuses, with a positioned error, everything that is not part of the predicate
/// language rather than passing it on: a `;` (a second statement), `--` and `/* */`
/// (comments, the usual way to cut off the rest of an injected statement), unterminated
/// strings and stray characters. Values never reach SQL text anyway: the parser turns
/// literals and arguments into bound values.
struct PredicateLexer {
    /// One token and the character offset it starts at.
    struct Token: Equatable {
        enum Kind: Equatable {
            /// A name: a property, a function or a keyword (keywords are recognized by the
            /// parser, case-insensitively, so a property may share a keyword's spelling only
            /// when quoted with backticks).
            case word(String, quoted: Bool)
            /// A number as written, converted by the parser (which knows whether it is negated).
            case number(String)
            /// A string literal, quotes removed and doubled quotes undone.
            case string(String)
            /// `?` or a format specifier such as `%@`, `%i`, `%ull`.
            case placeholder(String)
            /// An operator or punctuation: `=`, `!=`, `<=`, `(`, `,`, `.`, `&&`…
            case symbol(String)
            case end
        }

        var kind: Kind
        var offset: Int
    }

    /// The format specifiers of Shark's `where(_:_:)`, without their `%`, each taking one
    /// argument.
    static let formatSpecifiers: Set<String> = [
        "@", "i", "u", "d", "s", "f", "g", "e", "ul", "ull", "ld", "lld", "lu", "llu", "li", "lli", "lf",
    ]

    private let characters: [Character]
    private let text: String
    private var position = 0

    init(_ text: String) {
        self.text = text
        self.characters = Array(text)
    }

    /// Every token, ending with `.end`.
    static func tokens(of text: String) throws(SharkError) -> [Token] {
        var lexer = PredicateLexer(text)
        var tokens: [Token] = []
        while true {
            let token = try lexer.next()
            tokens.append(token)
            if token.kind == .end { return tokens }
        }
    }

    private func peek(_ ahead: Int = 0) -> Character? {
        position + ahead < characters.count ? characters[position + ahead] : nil
    }

    private func failure(at offset: Int, expected: String, found: String) -> SharkError {
        .malformedPredicate(PredicateSyntaxError(text: text, offset: offset, expected: expected, found: found))
    }

    private mutating func next() throws(SharkError) -> Token {
        while let character = peek(), character.isWhitespace { position += 1 }
        let start = position
        guard let character = peek() else { return Token(kind: .end, offset: start) }
        func token(_ kind: Token.Kind, length: Int) -> Token {
            position += length
            return Token(kind: kind, offset: start)
        }
        switch character {
        case "'", "\"":
            return Token(kind: .string(try quoted(by: character, what: "the closing \(character)")), offset: start)
        case "`":
            return Token(kind: .word(try quoted(by: "`", what: "the closing `"), quoted: true), offset: start)
        case "?":
            return token(.placeholder("?"), length: 1)
        case "%":
            if let specifier = formatSpecifier() {
                return token(.placeholder("%" + specifier), length: 1 + specifier.count)
            }
            return token(.symbol("%"), length: 1)
        case ";":
            throw failure(at: start, expected: "one predicate", found: "';' (a second statement)")
        case "-" where peek(1) == "-", "/" where peek(1) == "*":
            throw failure(at: start, expected: "a predicate without comments", found: "\"\(character)\(peek(1)!)\"")
        case "=", "<", ">", "!":
            let pair = String([character] + (peek(1).map { [$0] } ?? []))
            if ["==", "!=", "<=", ">=", "<>"].contains(pair) { return token(.symbol(pair), length: 2) }
            return token(.symbol(String(character)), length: 1)
        case "&", "|":
            guard peek(1) == character else {
                throw failure(at: start, expected: "\(character)\(character)", found: "\"\(character)\"")
            }
            return token(.symbol(String([character, character])), length: 2)
        case "+", "-", "*", "/", "(", ")", ",":
            return token(.symbol(String(character)), length: 1)
        case ".":
            if let following = peek(1), following.isASCII, following.isNumber { return try number() }
            return token(.symbol("."), length: 1)
        default:
            if character.isASCII && character.isNumber { return try number() }
            if character.isLetter || character == "_" {
                var end = position
                while end < characters.count,
                    characters[end].isLetter || characters[end].isNumber || characters[end] == "_"
                {
                    end += 1
                }
                let word = String(characters[position..<end])
                position = end
                return Token(kind: .word(word, quoted: false), offset: start)
            }
            throw failure(at: start, expected: "a predicate", found: "\"\(character)\"")
        }
    }

    /// The specifier after a `%` (without it), when the letters there form one.
    private func formatSpecifier() -> String? {
        if peek(1) == "@" { return "@" }
        var letters = ""
        var ahead = 1
        while let character = peek(ahead), character.isASCII, character.isLetter, letters.count < 3 {
            letters.append(character)
            ahead += 1
        }
        // The longest specifier that the letters start with: `%ull`, then `%ul`, then `%u`.
        while !letters.isEmpty {
            if Self.formatSpecifiers.contains(letters) {
                // A specifier runs into a name (`%user`)? Then it is not one: `%` and a name.
                if let following = peek(1 + letters.count), following.isLetter || following.isNumber || following == "_"
                {
                    return nil
                }
                return letters
            }
            letters.removeLast()
        }
        return nil
    }

    /// A quoted string or name: the quote doubled inside stands for itself.
    private mutating func quoted(by quote: Character, what: String) throws(SharkError) -> String {
        let start = position
        position += 1
        var value = ""
        while true {
            guard let character = peek() else {
                throw failure(at: start, expected: what, found: "end of text")
            }
            position += 1
            if character == quote {
                guard peek() == quote else { return value }
                position += 1
            }
            value.append(character)
        }
    }

    /// Digits, an optional fraction and an optional exponent, not run into a name.
    private mutating func number() throws(SharkError) -> Token {
        let start = position
        func digits() {
            while let character = peek(), character.isASCII, character.isNumber { position += 1 }
        }
        digits()
        if peek() == "." {
            position += 1
            digits()
        }
        if let e = peek(), e == "e" || e == "E" {
            let mark = position
            position += 1
            if let sign = peek(), sign == "+" || sign == "-" { position += 1 }
            let exponentStart = position
            digits()
            if position == exponentStart { position = mark }
        }
        if let following = peek(), following.isLetter || following == "_" || following == "." {
            throw failure(
                at: start, expected: "a number", found: "\"" + String(characters[start...position]) + "\"")
        }
        return Token(kind: .number(String(characters[start..<position])), offset: start)
    }
}

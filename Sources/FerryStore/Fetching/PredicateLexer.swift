/// One token of a predicate format string, with its 1-based column.
struct PredicateToken: Equatable {
    enum Kind: Equatable {
        /// A word: a key path component or a keyword (the parser decides, case-insensitively).
        case word(String)
        /// `#word`: always a key path component, even when it spells a keyword.
        case escapedWord(String)
        case string(String)
        case integer(Int64)
        case double(Double)
        /// `$NAME`.
        case variable(String)
        /// `%@`, `%K`, `%d`… without the percent sign.
        case specifier(String)
        /// `@count`, without the at sign.
        case collectionOperator(String)
        /// Punctuation and operators: `( ) { } [ ] , . == != < <= > >= && || !`, normalised (`=` is `==`).
        case symbol(String)
        case end
    }

    var kind: Kind
    /// 1-based column of the token's first character.
    var column: Int
    /// The token as written, for messages.
    var text: String
}

/// Splits a format string into tokens. Columns count characters (grapheme clusters), from 1.
///
/// The lexer reads Unicode scalars, not characters, so that a quote followed by a combining mark still opens or
/// closes a string; each scalar knows the column of the character it belongs to.
struct PredicateLexer {
    private let characters: [Unicode.Scalar]
    private let columns: [Int]
    private let format: String
    private var index = 0

    /// Format specifiers Ferry accepts after `%`, longest first so that `%lld` wins over `%ld`.
    static let specifiers = ["lld", "lli", "llu", "ld", "li", "lu", "lf", "@", "K", "d", "i", "u", "f"]

    init(_ format: String) {
        self.format = format
        var scalars: [Unicode.Scalar] = []
        var columns: [Int] = []
        for (offset, character) in format.enumerated() {
            for scalar in character.unicodeScalars {
                scalars.append(scalar)
                columns.append(offset + 1)
            }
        }
        self.characters = scalars
        self.columns = columns
    }

    /// Every token, ending with `.end`.
    ///
    /// - Throws: ``FetchPredicateError`` with code `.syntax` at the offending column.
    static func tokens(of format: String) throws -> [PredicateToken] {
        var lexer = PredicateLexer(format)
        var tokens: [PredicateToken] = []
        while true {
            let token = try lexer.next()
            tokens.append(token)
            if token.kind == .end { return tokens }
        }
    }

    private func error(_ message: String, at column: Int) -> FetchPredicateError {
        FetchPredicateError(code: .syntax, message: message, format: format, column: column)
    }

    private func peek(_ offset: Int = 0) -> Unicode.Scalar? {
        index + offset < characters.count ? characters[index + offset] : nil
    }

    /// The 1-based column of the scalar at `scalarIndex` (one past the end for the end of the format).
    private func column(at scalarIndex: Int) -> Int {
        scalarIndex < columns.count ? columns[scalarIndex] : (columns.last ?? 0) + 1
    }

    private static func isWordStart(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.isAlphabetic || scalar == "_"
    }

    private static func isWordPart(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .spacingMark, .decimalNumber, .connectorPunctuation: true
        default: isWordStart(scalar)
        }
    }

    private static func isDigit(_ scalar: Unicode.Scalar?) -> Bool {
        scalar.map { ("0"..."9").contains($0) } ?? false
    }

    private mutating func word() -> String {
        let start = index
        while let character = peek(), Self.isWordPart(character) { index += 1 }
        return text(start..<index)
    }

    private mutating func next() throws -> PredicateToken {
        while let character = peek(), character.properties.isWhitespace { index += 1 }
        let start = index
        let tokenColumn = column(at: start)
        guard let character = peek() else { return PredicateToken(kind: .end, column: tokenColumn, text: "") }
        func token(_ kind: PredicateToken.Kind) -> PredicateToken {
            PredicateToken(kind: kind, column: tokenColumn, text: text(start..<index))
        }
        if Self.isWordStart(character) { return token(.word(word())) }
        if Self.isDigit(character) || (character == "-" && Self.isDigit(peek(1))) { return token(try number()) }
        switch character {
        case "\"", "'":
            return token(.string(try string(quote: character)))
        case "#", "$", "@":
            index += 1
            guard let first = peek(), Self.isWordStart(first) else {
                throw error("expected a name after '\(character)'", at: tokenColumn)
            }
            let name = word()
            switch character {
            case "#": return token(.escapedWord(name))
            case "$": return token(.variable(name))
            default: return token(.collectionOperator(name))
            }
        case "%":
            index += 1
            for specifier in Self.specifiers where matches(specifier) {
                index += specifier.count
                return token(.specifier(specifier))
            }
            throw error("unknown format specifier '%\(peek().map(String.init) ?? "")'", at: tokenColumn)
        default:
            return token(.symbol(try symbol(character, column: tokenColumn)))
        }
    }

    private func matches(_ text: String) -> Bool {
        for (offset, scalar) in text.unicodeScalars.enumerated() where peek(offset) != scalar { return false }
        return true
    }

    private func text(_ range: Range<Int>) -> String {
        var text = ""
        text.unicodeScalars.append(contentsOf: characters[range])
        return text
    }

    /// Reads an operator or punctuation mark and returns its normalised spelling.
    private mutating func symbol(_ character: Unicode.Scalar, column: Int) throws -> String {
        let pairs: [String: String] = [
            "==": "==", "!=": "!=", "<>": "!=", "<=": "<=", "=<": "<=", ">=": ">=", "=>": ">=", "&&": "&&",
            "||": "||",
        ]
        if index + 1 < characters.count, let normalised = pairs[text(index..<index + 2)] {
            index += 2
            return normalised
        }
        let singles: [Unicode.Scalar: String] = [
            "=": "==", "<": "<", ">": ">", "!": "!", "(": "(", ")": ")", "{": "{", "}": "}", "[": "[", "]": "]",
            ",": ",", ".": ".",
        ]
        guard let normalised = singles[character] else { throw error("unexpected '\(character)'", at: column) }
        index += 1
        return normalised
    }

    /// Reads `-?digits(.digits)?([eE][+-]?digits)?`: an integer when it has neither fraction nor exponent.
    private mutating func number() throws -> PredicateToken.Kind {
        let start = index
        if peek() == "-" { index += 1 }
        func digits() { while Self.isDigit(peek()) { index += 1 } }
        digits()
        var isInteger = true
        if peek() == ".", Self.isDigit(peek(1)) {
            isInteger = false
            index += 1
            digits()
        }
        if let e = peek(), e == "e" || e == "E" {
            let signLength = peek(1) == "+" || peek(1) == "-" ? 1 : 0
            if Self.isDigit(peek(1 + signLength)) {
                isInteger = false
                index += 1 + signLength
                digits()
            }
        }
        let literal = text(start..<index)
        if let next = peek(), Self.isWordPart(next) {
            throw error("unexpected '\(next)' after the number \(literal)", at: column(at: index))
        }
        if isInteger {
            guard let value = Int64(literal) else {
                throw error("the integer \(literal) is out of range", at: column(at: start))
            }
            return .integer(value)
        }
        guard let value = Double(literal), value.isFinite else {
            throw error("the number \(literal) is out of range", at: column(at: start))
        }
        return .double(value)
    }

    /// Reads a quoted string with backslash escapes: `\\ \' \" \n \t \r \0 \uXXXX`.
    private mutating func string(quote: Unicode.Scalar) throws -> String {
        let openingColumn = column(at: index)
        index += 1
        var value = ""
        while let character = peek() {
            index += 1
            if character == quote { return value }
            guard character == "\\" else {
                value.unicodeScalars.append(character)
                continue
            }
            let escapeColumn = column(at: index - 1)
            guard let escaped = peek() else { break }
            index += 1
            switch escaped {
            case "\\", "'", "\"": value.unicodeScalars.append(escaped)
            case "n": value.append("\n")
            case "t": value.append("\t")
            case "r": value.append("\r")
            case "0": value.append("\0")
            case "u":
                let hex = text(index..<min(index + 4, characters.count))
                guard hex.unicodeScalars.count == 4, hex.allSatisfy(\.isHexDigit), let code = UInt32(hex, radix: 16),
                    let scalar = Unicode.Scalar(code)
                else { throw error("expected four hex digits naming a character after \\u", at: escapeColumn) }
                index += 4
                value.unicodeScalars.append(scalar)
            default:
                throw error("unknown escape '\\\(escaped)' in a string", at: escapeColumn)
            }
        }
        throw error("unterminated string", at: openingColumn)
    }
}

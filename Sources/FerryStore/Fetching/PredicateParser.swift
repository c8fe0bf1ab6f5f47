internal import Foundation

/// Parses Core Data's predicate format syntax into a ``FetchPredicate``, consuming format arguments in order.
///
/// Precedence, loosest first: `OR`/`||`, `AND`/`&&`, `NOT`/`!`, then comparisons. Keywords are case-insensitive;
/// a key path component that spells a keyword is written with a leading `#` (`#size`).
struct PredicateParser {
    private let tokens: [PredicateToken]
    private let format: String
    private let arguments: [PredicateArgument]
    private var position = 0
    private var argumentIndex = 0
    /// The variables of the subqueries being parsed, innermost last.
    private var subqueryVariables: [String] = []

    /// Words that are never key paths unless escaped with `#`.
    static let reservedWords: Set<String> = [
        "AND", "OR", "NOT", "IN", "BETWEEN", "BEGINSWITH", "ENDSWITH", "CONTAINS", "LIKE", "MATCHES", "ANY", "SOME",
        "ALL", "NONE", "TRUEPREDICATE", "FALSEPREDICATE", "TRUE", "FALSE", "YES", "NO", "NIL", "NULL", "SELF", "CAST",
        "SUBQUERY",
    ]

    private static let wordOperators: [String: FetchPredicate.Operator] = [
        "BETWEEN": .between, "IN": .in, "BEGINSWITH": .beginsWith, "ENDSWITH": .endsWith, "CONTAINS": .contains,
        "LIKE": .like, "MATCHES": .matches,
    ]

    private static let symbolOperators: [String: FetchPredicate.Operator] = [
        "==": .equalTo, "!=": .notEqualTo, "<": .lessThan, "<=": .lessThanOrEqualTo, ">": .greaterThan,
        ">=": .greaterThanOrEqualTo,
    ]

    /// Parses `format`, taking `%` arguments from `arguments`.
    ///
    /// - Throws: ``FetchPredicateError`` with code `.syntax` or `.argument` and the column.
    static func parse(_ format: String, arguments: [PredicateArgument]) throws -> FetchPredicate {
        var parser = PredicateParser(
            tokens: try PredicateLexer.tokens(of: format), format: format, arguments: arguments)
        let predicate = try parser.orPredicate()
        guard parser.current.kind == .end else {
            throw parser.unexpected(expected: "AND, OR or the end of the format")
        }
        guard parser.argumentIndex == arguments.count else {
            throw FetchPredicateError(
                code: .argument,
                message: "\(arguments.count) arguments given but the format uses \(parser.argumentIndex)",
                format: format)
        }
        return predicate
    }

    private init(tokens: [PredicateToken], format: String, arguments: [PredicateArgument]) {
        self.tokens = tokens
        self.format = format
        self.arguments = arguments
    }

    // MARK: Tokens

    private var current: PredicateToken { tokens[min(position, tokens.count - 1)] }

    private mutating func advance() -> PredicateToken {
        let token = current
        if position < tokens.count - 1 { position += 1 }
        return token
    }

    /// The current token's keyword, upper-cased, when it is an unescaped word.
    private var keyword: String? {
        if case .word(let word) = current.kind { return word.uppercased() }
        return nil
    }

    private func isSymbol(_ symbol: String) -> Bool { current.kind == .symbol(symbol) }

    private mutating func expect(_ symbol: String, _ what: String) throws {
        guard isSymbol(symbol) else { throw unexpected(expected: what) }
        _ = advance()
    }

    private func error(_ message: String, at column: Int, code: FetchPredicateError.Code = .syntax)
        -> FetchPredicateError
    {
        FetchPredicateError(code: code, message: message, format: format, column: column)
    }

    private func unexpected(expected: String) -> FetchPredicateError {
        let found = current.kind == .end ? "end of format" : "'\(current.text)'"
        return error("unexpected \(found); expected \(expected)", at: current.column)
    }

    // MARK: Predicates

    private mutating func orPredicate() throws -> FetchPredicate {
        var predicate = try andPredicate()
        while keyword == "OR" || isSymbol("||") {
            _ = advance()
            predicate = .or(predicate, try andPredicate())
        }
        return predicate
    }

    private mutating func andPredicate() throws -> FetchPredicate {
        var predicate = try notPredicate()
        while keyword == "AND" || isSymbol("&&") {
            _ = advance()
            predicate = .and(predicate, try notPredicate())
        }
        return predicate
    }

    private mutating func notPredicate() throws -> FetchPredicate {
        guard keyword == "NOT" || isSymbol("!") else { return try primaryPredicate() }
        _ = advance()
        return .not(try notPredicate())
    }

    private mutating func primaryPredicate() throws -> FetchPredicate {
        if isSymbol("(") {
            _ = advance()
            let predicate = try orPredicate()
            try expect(")", "')'")
            return predicate
        }
        switch keyword {
        case "TRUEPREDICATE":
            _ = advance()
            return .truePredicate
        case "FALSEPREDICATE":
            _ = advance()
            return .falsePredicate
        default:
            return .comparison(try comparison())
        }
    }

    private mutating func comparison() throws -> FetchPredicate.Comparison {
        var modifier = FetchPredicate.Modifier.direct
        switch keyword {
        case "ANY", "SOME": modifier = .any
        case "ALL": modifier = .all
        case "NONE": modifier = .none
        default: break
        }
        if modifier != .direct { _ = advance() }
        let lhs = try expression()
        let operatorToken = current
        let comparisonOperator: FetchPredicate.Operator
        if case .symbol(let symbol) = operatorToken.kind, let found = Self.symbolOperators[symbol] {
            comparisonOperator = found
        } else if let word = keyword, let found = Self.wordOperators[word] {
            comparisonOperator = found
        } else {
            throw unexpected(expected: "a comparison operator")
        }
        _ = advance()
        let options = try comparisonOptions()
        let rhs = try expression()
        return FetchPredicate.Comparison(lhs, comparisonOperator, rhs, options: options, modifier: modifier)
    }

    /// `[c]`, `[d]`, `[cd]` right after an operator, or nothing.
    private mutating func comparisonOptions() throws -> FetchPredicate.Options {
        guard isSymbol("[") else { return [] }
        _ = advance()
        guard case .word(let letters) = current.kind else {
            throw unexpected(expected: "comparison options c, d or cd")
        }
        var options: FetchPredicate.Options = []
        for (offset, letter) in letters.enumerated() {
            switch letter {
            case "c", "C": options.insert(.caseInsensitive)
            case "d", "D": options.insert(.diacriticInsensitive)
            default:
                throw error("unknown comparison option '\(letter)'; expected c or d", at: current.column + offset)
            }
        }
        _ = advance()
        try expect("]", "']'")
        return options
    }

    // MARK: Expressions

    private mutating func expression() throws -> FetchPredicate.Expression {
        let token = current
        switch token.kind {
        case .string(let value):
            _ = advance()
            return .constant(.string(value))
        case .integer(let value):
            _ = advance()
            return .constant(.integer(value))
        case .double(let value):
            _ = advance()
            return .constant(.double(value))
        case .variable(let name) where subqueryVariables.last == name:
            // `$p.price` is the price of the subquery's object, `$p` the object.
            _ = advance()
            guard isSymbol(".") else { return .evaluatedObject }
            _ = advance()
            return .keyPath(try keyPath())
        case .variable(let name) where subqueryVariables.contains(name):
            throw error(
                "$\(name) belongs to an enclosing SUBQUERY; a nested SUBQUERY can only use its own variable",
                at: token.column)
        case .variable(let name):
            _ = advance()
            // `$FETCH_SOURCE.category`: a key path from the variable's object is one variable, substituted whole.
            guard isSymbol(".") else { return .variable(name) }
            _ = advance()
            return .variable(name + "." + (try keyPath()))
        case .specifier(let specifier) where specifier != "K":
            _ = advance()
            return try argument(for: specifier, column: token.column)
        case .symbol("{"):
            return try aggregate()
        case .specifier, .escapedWord:
            return .keyPath(try keyPath())
        case .word(let word):
            switch word.uppercased() {
            case "TRUE", "YES":
                _ = advance()
                return .constant(.boolean(true))
            case "FALSE", "NO":
                _ = advance()
                return .constant(.boolean(false))
            case "NIL", "NULL":
                _ = advance()
                return .constant(nil)
            case "SELF":
                _ = advance()
                guard isSymbol(".") else { return .evaluatedObject }
                _ = advance()
                return .keyPath(try keyPath())
            case "CAST" where tokens[min(position + 1, tokens.count - 1)].kind == .symbol("("):
                return try cast()
            case "SUBQUERY" where tokens[min(position + 1, tokens.count - 1)].kind == .symbol("("):
                return try subquery()
            case let upper where Self.reservedWords.contains(upper):
                throw unexpected(expected: "an expression")
            default:
                return .keyPath(try keyPath())
            }
        default:
            throw unexpected(expected: "an expression")
        }
    }

    /// `component(.component)*`, where a component is a word, a `#word`, `%K` or `@count`.
    private mutating func keyPath() throws -> String {
        var components: [String] = []
        repeat {
            if !components.isEmpty { _ = advance() }  // the "."
            let token = current
            switch token.kind {
            case .word(let word) where components.isEmpty || !Self.reservedWords.contains(word.uppercased()):
                components.append(word)
            case .escapedWord(let word): components.append(word)
            case .collectionOperator(let name) where !components.isEmpty: components.append("@" + name)
            case .specifier("K"):
                guard argumentIndex < arguments.count else { throw missingArgument("%K", at: token.column) }
                guard case .value(.string(let path)) = arguments[argumentIndex], !path.isEmpty else {
                    throw error("%K needs a string naming a key path", at: token.column, code: .argument)
                }
                argumentIndex += 1
                components.append(path)
            default:
                throw unexpected(expected: "a key path component")
            }
            _ = advance()
        } while isSymbol(".")
        return components.joined(separator: ".")
    }

    /// `SUBQUERY(collection, $variable, predicate).@count`.
    private mutating func subquery() throws -> FetchPredicate.Expression {
        _ = advance()
        try expect("(", "'('")
        let collectionToken = current
        guard case .keyPath(let collection) = try expression() else {
            throw error("SUBQUERY needs a key path to a to-many relationship first", at: collectionToken.column)
        }
        try expect(",", "','")
        guard case .variable(let variable) = current.kind else { throw unexpected(expected: "a $variable") }
        _ = advance()
        try expect(",", "','")
        subqueryVariables.append(variable)
        let predicate = try orPredicate()
        subqueryVariables.removeLast()
        try expect(")", "')'")
        try expect(".", "'.@count' after SUBQUERY(…)")
        guard case .collectionOperator(let name) = current.kind, name.lowercased() == "count" else {
            throw unexpected(expected: "'@count' after SUBQUERY(…)")
        }
        _ = advance()
        return .subquery(FetchPredicate.Subquery(collection: collection, variable: variable, predicate: predicate))
    }

    /// `{expression, …}`.
    private mutating func aggregate() throws -> FetchPredicate.Expression {
        _ = advance()
        var elements: [FetchPredicate.Expression] = []
        if isSymbol("}") {
            _ = advance()
            return .aggregate(elements)
        }
        while true {
            elements.append(try expression())
            if isSymbol("}") {
                _ = advance()
                return .aggregate(elements)
            }
            try expect(",", "',' or '}'")
        }
    }

    private func missingArgument(_ specifier: String, at column: Int) -> FetchPredicateError {
        error(
            "no argument for \(specifier): the format uses more than the \(arguments.count) given", at: column,
            code: .argument)
    }

    /// The expression for `%@`, `%d`, `%f`… from the next argument.
    private mutating func argument(for specifier: String, column: Int) throws -> FetchPredicate.Expression {
        guard argumentIndex < arguments.count else { throw missingArgument("%" + specifier, at: column) }
        let argument = arguments[argumentIndex]
        argumentIndex += 1
        switch (specifier, argument) {
        case ("@", _): return argument.expression
        case ("f", .value(.double)), ("lf", .value(.double)): return argument.expression
        case ("f", .value(.integer(let integer))), ("lf", .value(.integer(let integer))):
            return .constant(.double(Double(integer)))
        case ("f", _), ("lf", _):
            throw error("%\(specifier) needs a number", at: column, code: .argument)
        case (_, .value(.integer)): return argument.expression
        case (_, .value(.boolean(let flag))): return .constant(.integer(flag ? 1 : 0))
        default:
            throw error("%\(specifier) needs an integer", at: column, code: .argument)
        }
    }

    /// `CAST(value, "Type")`, the format Core Data uses to print dates, decimals and other non-literal constants:
    /// `NSDate` takes seconds since 2001-01-01 (Core Data's reference date), `NSDecimalNumber` a number or a
    /// string, `NSUUID` and `NSURL` a string, `NSData` a Base64 string.
    private mutating func cast() throws -> FetchPredicate.Expression {
        _ = advance()
        try expect("(", "'('")
        let valueToken = advance()
        try expect(",", "','")
        let typeToken = advance()
        try expect(")", "')'")
        guard case .string(let type) = typeToken.kind else {
            throw error("expected a type name in quotes", at: typeToken.column)
        }
        let value: AttributeValue?
        switch (type, valueToken.kind) {
        case ("NSDate", .integer(let seconds)): value = .date(Date(timeIntervalSinceReferenceDate: Double(seconds)))
        case ("NSDate", .double(let seconds)): value = .date(Date(timeIntervalSinceReferenceDate: seconds))
        case ("NSDecimalNumber", .string(let text)): value = Self.decimal(text)
        case ("NSDecimalNumber", .integer), ("NSDecimalNumber", .double): value = Self.decimal(valueToken.text)
        case ("NSUUID", .string(let text)): value = UUID(uuidString: text).map(AttributeValue.uuid)
        case ("NSURL", .string(let text)): value = URL(string: text).map(AttributeValue.uri)
        case ("NSData", .string(let text)): value = Data(base64Encoded: text).map(AttributeValue.binary)
        case ("NSDate", _), ("NSDecimalNumber", _), ("NSUUID", _), ("NSURL", _), ("NSData", _):
            value = nil
        default:
            throw error(
                "unknown CAST type '\(type)'; expected NSDate, NSDecimalNumber, NSUUID, NSURL or NSData",
                at: typeToken.column)
        }
        guard let value else {
            throw error("cannot CAST \(valueToken.text) to \(type)", at: valueToken.column)
        }
        return .constant(value)
    }

    /// The exact decimal written in `text` (with a `.` separator whatever the locale), or `nil`.
    private static func decimal(_ text: String) -> AttributeValue? {
        // Decimal(string:) accepts a numeric prefix ("12abc" is 12), so the whole text is checked first.
        let isNumber = text.wholeMatch(of: /[+-]?[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?/) != nil
        guard isNumber, let value = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) else {
            return nil
        }
        return .decimal(value)
    }
}

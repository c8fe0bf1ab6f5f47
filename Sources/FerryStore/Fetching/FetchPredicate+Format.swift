internal import Foundation

extension FetchPredicate {
    /// Parses a Core Data format string, taking `%@`, `%K`, `%d`, `%i`, `%ld`, `%f`, `%lf` arguments in order.
    ///
    /// ```swift
    /// try FetchPredicate(format: "%K BEGINSWITH[cd] %@ AND price BETWEEN {1, 10}", "name", "cafe")
    /// try FetchPredicate(format: "ANY tags.label IN %@ OR products.@count > %d", ["tea", "coffee"], 2)
    /// ```
    ///
    /// `%@` always inserts a value (a string argument becomes a string constant, an array an array literal);
    /// only `%K` inserts a key path.
    ///
    /// - Throws: ``FetchPredicateError`` with code `.syntax` (and the 1-based column) for a malformed format, or
    ///   `.argument` when arguments are missing, left over, or of the wrong kind for their specifier.
    public init(format: String, _ arguments: PredicateArgument...) throws {
        self = try PredicateParser.parse(format, arguments: arguments)
    }

    /// Parses a Core Data format string with an array of arguments.
    ///
    /// - Throws: ``FetchPredicateError`` as ``init(format:_:)``.
    public init(format: String, arguments: [PredicateArgument]) throws {
        self = try PredicateParser.parse(format, arguments: arguments)
    }
}

extension FetchPredicate: CustomStringConvertible {
    /// The predicate as a format string that parses back to an equal predicate, such as
    /// `category.name ==[c] "tea" AND (price < 10 OR NOT active == TRUE)`.
    ///
    /// Constants that have no literal form print as Core Data prints them: `CAST(…, "NSDate")` (seconds since
    /// 2001), `CAST("12.50", "NSDecimalNumber")`, and `NSUUID`, `NSURL`, `NSData` (Base64) casts. Key path
    /// components that spell a keyword get a `#`. Not every predicate round-trips: infinite or NaN doubles,
    /// transformable constants (they come back as binary) and key path components that are not identifiers
    /// have no format-string spelling.
    public var description: String { formatted(variable: nil) }

    /// The format string, with key paths relative to a subquery's object written after `$variable`.
    func formatted(variable: String?) -> String {
        switch self {
        case .truePredicate: return "TRUEPREDICATE"
        case .falsePredicate: return "FALSEPREDICATE"
        case .comparison(let comparison): return comparison.formatted(variable: variable)
        case .and(let lhs, let rhs):
            return "\(lhs.operand(lhs.isOr, variable)) AND \(rhs.operand(rhs.isCompound, variable))"
        case .or(let lhs, let rhs):
            return "\(lhs.operand(lhs.isAnd, variable)) OR \(rhs.operand(rhs.isCompound, variable))"
        case .not(let predicate):
            return "NOT \(predicate.operand(predicate.isCompound, variable))"
        }
    }

    private var isAnd: Bool {
        if case .and = self { return true }
        return false
    }

    private var isOr: Bool {
        if case .or = self { return true }
        return false
    }

    private var isCompound: Bool { isAnd || isOr }

    private func operand(_ needsParentheses: Bool, _ variable: String?) -> String {
        let text = formatted(variable: variable)
        return needsParentheses ? "(\(text))" : text
    }
}

extension FetchPredicate.Comparison: CustomStringConvertible {
    /// The comparison as a format string: `ANY tags.label BEGINSWITH[cd] "te"`.
    public var description: String { formatted(variable: nil) }

    func formatted(variable: String?) -> String {
        var text = modifier == .direct ? "" : modifier.rawValue + " "
        text += "\(lhs.formatted(variable: variable)) \(self.operator.rawValue)"
        if !options.isEmpty {
            text +=
                "[" + (options.contains(.caseInsensitive) ? "c" : "")
                + (options.contains(.diacriticInsensitive) ? "d" : "") + "]"
        }
        return text + " \(rhs.formatted(variable: variable))"
    }
}

extension FetchPredicate.Expression: CustomStringConvertible {
    /// The expression as a format string: `category.name`, `SELF`, `"it's"`, `$MIN`, `{1, 2}`…
    public var description: String { formatted(variable: nil) }

    /// The expression as written inside a subquery whose variable is `variable` (`$p.price`, `$p`), or outside any
    /// when nil.
    func formatted(variable: String?) -> String {
        switch self {
        case .keyPath(let path):
            return Self.keyPath(path, variable: variable)
        case .evaluatedObject: return variable.map { "$" + $0 } ?? "SELF"
        case .variable(let name): return "$" + name
        case .aggregate(let elements):
            return "{" + elements.map { $0.formatted(variable: variable) }.joined(separator: ", ") + "}"
        case .constant(nil): return "nil"
        case .constant(let value?): return Self.literal(value)
        case .subquery(let subquery):
            return "SUBQUERY(\(Self.keyPath(subquery.collection, variable: variable)), $\(subquery.variable), "
                + "\(subquery.predicate.formatted(variable: subquery.variable))).@count"
        }
    }

    /// A key path with `#` before components that spell keywords, after `$variable.` inside a subquery.
    private static func keyPath(_ path: String, variable: String?) -> String {
        let text = path.split(separator: ".", omittingEmptySubsequences: false).map { component in
            PredicateParser.reservedWords.contains(component.uppercased()) ? "#" + component : String(component)
        }.joined(separator: ".")
        return variable.map { "$\($0)." + text } ?? text
    }

    /// A constant's format-string spelling.
    static func literal(_ value: AttributeValue) -> String {
        switch value {
        case .integer(let integer): String(integer)
        case .double(let double): String(double)
        case .decimal(let decimal): cast(quoted(decimal.description), "NSDecimalNumber")
        case .string(let string): quoted(string)
        case .boolean(let flag): flag ? "TRUE" : "FALSE"
        case .date(let date): cast(String(date.timeIntervalSinceReferenceDate), "NSDate")
        case .binary(let data), .transformable(let data): cast(quoted(data.base64EncodedString()), "NSData")
        case .uuid(let uuid): cast(quoted(uuid.uuidString), "NSUUID")
        case .uri(let url): cast(quoted(url.absoluteString), "NSURL")
        }
    }

    private static func cast(_ value: String, _ type: String) -> String {
        "CAST(\(value), \"\(type)\")"
    }

    /// `text` in double quotes, with quotes, backslashes and control characters escaped.
    static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\t": result += "\\t"
            case "\r": result += "\\r"
            case "\0": result += "\\0"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                let hex = String(scalar.value, radix: 16, uppercase: true)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}

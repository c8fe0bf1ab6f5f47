import FerryStore
import Foundation

/// Parses the expression after `=` in a batch update's `set:` value: attribute names, numbers (exact decimals
/// when they have a point), quoted text, `now()`, `null`, `true`/`false`, `+ - * /` and parentheses.
///
/// ```yaml
/// set: { price: "= price * 1.1", updated_at: "= now()", quantity: "= quantity - 1" }
/// ```
struct UpdateExpressionParser {
    private let scalars: [Unicode.Scalar]
    private var index = 0

    /// Parses `text`.
    ///
    /// - Throws: ``PipelineError`` `.invalidSpec` naming the column of the problem.
    static func parse(_ text: String) throws -> BatchUpdateExpression {
        var parser = UpdateExpressionParser(scalars: Array(text.unicodeScalars))
        let expression = try parser.sum()
        parser.skipSpaces()
        guard parser.index == parser.scalars.count else { throw parser.failure("expected an operator or the end") }
        return expression
    }

    private init(scalars: [Unicode.Scalar]) {
        self.scalars = scalars
    }

    private mutating func sum() throws -> BatchUpdateExpression {
        var left = try product()
        while let op = take(["+", "-"]) {
            left = .arithmetic(left, op == "+" ? .add : .subtract, try product())
        }
        return left
    }

    private mutating func product() throws -> BatchUpdateExpression {
        var left = try factor()
        while let op = take(["*", "/"]) {
            left = .arithmetic(left, op == "*" ? .multiply : .divide, try factor())
        }
        return left
    }

    private mutating func factor() throws -> BatchUpdateExpression {
        skipSpaces()
        guard index < scalars.count else { throw failure("expected a value") }
        let first = scalars[index]
        if first == "(" {
            index += 1
            let inner = try sum()
            guard take([")"]) != nil else { throw failure("expected )") }
            return inner
        }
        if first == "\"" || first == "'" { return .constant(.string(try quoted(first))) }
        if ("0"..."9").contains(first) || first == "." { return .constant(try number()) }
        if first == "-" {
            index += 1
            return .arithmetic(.constant(.integer(0)), .subtract, try factor())
        }
        let word = identifier()
        guard !word.isEmpty else { throw failure("expected a value, an attribute or now()") }
        switch word {
        case "now":
            guard take(["("]) != nil, take([")"]) != nil else { throw failure("expected now()") }
            return .now
        case "null", "nil": return .constant(nil)
        case "true", "YES": return .constant(.boolean(true))
        case "false", "NO": return .constant(.boolean(false))
        default: return .keyPath(word)
        }
    }

    private mutating func number() throws -> AttributeValue {
        let start = index
        while index < scalars.count, ("0"..."9").contains(scalars[index]) || scalars[index] == "." { index += 1 }
        let text = String(String.UnicodeScalarView(scalars[start..<index]))
        if !text.contains("."), let integer = Int64(text) { return .integer(integer) }
        guard let decimal = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) else {
            throw failure("'\(text)' is not a number")
        }
        return .decimal(decimal)
    }

    private mutating func quoted(_ quote: Unicode.Scalar) throws -> String {
        index += 1
        var text = String.UnicodeScalarView()
        while index < scalars.count, scalars[index] != quote {
            text.append(scalars[index])
            index += 1
        }
        guard index < scalars.count else { throw failure("unterminated text") }
        index += 1
        return String(text)
    }

    private mutating func identifier() -> String {
        let start = index
        while index < scalars.count,
            scalars[index].properties.isAlphabetic || ("0"..."9").contains(scalars[index]) || scalars[index] == "_"
        {
            index += 1
        }
        return String(String.UnicodeScalarView(scalars[start..<index]))
    }

    private mutating func take(_ options: [Unicode.Scalar]) -> Unicode.Scalar? {
        skipSpaces()
        guard index < scalars.count, options.contains(scalars[index]) else { return nil }
        index += 1
        return scalars[index - 1]
    }

    private mutating func skipSpaces() {
        while index < scalars.count, scalars[index] == " " || scalars[index] == "\t" { index += 1 }
    }

    private func failure(_ message: String) -> PipelineError {
        PipelineError(.invalidSpec, "column \(index + 1): \(message)")
    }
}

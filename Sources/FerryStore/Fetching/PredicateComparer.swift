import FerrySQLite
import Foundation

/// Compiles one comparison between resolved operands to SQL: picks the operator's SQL form, converts constants to
/// the column's storage encoding (always bound, never written into the text), and checks types.
struct PredicateComparer {
    /// The entity being fetched, for messages.
    let entity: String
    /// The predicate compiled, whose format string errors quote. Kept as it is and described only for an error:
    /// the text of a predicate listing thousands of values (an importer's `key IN %@`) would cost more than its SQL.
    let predicate: FetchPredicate
    /// The model, which tells whether an object named by ID can be the object a key path leads to.
    let model: ManagedObjectModel

    func error(_ code: FetchPredicateError.Code, _ message: String) -> FetchPredicateError {
        FetchPredicateError(code: code, message: message, format: predicate.description)
    }

    /// `'category.name' of Product`, or `a constant`, for messages.
    func describe(_ operand: PredicateOperand) -> String {
        switch operand.kind {
        case .constant(let value?): value.kindName
        case .constant(nil): "nil"
        case .list: "an array"
        case .column, .toMany: "'\(operand.keyPath)' of \(entity)"
        }
    }

    func compare(
        _ lhs: PredicateOperand, _ comparison: FetchPredicate.Operator, _ rhs: PredicateOperand,
        options: FetchPredicate.Options
    ) throws -> PredicateSQLFragment {
        switch comparison {
        case .between: return try between(lhs, rhs, options: options)
        case .in: return try membership(lhs, rhs, options: options)
        case .beginsWith, .endsWith, .contains, .like, .matches:
            return try match(lhs, comparison, rhs, options: options)
        case .equalTo, .notEqualTo, .lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo:
            return try order(lhs, comparison, rhs, options: options)
        }
    }

    /// `==`, `!=`, `<`, `<=`, `>`, `>=`. `!=` is `IS NOT`, so that objects without a value differ from any value.
    private func order(
        _ lhs: PredicateOperand, _ comparison: FetchPredicate.Operator, _ rhs: PredicateOperand,
        options: FetchPredicate.Options
    ) throws -> PredicateSQLFragment {
        for (side, other) in [(rhs, lhs), (lhs, rhs)] {
            guard case .constant(nil) = side.kind else { continue }
            guard comparison == .equalTo || comparison == .notEqualTo else {
                throw error(
                    .unsupported, "only == and != compare with nil (\(describe(other)) \(comparison.rawValue) nil)")
            }
            let isEqual = comparison == .equalTo
            switch other.kind {
            case .column: return (other.plain ?? PredicateSQLFragment("NULL")) + (isEqual ? " IS NULL" : " IS NOT NULL")
            case .constant(nil): return PredicateSQLFragment(isEqual ? "1" : "0")
            case .constant: return PredicateSQLFragment(isEqual ? "0" : "1")
            case .list, .toMany: throw error(.typeMismatch, "\(describe(other)) cannot be compared with nil")
            }
        }
        let (left, right) = try values(lhs, rhs, options: options, comparison: comparison)
        var bothColumns = false
        if case .column = lhs.kind, case .column = rhs.kind { bothColumns = true }
        let sqlOperator: String
        switch comparison {
        case .equalTo: sqlOperator = bothColumns ? "IS" : "="
        case .notEqualTo: sqlOperator = "IS NOT"
        default: sqlOperator = comparison.rawValue
        }
        return left + " \(sqlOperator) " + right
    }

    /// The SQL of two operands compared with each other, with constants encoded for the other side's column.
    private func values(
        _ lhs: PredicateOperand, _ rhs: PredicateOperand, options: FetchPredicate.Options,
        comparison: FetchPredicate.Operator
    ) throws -> (PredicateSQLFragment, PredicateSQLFragment) {
        if comparison == .equalTo || comparison == .notEqualTo,
            let exact = exactDecimalEquality(lhs, rhs) ?? exactDecimalEquality(rhs, lhs).map({ ($0.1, $0.0) })
        {
            return exact
        }
        switch (lhs.kind, rhs.kind) {
        case (.column(_, let leftKind), .column(_, let rightKind)):
            guard leftKind.family == rightKind.family else {
                throw error(
                    .typeMismatch,
                    "\(describe(lhs)) is \(leftKind.name) and \(describe(rhs)) is \(rightKind.name); "
                        + "they cannot be compared")
            }
            return (try comparable(lhs, options), try comparable(rhs, options))
        case (.column, .constant(let value?)):
            return (try comparable(lhs, options), try parameter(value, for: lhs, options))
        case (.constant(let value?), .column):
            return (try parameter(value, for: rhs, options), try comparable(rhs, options))
        case (.constant(let left?), .constant(let right?)):
            return (.parameter(left.storageValue), .parameter(right.storageValue))
        default:
            throw error(
                .typeMismatch,
                "\(comparison.rawValue) cannot compare \(describe(lhs)) with \(describe(rhs)); "
                    + "arrays go on the right of IN and BETWEEN")
        }
    }

    /// A column operand's SQL read for comparing, with its parameters.
    private func comparable(_ operand: PredicateOperand, _ options: FetchPredicate.Options) throws
        -> PredicateSQLFragment
    {
        guard let fragment = operand.comparable(options: options) else {
            throw error(.unsupported, "\(describe(operand)) is not a value the store can compare")
        }
        return fragment
    }

    /// `value` bound as a parameter, encoded (and folded for `[c]`/`[d]`) for `column`'s kind.
    private func parameter(_ value: AttributeValue, for column: PredicateOperand, _ options: FetchPredicate.Options)
        throws
        -> PredicateSQLFragment
    {
        guard case .column(_, let kind) = column.kind, let encoded = kind.encode(value) else {
            throw mismatch(column, value)
        }
        if case .object(let destination) = kind, case .uri(let url) = value, let reference = ObjectReference(url),
            !model.isRelated(reference.entityName, to: destination)
        {
            throw error(
                .typeMismatch,
                "\(describe(column)) is \(kind.name); it cannot be compared with a \(reference.entityName) object")
        }
        if kind.isText, !options.isEmpty, case .text(let text) = encoded {
            return .parameter(.text(PredicateSQLFunctions.fold(text, options)))
        }
        return .parameter(encoded)
    }

    private func mismatch(_ column: PredicateOperand, _ value: AttributeValue) -> FetchPredicateError {
        guard case .column(_, let kind) = column.kind else {
            return error(.typeMismatch, "\(describe(column)) cannot be compared with \(value.kindName)")
        }
        return error(
            .typeMismatch, "\(describe(column)) is \(kind.name); it cannot be compared with \(value.kindName)")
    }

    /// `column BETWEEN ? AND ?`, inclusive.
    private func between(_ lhs: PredicateOperand, _ rhs: PredicateOperand, options: FetchPredicate.Options) throws
        -> PredicateSQLFragment
    {
        guard let column = lhs.comparable(options: options) else {
            throw error(.unsupported, "BETWEEN needs a key path on its left, not \(describe(lhs))")
        }
        guard case .list(let bounds) = rhs.kind, bounds.count == 2, let low = bounds[0], let high = bounds[1] else {
            throw error(.typeMismatch, "BETWEEN needs an array of two values on its right, such as {1, 10}")
        }
        let lowParameter = try parameter(low, for: lhs, options)
        return "(" + column + " BETWEEN " + lowParameter + " AND " + (try parameter(high, for: lhs, options)) + ")"
    }

    /// `column IN (?, ?, …)`; a nil in the array matches objects without a value.
    private func membership(_ lhs: PredicateOperand, _ rhs: PredicateOperand, options: FetchPredicate.Options) throws
        -> PredicateSQLFragment
    {
        guard let column = lhs.comparable(options: options), let plain = lhs.plain else {
            throw error(
                .unsupported,
                "IN needs a key path on its left (or a to-many key path on its right), not \(describe(lhs))")
        }
        guard case .list(let values) = rhs.kind else {
            throw error(.typeMismatch, "IN needs an array on its right, such as {1, 2}, not \(describe(rhs))")
        }
        var tests: [PredicateSQLFragment] = []
        let present = values.compactMap { $0 }
        if !present.isEmpty {
            if lhs.isDecimalColumn, let texts = Self.exactDecimalTexts(present) {
                tests.append(plain + " IN (" + .joined(texts.map { .parameter(.text($0)) }, separator: ", ") + ")")
            } else {
                let parameters = try present.map { try parameter($0, for: lhs, options) }
                tests.append(column + " IN (" + .joined(parameters, separator: ", ") + ")")
            }
        }
        if present.count < values.count { tests.append(plain + " IS NULL") }
        switch tests.count {
        case 0: return PredicateSQLFragment("0")
        case 1: return tests[0]
        default: return "(" + .joined(tests, separator: " OR ") + ")"
        }
    }

    /// BEGINSWITH, ENDSWITH, CONTAINS and LIKE as `column GLOB ?` (case-sensitive and Unicode-aware, unlike SQLite's
    /// LIKE) with the value's `*`, `?` and `[` escaped; MATCHES through `ferry_regexp`.
    private func match(
        _ lhs: PredicateOperand, _ comparison: FetchPredicate.Operator, _ rhs: PredicateOperand,
        options: FetchPredicate.Options
    ) throws -> PredicateSQLFragment {
        guard case .column(_, let kind) = lhs.kind, let plain = lhs.plain,
            let column = lhs.comparable(options: options)
        else {
            throw error(.unsupported, "\(comparison.rawValue) needs a key path on its left, not \(describe(lhs))")
        }
        guard kind.isText else {
            throw error(.typeMismatch, "\(describe(lhs)) is \(kind.name); \(comparison.rawValue) needs a string")
        }
        let text: String
        switch rhs.kind {
        case .constant(.string(let string)?): text = string
        case .constant(.uri(let url)?): text = url.absoluteString
        default:
            throw error(.typeMismatch, "\(comparison.rawValue) needs a string on its right, not \(describe(rhs))")
        }
        if comparison == .matches {
            do {
                _ = try PredicateSQLFunctions.regularExpression(text, options: options)
            } catch {
                throw self.error(
                    .invalidRegularExpression,
                    "the MATCHES pattern for \(describe(lhs)) is not a valid regular expression")
            }
            return "\(PredicateSQLFunctions.regexp)(" + .parameter(.text(text)) + ", " + plain
                + ", \(options.rawValue)) = 1"
        }
        let value = options.isEmpty ? text : PredicateSQLFunctions.fold(text, options)
        let literal = PredicateSQLFunctions.globLiteral(value)
        let pattern: String
        switch comparison {
        case .beginsWith: pattern = literal + "*"
        case .endsWith: pattern = "*" + literal
        case .contains: pattern = "*" + literal + "*"
        default: pattern = PredicateSQLFunctions.globPattern(like: value)
        }
        return column + " GLOB " + .parameter(.text(pattern))
    }
}

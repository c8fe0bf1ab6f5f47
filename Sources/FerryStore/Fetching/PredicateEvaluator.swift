import FerrySQLite
import Foundation

/// Evaluates a predicate on one managed object's current values, unsaved changes included, as the store's SQL
/// evaluates it on a row: for fetches that include a context's pending changes
/// (``FetchRequest/includesPendingChanges``).
///
/// Values are compared in the store's encoding (decimals as exact text for equality and as numbers otherwise,
/// dates as seconds, UUIDs as lowercase text), text byte by byte in UTF-8 as SQLite's BINARY collation does,
/// `[c]`/`[d]` through the same folding as the SQL function, and BEGINSWITH/ENDSWITH/CONTAINS/LIKE over Unicode
/// scalars as GLOB does. A comparison with a missing
/// value is false (and its negation true), as the compiled SQL's `IS NOT 1` makes it.
///
/// The predicate must already have compiled for the request's entity (so its key paths and types are known to fit);
/// an unsubstituted `$VARIABLE` is refused.
struct PredicateEvaluator {
    let predicate: FetchPredicate
    let layouts: ObjectLayouts

    /// One side of a comparison, evaluated.
    private enum Value {
        /// A key path's value in the store's encoding (nil: no value), with its kind when known.
        case scalar(SQLiteValue?, PredicateOperand.ValueKind?)
        case constant(AttributeValue?)
        case list([AttributeValue?])
        /// The members of a to-many relationship and the key path that follows it.
        case members([ManagedObject], remainder: [String], layout: EntityLayout)
    }

    /// Whether `object` matches.
    ///
    /// - Throws: ``FetchPredicateError`` `.unsupported` for a `$VARIABLE` left in the predicate.
    func matches(_ object: ManagedObject) throws -> Bool {
        try evaluate(predicate, on: object)
    }

    private func evaluate(_ predicate: FetchPredicate, on object: ManagedObject) throws -> Bool {
        switch predicate {
        case .truePredicate: return true
        case .falsePredicate: return false
        case .and(let lhs, let rhs): return try evaluate(lhs, on: object) && evaluate(rhs, on: object)
        case .or(let lhs, let rhs): return try evaluate(lhs, on: object) || evaluate(rhs, on: object)
        case .not(let inner): return try !evaluate(inner, on: object)
        case .comparison(let comparison): return try evaluate(comparison, on: object)
        }
    }

    private func evaluate(_ comparison: FetchPredicate.Comparison, on object: ManagedObject) throws -> Bool {
        let lhs = try value(of: comparison.lhs, on: object)
        let rhs = try value(of: comparison.rhs, on: object)
        let options = comparison.options
        switch comparison.modifier {
        case .direct:
            if comparison.operator == .in, case .members = rhs {
                // `value IN toMany.keyPath`: any related value equals it.
                return try anyMatches(rhs) { try compare($0, .equalTo, lhs, options) }
            }
            return try compare(lhs, comparison.operator, rhs, options)
        case .any:
            return try anyMatches(lhs) { try compare($0, comparison.operator, rhs, options) }
        case .none:
            return try !anyMatches(lhs) { try compare($0, comparison.operator, rhs, options) }
        case .all:
            return try allMatch(lhs) { try compare($0, comparison.operator, rhs, options) }
        }
    }

    // MARK: Values

    private func value(of expression: FetchPredicate.Expression, on object: ManagedObject) throws -> Value {
        switch expression {
        case .keyPath(let keyPath):
            return try resolve(keyPath.split(separator: ".").map(String.init), from: object, layout: object.layout)
        case .evaluatedObject:
            return .scalar(Self.reference(object.objectID), .object(object.layout.name))
        case .constant(let constant):
            return .constant(constant)
        case .aggregate(let elements):
            return .list(
                try elements.map { element in
                    guard case .constant(let constant) = element else {
                        throw unsupported("an array holding key paths")
                    }
                    return constant
                })
        case .variable(let name):
            throw unsupported("the variable $\(name), not substituted")
        case .subquery(let subquery):
            let components = subquery.collection.split(separator: ".").map(String.init)
            guard
                case .members(let members, let remainder, _) = try resolve(
                    components, from: object, layout: object.layout),
                remainder.isEmpty
            else { throw unsupported("a SUBQUERY whose collection is not a to-many relationship") }
            var count: Int64 = 0
            for member in members where try evaluate(subquery.predicate, on: member) { count += 1 }
            return .scalar(.integer(count), .count)
        }
    }

    /// The value of `components` from `object` (nil when a to-one on the way is empty), walking `layout`.
    private func resolve(_ components: [String], from object: ManagedObject?, layout: EntityLayout) throws -> Value {
        var current = object
        var layout = current?.layout ?? layout
        for (index, name) in components.enumerated() {
            switch layout.slots[name] {
            case .attribute(let slot)?:
                let kind = PredicateOperand.ValueKind.attribute(layout.attributes[slot].type)
                return .scalar(current?.value(forKey: name).flatMap(kind.storedForm), kind)
            case .toOne(let slot)?:
                let destination = layout.toOne[slot].destinationEntity
                let isLast = index == components.count - 1
                if isLast { return .scalar(current?.objectID(forKey: name).map(Self.reference), .object(destination)) }
                current = current?.object(forKey: name)
                layout = current?.layout ?? layouts[destination]
            case .toMany(let slot)?:
                let members = current?.objects(forKey: name) ?? []
                let remainder = Array(components[(index + 1)...])
                if remainder == ["@count"] { return .scalar(.integer(Int64(members.count)), .count) }
                let destination = layouts[layout.toMany[slot].destinationEntity]
                if remainder.count > 1, let last = remainder.last, let function = CollectionAggregate(operator: last),
                    !reachesToMany(remainder.dropLast(), from: destination)
                {
                    return try aggregate(function, of: members, Array(remainder.dropLast()), layout: destination)
                }
                return .members(members, remainder: remainder, layout: destination)
            case nil:
                throw unsupported("the key path '\(components.joined(separator: "."))'")
            }
        }
        return .scalar(current.map { Self.reference($0.objectID) }, .object(layout.name))
    }

    /// `products.price.@sum` and its kin over `members`; see ``aggregate(_:over:_:layout:value:)``.
    private func aggregate(
        _ function: CollectionAggregate, of members: [ManagedObject], _ keyPath: [String], layout: EntityLayout
    ) throws -> Value {
        let (value, kind) = try aggregate(function, over: members, keyPath, layout: layout) { member in
            guard case .scalar(let value, let kind) = try resolve(keyPath, from: member, layout: layout) else {
                throw unsupported("an aggregate of a key path through another to-many relationship")
            }
            return (value, kind)
        }
        return .scalar(value, kind)
    }

    /// Whether `keyPath` goes through a to-many relationship from `layout` (see
    /// ``ManagedObjectModel/reachesToMany(_:from:)``).
    private func reachesToMany(_ keyPath: some Sequence<String>, from layout: EntityLayout) -> Bool {
        var layout = layout
        for name in keyPath {
            switch layout.slots[name] {
            case .toMany?: return true
            case .toOne(let slot)?: layout = layouts[layout.toOne[slot].destinationEntity]
            default: return false
            }
        }
        return false
    }

    /// An object as the store compares it: its primary key. An object not saved yet has none; its URI, as text,
    /// equals only itself.
    private static func reference(_ id: ObjectID) -> SQLiteValue {
        id.isTemporaryID ? .text(id.uriString) : .integer(id.primaryKey)
    }

    /// Whether `test` holds for at least one related value (recursively through nested to-many relationships).
    private func anyMatches(_ value: Value, _ test: (Value) throws -> Bool) throws -> Bool {
        guard case .members(let members, let remainder, let layout) = value else { return try test(value) }
        for member in members where try anyMatches(element(member, remainder, layout), test) { return true }
        return false
    }

    /// Whether `test` holds for every related value (true when there are none).
    private func allMatch(_ value: Value, _ test: (Value) throws -> Bool) throws -> Bool {
        guard case .members(let members, let remainder, let layout) = value else { return try test(value) }
        for member in members where try !allMatch(element(member, remainder, layout), test) { return false }
        return true
    }

    private func element(_ member: ManagedObject, _ remainder: [String], _ layout: EntityLayout) throws -> Value {
        guard !remainder.isEmpty else { return .scalar(Self.reference(member.objectID), .object(layout.name)) }
        return try resolve(remainder, from: member, layout: layout)
    }

    // MARK: Comparing

    private func compare(
        _ lhs: Value, _ comparison: FetchPredicate.Operator, _ rhs: Value, _ options: FetchPredicate.Options
    ) throws -> Bool {
        for (side, other) in [(rhs, lhs), (lhs, rhs)] {
            guard case .constant(nil) = side else { continue }
            let isEqual = comparison == .equalTo
            switch other {
            case .scalar(let value, _): return (value == nil) == isEqual
            case .constant(nil): return isEqual
            case .constant: return !isEqual
            case .list, .members: throw unsupported("nil compared with an array")
            }
        }
        switch comparison {
        case .between:
            guard case .scalar(let value?, let kind) = lhs, case .list(let bounds) = rhs, bounds.count == 2,
                let low = bounds[0].flatMap({ encode($0, as: kind, options) }),
                let high = bounds[1].flatMap({ encode($0, as: kind, options) })
            else { return false }
            let folded = fold(Self.numeric(value, kind), kind, options)
            return Self.order(folded, low) >= 0 && Self.order(folded, high) <= 0
        case .in:
            guard case .scalar(let value, let kind) = lhs, case .list(let values) = rhs else {
                throw unsupported("IN without a key path on its left and an array on its right")
            }
            guard let value else { return values.contains { $0 == nil } }
            if kind == .attribute(.decimal) {
                return values.contains { candidate in candidate?.exactDecimalText.map(SQLiteValue.text) == value }
            }
            let folded = fold(value, kind, options)
            return values.contains { candidate in
                candidate.flatMap { encode($0, as: kind, options) }.map { Self.order(folded, $0) == 0 } ?? false
            }
        case .beginsWith, .endsWith, .contains, .like, .matches:
            return try match(lhs, comparison, rhs, options)
        case .equalTo, .notEqualTo, .lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo:
            let exact = comparison == .equalTo || comparison == .notEqualTo
            let (left, right, bothKeyPaths) = try pair(lhs, rhs, options, exact: exact)
            switch comparison {
            case .equalTo:
                // Two key paths compare with IS (two missing values are equal), a key path and a constant with =.
                guard let left, let right else { return bothKeyPaths && left == nil && right == nil }
                return Self.order(left, right) == 0
            case .notEqualTo:
                guard let left, let right else { return (left == nil) != (right == nil) }
                return Self.order(left, right) != 0
            default:
                guard let left, let right else { return false }
                let order = Self.order(left, right)
                switch comparison {
                case .lessThan: return order < 0
                case .lessThanOrEqualTo: return order <= 0
                case .greaterThan: return order > 0
                default: return order >= 0
                }
            }
        }
    }

    /// Both sides of a comparison in the store's encoding, folded for `[c]`/`[d]`, and whether both are key paths.
    /// Decimals compare as the store compares them: as exact text when `exact` (equality) and both sides are
    /// decimals, otherwise as doubles.
    private func pair(_ lhs: Value, _ rhs: Value, _ options: FetchPredicate.Options, exact: Bool) throws
        -> (SQLiteValue?, SQLiteValue?, Bool)
    {
        switch (lhs, rhs) {
        case (.scalar(var left, let leftKind), .scalar(var right, let rightKind)):
            if !exact || leftKind != rightKind {
                (left, right) = (left.map { Self.numeric($0, leftKind) }, right.map { Self.numeric($0, rightKind) })
            }
            return (left.map { fold($0, leftKind, options) }, right.map { fold($0, rightKind, options) }, true)
        case (.scalar(let left, let kind), .constant(let constant?)):
            let (value, constant) = decimalAware(left, kind, constant, options, exact: exact)
            return (value.map { fold($0, kind, options) }, constant, false)
        case (.constant(let constant?), .scalar(let right, let kind)):
            let (value, constant) = decimalAware(right, kind, constant, options, exact: exact)
            return (constant, value.map { fold($0, kind, options) }, false)
        case (.constant(let left?), .constant(let right?)):
            return (left.storageValue, right.storageValue, false)
        default:
            throw unsupported("a comparison of an array or a to-many key path")
        }
    }

    private func match(
        _ lhs: Value, _ comparison: FetchPredicate.Operator, _ rhs: Value, _ options: FetchPredicate.Options
    ) throws -> Bool {
        let pattern: String
        switch rhs {
        case .constant(.string(let string)?): pattern = string
        case .constant(.uri(let url)?): pattern = url.absoluteString
        default: throw unsupported("\(comparison.rawValue) without a string on its right")
        }
        guard case .scalar(let value, _) = lhs else {
            throw unsupported("\(comparison.rawValue) without a key path on its left")
        }
        guard case .text(let text)? = value else { return false }
        if comparison == .matches {
            guard let expression = try? PredicateSQLFunctions.regularExpression(pattern, options: options) else {
                return false
            }
            return PredicateSQLFunctions.matches(expression, text, options: options)
        }
        let subject = Array((options.isEmpty ? text : PredicateSQLFunctions.fold(text, options)).unicodeScalars)
        let needle = Array((options.isEmpty ? pattern : PredicateSQLFunctions.fold(pattern, options)).unicodeScalars)
        switch comparison {
        case .beginsWith: return subject.starts(with: needle)
        case .endsWith: return subject.reversed().starts(with: needle.reversed())
        case .contains:
            guard needle.count <= subject.count else { return false }
            return (0...(subject.count - needle.count)).contains { subject[$0...].starts(with: needle) }
        default: return LikePattern(needle).matches(subject)
        }
    }

    /// A key path's value and a constant compared with it: a decimal's exact text and the constant's when `exact`,
    /// both as numbers otherwise; other kinds as ``encode(_:as:_:)`` encodes them.
    private func decimalAware(
        _ value: SQLiteValue?, _ kind: PredicateOperand.ValueKind?, _ constant: AttributeValue,
        _ options: FetchPredicate.Options, exact: Bool
    ) -> (SQLiteValue?, SQLiteValue?) {
        guard kind == .attribute(.decimal) else { return (value, encode(constant, as: kind, options)) }
        if exact { return (value, constant.exactDecimalText.map(SQLiteValue.text)) }
        return (value.map { Self.numeric($0, kind) }, encode(constant, as: kind, options))
    }

    /// `value` as SQLite's `CAST(… AS REAL)` reads it when it is a decimal's text; other values as they are.
    static func numeric(_ value: SQLiteValue, _ kind: PredicateOperand.ValueKind?) -> SQLiteValue {
        guard kind == .attribute(.decimal), case .text(let text) = value else { return value }
        return .real(Double(text) ?? 0)
    }

    /// `constant` encoded for a key path of `kind` (folded for `[c]`/`[d]`); nil when it cannot be compared.
    private func encode(
        _ constant: AttributeValue, as kind: PredicateOperand.ValueKind?, _ options: FetchPredicate.Options
    ) -> SQLiteValue? {
        guard let kind else { return constant.storageValue }
        return kind.encode(constant).map { fold($0, kind, options) }
    }

    /// `value` folded for `[c]`/`[d]` when it is text of a text kind.
    private func fold(
        _ value: SQLiteValue, _ kind: PredicateOperand.ValueKind?, _ options: FetchPredicate.Options
    ) -> SQLiteValue {
        guard !options.isEmpty, kind?.isText ?? true, case .text(let text) = value else { return value }
        return .text(PredicateSQLFunctions.fold(text, options))
    }

    /// SQLite's order of two values: numbers before text before blobs; integers exactly, other numbers as doubles;
    /// text by its UTF-8 bytes (the BINARY collation), blobs by their bytes.
    static func order(_ lhs: SQLiteValue, _ rhs: SQLiteValue) -> Int {
        func rank(_ value: SQLiteValue) -> Int {
            switch value {
            case .null: 0
            case .integer, .real: 1
            case .text: 2
            case .blob: 3
            }
        }
        func sign<T: Comparable>(_ a: T, _ b: T) -> Int { a < b ? -1 : (a == b ? 0 : 1) }
        func bytes(_ a: some Sequence<UInt8>, _ b: some Sequence<UInt8>) -> Int {
            let (a, b) = (Array(a), Array(b))
            if a == b { return 0 }
            return a.lexicographicallyPrecedes(b) ? -1 : 1
        }
        switch (lhs, rhs) {
        case (.integer(let a), .integer(let b)): return sign(a, b)
        case (.integer(let a), .real(let b)): return sign(Double(a), b)
        case (.real(let a), .integer(let b)): return sign(a, Double(b))
        case (.real(let a), .real(let b)): return sign(a, b)
        case (.text(let a), .text(let b)): return bytes(a.utf8, b.utf8)
        case (.blob(let a), .blob(let b)): return bytes(a, b)
        default: return sign(rank(lhs), rank(rhs))
        }
    }

    private func unsupported(_ what: String) -> FetchPredicateError {
        FetchPredicateError(
            code: .unsupported,
            message: "evaluating pending changes in memory does not support \(what); set includesPendingChanges to "
                + "false to fetch from the store alone",
            format: predicate.description)
    }
}

/// A Core Data LIKE pattern (`*` any run, `?` one character, `\` escapes the next), matched over Unicode scalars as
/// the GLOB the store runs for it.
struct LikePattern {
    private enum Token: Equatable {
        case anyRun, one
        case scalar(Unicode.Scalar)
    }

    private let tokens: [Token]

    init(_ pattern: [Unicode.Scalar]) {
        var tokens: [Token] = []
        var isEscaped = false
        for scalar in pattern {
            if isEscaped {
                tokens.append(.scalar(scalar))
                isEscaped = false
                continue
            }
            switch scalar {
            case "\\": isEscaped = true
            case "*": tokens.append(.anyRun)
            case "?": tokens.append(.one)
            default: tokens.append(.scalar(scalar))
            }
        }
        if isEscaped { tokens.append(.scalar("\\")) }
        self.tokens = tokens
    }

    /// Whether the whole of `text` matches, by dynamic programming over (token, scalar) positions.
    func matches(_ text: [Unicode.Scalar]) -> Bool {
        var reachable = [Bool](repeating: false, count: text.count + 1)
        reachable[0] = true
        for token in tokens {
            var next = [Bool](repeating: false, count: text.count + 1)
            switch token {
            case .anyRun:
                var seen = false
                for index in 0...text.count {
                    seen = seen || reachable[index]
                    next[index] = seen
                }
            case .one:
                for index in 0..<text.count where reachable[index] { next[index + 1] = true }
            case .scalar(let scalar):
                for index in 0..<text.count where reachable[index] && text[index] == scalar { next[index + 1] = true }
            }
            reachable = next
        }
        return reachable[text.count]
    }
}

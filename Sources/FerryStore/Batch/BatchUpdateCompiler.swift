import FerrySQLite
import Foundation

/// Compiles the ``BatchUpdateExpression``s of one ``BatchUpdateRequest`` into the right-hand sides of an UPDATE's
/// SET clause: SQL text with `?` parameters, and the values to bind to them in text order.
///
/// Expressions are typed as they compile (see ``BatchUpdateExpression`` for the rules), so a mismatch fails before
/// anything runs, and each value is converted to the storage encoding of the attribute it is assigned to.
struct BatchUpdateCompiler {
    /// What an SQL expression evaluates to.
    enum Kind: Equatable {
        case integer
        /// A double (REAL).
        case real
        /// An exact decimal (TEXT).
        case decimal
        /// Seconds since 1970 (REAL).
        case date
        /// A value usable only as a whole, by an attribute of exactly this type (strings, booleans, UUIDs…).
        case other(AttributeType)

        var isNumber: Bool { self == .integer || self == .real || self == .decimal }

        /// `an integer`, `a date`…, for messages.
        var description: String {
            switch self {
            case .integer: "an integer"
            case .real: "a double"
            case .decimal: "a decimal"
            case .date: "a date"
            case .other(let type): "a value of type \(type.name)"
            }
        }
    }

    /// SQL text, its parameters' values in text order, and what it evaluates to.
    struct Compiled {
        var sql: String
        var bindings: [SQLiteValue] = []
        var kind: Kind
    }

    let mapping: StoreSchema.EntityMapping
    let model: ManagedObjectModel
    /// `now()`, in seconds since 1970: one instant for the whole request.
    let now: Double

    /// The SQL for assigning `expression` to the attribute `name`, converted to the attribute's storage encoding.
    ///
    /// - Throws: ``StoreError`` `.invalidBatchRequest` naming the entity and attribute.
    func assignment(to name: String, _ expression: BatchUpdateExpression) throws -> Compiled {
        let target = try settableAttribute(named: name)
        if case .constant(let value) = expression {
            guard let value else { return Compiled(sql: "NULL", kind: .other(target.type)) }
            guard value.isStorable(as: target.type) else {
                throw invalid("'\(name)' is \(target.type.attributeDescription); it cannot take \(value.kindName)")
            }
            return Compiled(
                sql: "?", bindings: [StoredValueCodec.encode( value, as: target.type)],
                kind: .other(target.type))
        }
        if case .keyPath(let source) = expression, target.type == .binary, !target.allowsExternalStorage,
            try readableAttribute(named: source).allowsExternalStorage
        {
            // The copy would put a file reference where no trigger counts it, and the file could be removed.
            throw invalid(
                "'\(name)' keeps its values in its row; it cannot take '\(source)', whose values may live in files "
                    + "(allowsExternalStorage)")
        }
        let value = try compile(expression)
        let sql: String
        switch (target.type, value.kind) {
        case (let type, .integer) where type.isInteger:
            sql = value.sql
        case (.double, .real), (.float, .real), (.decimal, .decimal), (.decimal, .integer), (.date, .date):
            // Integers in a decimal column become their exact text through the column's TEXT affinity.
            sql = value.sql
        case (let type, .real) where type.isInteger:
            // Truncated toward zero, as NSNumber's intValue does.
            sql = "CAST(\(value.sql) AS INTEGER)"
        case (let type, .decimal) where type.isInteger:
            sql = "CAST(CAST(\(value.sql) AS REAL) AS INTEGER)"
        case (.double, .integer), (.float, .integer), (.double, .decimal), (.float, .decimal):
            sql = "CAST(\(value.sql) AS REAL)"
        case (.decimal, .real):
            // SQLite would turn a REAL into text such as `1.0e+20`; the function gives the exact decimal text.
            sql = "\(BatchSQLFunctions.decimal)('+', \(value.sql), 0)"
        case (let type, .other(let source)) where type == source:
            sql = value.sql
        default:
            throw invalid(
                "'\(name)' is \(target.type.attributeDescription); the expression gives \(value.kind.description)")
        }
        return Compiled(sql: sql, bindings: value.bindings, kind: .other(target.type))
    }

    /// The SQL of `expression` and its kind.
    func compile(_ expression: BatchUpdateExpression) throws -> Compiled {
        switch expression {
        case .constant(nil):
            throw invalid("nil can only be assigned, not used in arithmetic")
        case .constant(let value?):
            return Compiled(sql: "?", bindings: [Self.storageValue(of: value)], kind: Self.kind(of: value))
        case .keyPath(let name):
            let attribute = try readableAttribute(named: name)
            return Compiled(sql: SQL.identifier(name), kind: Self.kind(of: attribute.type))
        case .now:
            return Compiled(sql: "?", bindings: [.real(now)], kind: .date)
        case .arithmetic(let lhs, let operation, let rhs):
            return try arithmetic(try compile(lhs), operation, try compile(rhs))
        }
    }

    /// `lhs op rhs`, typed by the rules of ``BatchUpdateExpression``.
    private func arithmetic(_ lhs: Compiled, _ operation: BatchUpdateExpression.Operator, _ rhs: Compiled) throws
        -> Compiled
    {
        let op = operation.rawValue
        let bindings = lhs.bindings + rhs.bindings
        switch (lhs.kind, rhs.kind) {
        case (.decimal, _) where rhs.kind.isNumber, (_, .decimal) where lhs.kind.isNumber:
            // The operator is one of four fixed symbols from the enum, part of the statement's shape.
            return Compiled(
                sql: "\(BatchSQLFunctions.decimal)('\(op)', \(lhs.sql), \(rhs.sql))", bindings: bindings,
                kind: .decimal)
        case (.integer, .integer) where operation != .divide:
            return Compiled(sql: "(\(lhs.sql) \(op) \(rhs.sql))", bindings: bindings, kind: .integer)
        case (.integer, .integer), (.integer, .real), (.real, .integer), (.real, .real):
            // CAST keeps `/` from dividing as integers.
            return Compiled(sql: "(CAST(\(lhs.sql) AS REAL) \(op) \(rhs.sql))", bindings: bindings, kind: .real)
        case (.date, _) where rhs.kind.isNumber && (operation == .add || operation == .subtract),
            (_, .date) where lhs.kind.isNumber && operation == .add:
            return Compiled(
                sql: "(CAST(\(lhs.sql) AS REAL) \(op) CAST(\(rhs.sql) AS REAL))", bindings: bindings, kind: .date)
        case (.date, .date) where operation == .subtract:
            return Compiled(sql: "(\(lhs.sql) - \(rhs.sql))", bindings: bindings, kind: .real)
        default:
            throw invalid("\(op) cannot combine \(lhs.kind.description) with \(rhs.kind.description)")
        }
    }

    // MARK: Attributes

    /// The stored attribute `name`, which an update may set.
    private func settableAttribute(named name: String) throws -> AttributeDescription {
        let attribute = try readableAttribute(named: name)
        guard attribute.derivation == nil else {
            throw invalid("'\(name)' is a derived attribute, which the store maintains")
        }
        return attribute
    }

    /// The stored attribute `name` of the entity (inherited ones included).
    private func readableAttribute(named name: String) throws -> AttributeDescription {
        if let attribute = mapping.attributes.first(where: { $0.name == name }) { return attribute }
        if name.contains(".") {
            throw invalid("key path '\(name)' leaves the object; expressions read the object's own attributes only")
        }
        if model.allRelationships(of: mapping.entity).contains(where: { $0.name == name }) {
            throw invalid("'\(name)' is a relationship; batch updates read and set attributes only")
        }
        throw invalid("the entity has no stored attribute '\(name)'")
    }

    private func invalid(_ message: String) -> StoreError {
        StoreError(.invalidBatchRequest, "batch update of \(mapping.entity): \(message)")
    }

    // MARK: Constants

    private static func kind(of type: AttributeType) -> Kind {
        switch type {
        case .integer16, .integer32, .integer64: .integer
        case .double, .float: .real
        case .decimal: .decimal
        case .date: .date
        default: .other(type)
        }
    }

    private static func kind(of value: AttributeValue) -> Kind {
        switch value {
        case .integer: .integer
        case .double: .real
        case .decimal: .decimal
        case .date: .date
        case .string: .other(.string)
        case .boolean: .other(.boolean)
        case .binary: .other(.binary)
        case .uuid: .other(.uuid)
        case .uri: .other(.uri)
        case .transformable: .other(.transformable(transformer: ""))
        }
    }

    /// A constant as an operand: decimals as their exact text (what `ferry_decimal` reads), the rest as stored.
    private static func storageValue(of value: AttributeValue) -> SQLiteValue {
        if case .decimal(let decimal) = value { return .text(StoredValueCodec.text(of: decimal)) }
        return value.storageValue
    }
}

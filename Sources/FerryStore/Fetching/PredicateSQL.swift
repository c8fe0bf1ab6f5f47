package import FerrySQLite

/// A predicate compiled for one entity: the FROM clause with the joins its to-one key paths need, a WHERE
/// condition, and the values to bind to the condition's `?` parameters, in order.
///
/// No value is ever part of the SQL text and every identifier is quoted, so the text depends only on the
/// predicate's shape and can be cached as a prepared statement. The entity's own table is aliased `t0`; each
/// to-one key path prefix gets the next alias (`t1`, `t2`…), and so do the tables of to-many subqueries.
///
/// ```swift
/// let compiled = try FetchPredicate(format: "category.name == %@", "Tea").sql(for: "Product", in: schema)
/// // compiled.fromClause:  "Product" AS "t0" LEFT JOIN "Category" AS "t1" ON "t1"."_pk" = "t0"."category"
/// // compiled.whereClause: "t1"."name" = ?        compiled.bindings: [.text("Tea")]
/// let statement = try connection.prepare(compiled.selectStatement(columns: ["_pk"]))
/// try statement.bind(compiled.bindings)
/// let rows = try statement.fetchAll()
/// ```
///
/// The SQL calls `ferry_fold` and `ferry_regexp`; see `FetchPredicate.registerSQLFunctions(on:)`.
public struct PredicateSQL: Sendable, Hashable {
    /// The table of the entity's hierarchy.
    public var table: String
    /// The alias of `table`: `t0`.
    public var alias: String
    /// `LEFT JOIN … AS "tN" ON …` clauses for to-one key paths, in order.
    public var joins: [String]
    /// The condition, without the `WHERE` keyword. It includes the `_ent` test that limits rows to the entity
    /// (and its sub-entities when they are included) when the table holds other entities too.
    public var whereClause: String
    /// The values for the condition's parameters, converted to the columns' storage encodings.
    package var bindings: [SQLiteValue]

    /// `"Table" AS "t0"` followed by the joins.
    public var fromClause: String {
        ([SQL.identifier(table) + " AS " + SQL.identifier(alias)] + joins).joined(separator: " ")
    }

    /// `SELECT "t0"."column", … FROM … WHERE …`, selecting columns of the entity's own table.
    public func selectStatement(columns: [String]) -> String {
        let list = columns.map { SQL.identifier(alias) + "." + SQL.identifier($0) }.joined(separator: ", ")
        return "SELECT \(list) FROM \(fromClause) WHERE \(whereClause)"
    }
}

extension FetchPredicate {
    /// Compiles the predicate to SQL for objects of `entity`.
    ///
    /// Semantics, chosen to match Core Data's in-memory evaluation so that the store and a future in-memory
    /// evaluator agree:
    /// - A comparison with a missing value is false, except `== nil` and `!= value` (which is true for nil).
    ///   `NOT` is then plain negation: `NOT price > 10` includes objects without a price.
    /// - `ALL` is true when there is no related object; `NONE` likewise.
    /// - Strings compare by Unicode scalars (SQLite's BINARY collation) unless `[c]`/`[d]` asks for folding.
    /// - Decimals are stored as exact canonical text: `==`, `!=` and `IN` compare that text with the constants'
    ///   canonical texts, exactly; `<`, `>` and `BETWEEN` compare as numbers, reading the column with
    ///   `CAST(column AS REAL)`, exact to about 15 significant digits.
    ///
    /// - Parameters:
    ///   - entity: the entity fetched.
    ///   - schema: the store's mapping of the model.
    ///   - includesSubentities: whether objects of `entity`'s sub-entities match too (Core Data's default).
    /// - Throws: ``FetchPredicateError`` naming the entity and key path: `.unknownEntity`, `.unknownKeyPath`,
    ///   `.toManyKeyPath`, `.typeMismatch`, `.unsupported`, `.unboundVariable` or `.invalidRegularExpression`.
    public func sql(for entity: String, in schema: StoreSchema, includesSubentities: Bool = true) throws
        -> PredicateSQL
    {
        guard let mapping = schema.mapping(for: entity) else {
            throw FetchPredicateError(
                code: .unknownEntity, message: "the model has no entity '\(entity)'", format: description)
        }
        var compiler = PredicateCompiler(schema: schema, entity: entity, predicate: self)
        let condition = try compiler.compile(self)
        var clauses: [PredicateSQLFragment] = []
        let entityIDs = includesSubentities ? mapping.hierarchyIDs : [mapping.entityID]
        if let test = compiler.entityTest(alias: compiler.rootAlias, table: mapping.table, ids: entityIDs) {
            clauses.append(PredicateSQLFragment(test))
        }
        if self != .truePredicate || clauses.isEmpty { clauses.append(condition) }
        let whereClause = PredicateSQLFragment.joined(clauses, separator: " AND ")
        return PredicateSQL(
            table: mapping.table, alias: compiler.rootAlias, joins: compiler.scopes[0].joins,
            whereClause: whereClause.text, bindings: whereClause.bindings)
    }
}

/// A piece of SQL text with the values of its `?` parameters, in text order.
struct PredicateSQLFragment: Hashable {
    var text: String
    var bindings: [SQLiteValue]

    init(_ text: String, bindings: [SQLiteValue] = []) {
        self.text = text
        self.bindings = bindings
    }

    /// `text` with `?` bound to `value`.
    static func parameter(_ value: SQLiteValue) -> PredicateSQLFragment {
        PredicateSQLFragment("?", bindings: [value])
    }

    static func + (lhs: PredicateSQLFragment, rhs: PredicateSQLFragment) -> PredicateSQLFragment {
        PredicateSQLFragment(lhs.text + rhs.text, bindings: lhs.bindings + rhs.bindings)
    }

    static func + (lhs: PredicateSQLFragment, rhs: String) -> PredicateSQLFragment {
        PredicateSQLFragment(lhs.text + rhs, bindings: lhs.bindings)
    }

    static func + (lhs: String, rhs: PredicateSQLFragment) -> PredicateSQLFragment {
        PredicateSQLFragment(lhs + rhs.text, bindings: rhs.bindings)
    }

    static func joined(_ fragments: [PredicateSQLFragment], separator: String) -> PredicateSQLFragment {
        PredicateSQLFragment(
            fragments.map(\.text).joined(separator: separator), bindings: fragments.flatMap(\.bindings))
    }
}

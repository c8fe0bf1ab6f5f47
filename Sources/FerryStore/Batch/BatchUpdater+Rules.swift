import FerrySQLite
import Foundation

extension BatchUpdater {
    /// Checks the new value of every attribute in `newValues` that has rules (non-optional, bounds, lengths, a
    /// pattern, a narrow integer type, a decimal's precision) against them, over the rows `condition` selects, before
    /// anything is written.
    ///
    /// Each distinct new value is computed once by SQLite (`GROUP BY` the expression, with the lowest primary key
    /// that gets it, so a constant is checked once); a non-optional attribute without other rules only looks for
    /// NULL, in SQL.
    ///
    /// - Throws: the first ``ValidationError`` found, naming the entity, the attribute and an object that would
    ///   get the value; ``ModelError`` for a pattern that does not compile.
    func checkRules(
        of newValues: [(attribute: AttributeDescription, value: BatchUpdateCompiler.Compiled)],
        inRowsWhere condition: String, _ bindings: [SQLiteValue], mapping: StoreSchema.EntityMapping
    ) throws {
        for (attribute, value) in newValues {
            let rules = try AttributeRules(attribute, of: mapping.entity)
            guard !attribute.isOptional || rules.checksValues else { continue }
            // Rules on values apply to the types whose values are read back here; others only need the NULL test.
            let checksValues = rules.checksValues && Self.valueRuleTypes.contains(attribute.type)
            guard !attribute.isOptional || checksValues else { continue }
            let nullOnly = checksValues ? "" : " AND (\(value.sql)) IS NULL"
            let sql =
                "SELECT MIN(\(SQL.identifier("_pk"))), (\(value.sql)) FROM \(SQL.identifier(mapping.table)) "
                + "WHERE \(condition)\(nullOnly) GROUP BY (\(value.sql))"
            let statement = try connection.prepare(sql)
            try statement.bind(value.bindings + bindings + (checksValues ? [] : value.bindings) + value.bindings)
            defer { statement.reset() }
            while try statement.step() {
                let stored = statement.value(at: 1)
                let newValue = StoredValueCodec.decode(stored, as: attribute.type)
                if case .null = stored {} else if newValue == nil { continue }  // not decodable: the type rules own it
                guard let error = ValidationError.combined(rules.check(newValue)) else { continue }
                let primaryKey = statement.int64(at: 0)
                throw error.filling(
                    entity: mapping.entity, key: attribute.name, objectDescription: "\(mapping.entity)/p\(primaryKey)")
            }
        }
    }

    /// The attribute types whose bounds, lengths and patterns ``checkRules(of:inRowsWhere:_:mapping:)`` checks.
    private static let valueRuleTypes: Set<AttributeType> = [
        .integer16, .integer32, .integer64, .double, .float, .decimal, .date, .string,
    ]
}

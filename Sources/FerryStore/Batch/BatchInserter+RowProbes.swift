import FerrySQLite

/// What the statements that compare a packed row with its stored row share (the kept count, history's changed
/// attributes, the stored-key check): which key matches a row, which rows of the table are the entity's, and a
/// statement that binds as the row's INSERT does.
extension BatchInserter {
    /// The first uniqueness constraint that applies to the entity (inherited ones first) whose attributes `names`
    /// all give; `nil` when a row giving `names` cannot be matched to a stored row.
    func constraint(givenBy names: [String]) -> [String]? {
        constraints(givenBy: names).first
    }

    /// Every uniqueness constraint that applies to the entity (inherited ones first) whose attributes `names` all
    /// give: the keys by which a row giving `names` can meet a stored row.
    func constraints(givenBy names: [String]) -> [[String]] {
        schema.model.ancestry(of: mapping.entity).flatMap(\.uniquenessConstraints)
            .filter { $0.allSatisfy(names.contains) }
    }

    /// ` AND "_ent" IN (…)`: a query of the entity's table kept to the entity's hierarchy, or nothing when the table
    /// holds this entity alone.
    var hierarchyCondition: String {
        guard !schema.isSingleEntityTable(mapping.table) else { return "" }
        return " AND \(SQL.identifier("_ent")) IN (\(mapping.hierarchyIDs.map(String.init).joined(separator: ", ")))"
    }

    /// `sql` prepared as a shape whose parameters 1…n bind as the given attributes of a row of `shape` do, with
    /// every value compared as given (none written to a blob file).
    func comparisonShape(_ sql: String, like shape: Shape) throws -> Shape {
        Shape(
            statement: try connection.prepare(sql), names: shape.names, types: shape.types, optional: shape.optional,
            external: shape.external.map { _ in false }, omittedMandatory: [], primaryKeyParameter: nil,
            historyProperties: shape.historyProperties, keyProbe: nil)
    }
}

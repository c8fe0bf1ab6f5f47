import FerrySQLite

extension HistoryRecorder {
    /// Records what a context's save writes: called by ``SaveWriter`` once the inserted objects have their
    /// primary keys and before any row is deleted (so the tombstones can still be read from the rows).
    ///
    /// - Inserts: every row of `plan.inserts`, by its permanent ID.
    /// - Updates: every row of `plan.updates`, with the attributes, to-one and to-many relationships it changed.
    /// - Deletes: every row of `plan.deletes`, and every stored row a ``MergePolicy/overwrite`` replacement deletes,
    ///   with the stored values of its uniqueness-constrained attributes.
    ///
    /// - Throws: ``SQLiteError``.
    func record(_ plan: SavePlan, outcome: SaveOutcome, layouts: ObjectLayouts) throws {
        for row in plan.replacements.map(\.stored) + plan.deletes.map(\.objectID) {
            try recordDelete(entity: row.entityName, primaryKey: row.primaryKey)
        }
        for row in plan.updates {
            let layout = layouts[row.objectID.entity]
            let names =
                row.changedAttributes.map { layout.attributes[$0].name }
                + row.changedToOne.map { layout.toOne[$0].name }
                + row.changedToMany.map { layout.toMany[$0].name }
            try recordUpdate(
                ent: layout.mapping.entityID, primaryKey: row.objectID.primaryKey,
                properties: Self.propertyList(names))
        }
        for row in plan.inserts {
            let id = outcome.finalID(of: row.objectID)
            try recordInsert(ent: layouts[id.entity].mapping.entityID, primaryKey: id.primaryKey)
        }
    }
}

extension ManagedObjectContext {
    /// Reads back, after a save committed, the derived attributes of the objects it inserted or updated: the store
    /// computes them by trigger as the rows are written, and Core Data (since iOS 14) refreshes the saved objects'
    /// derived values, so that `productCount` reads right after the save without a manual refresh. Only entities
    /// with derived attributes cost a query: one per entity, for the saved objects' rows.
    ///
    /// Objects the save did not write keep the derived values they were loaded with (a product whose category was
    /// renamed keeps its old `categoryName` until refreshed or fetched again), as in Core Data.
    func refreshDerivedValues(of saved: [ManagedObject]) {
        var byEntity: [String: [ManagedObject]] = [:]
        for object in saved where object.state.lifecycle == .clean && !object.state.isFault {
            guard !object.layout.derivedAttributeSlots.isEmpty else { continue }
            byEntity[object.layout.name, default: []].append(object)
        }
        for (entity, objects) in byEntity {
            let layout = layout(of: entity)
            // The save has committed: a failed read leaves the loaded values (as before this refresh existed)
            // rather than reporting a failure for a save that succeeded.
            guard let rows = try? readRows(objects.map(\.objectID.primaryKey), of: layout) else { continue }
            var rowsByID: [ObjectID: StoredRow] = [:]
            for row in rows { rowsByID[row.objectID] = row }
            for object in objects {
                guard let row = rowsByID[object.objectID] else { continue }
                for slot in layout.derivedAttributeSlots {
                    object.state.attributes[slot] = row.attributes[slot]
                    object.state.committed?.attributes[slot] = row.attributes[slot]
                }
            }
        }
    }
}

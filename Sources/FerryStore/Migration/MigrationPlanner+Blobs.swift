import FerrySQLite

/// Attributes whose external storage changes: their values move between rows and blob files.
extension MigrationPlanner {
    /// Whether `attribute` keeps large values in blob files (a stored binary attribute that allows it).
    static func storesExternally(_ attribute: AttributeDescription) -> Bool {
        attribute.isStored && attribute.allowsExternalStorage && attribute.type == .binary
    }

    /// An attribute newly allowed external storage moves its inline values larger than the threshold to files; one
    /// no longer allowed it moves the values of its files back into the rows.
    mutating func planBlobMove(
        from old: AttributeDescription, to new: AttributeDescription, of owner: String, column: String,
        table: String, ids: [Int], into planned: inout TableMigration.Column
    ) throws {
        let wasExternal = Self.storesExternally(old)
        let isExternal = Self.storesExternally(new)
        guard wasExternal != isExternal else { return }
        let value = Self.qualified(table, column)
        let scope = Self.entityCondition(ids, table: table)
        if isExternal {
            let rows = try count(
                table,
                where: "\(scope) AND typeof(\(value)) = 'blob' AND length(\(value)) > \(externalStorageThreshold)")
            planned.blobMove = .toFiles
            steps.append(
                MigrationStep(
                    kind: "externalizeBlobs", entity: owner,
                    summary: "move the \(rows) values of '\(owner).\(new.name)' larger than "
                        + "\(externalStorageThreshold) bytes to blob files (it now allows external storage)",
                    cost: .onePass, rows: rows))
        } else {
            let rows = try count(table, where: "\(scope) AND \(BlobReference.sqlCondition(value))")
            planned.blobMove = .toRows
            steps.append(
                MigrationStep(
                    kind: "internalizeBlobs", entity: owner,
                    summary: "move the \(rows) values of '\(owner).\(new.name)' kept in blob files back into their "
                        + "rows (it no longer allows external storage)", cost: .onePass, rows: rows))
        }
    }
}

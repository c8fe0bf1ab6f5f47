import FerrySQLite
import Foundation

/// Rows removed (rejected by the violation policy, or of removed entities), stale triggers and indexes, and what
/// the store records about its model.
extension MigrationExecutor {
    /// Keeps the rows the plan rejects in `ferry_migration_rejects` (each with its reason and its values as JSON)
    /// and removes them; returns how many.
    func reject(version: Int) throws -> Int {
        guard !plan.rejections.isEmpty else { return 0 }
        try execute(
            """
            CREATE TABLE IF NOT EXISTS ferry_migration_rejects (
                id INTEGER PRIMARY KEY, version INTEGER NOT NULL, entity TEXT NOT NULL, table_name TEXT NOT NULL,
                pk INTEGER NOT NULL, reason TEXT NOT NULL, row TEXT NOT NULL)
            """)
        var total = 0
        for rejection in plan.rejections {
            let columns = try tableColumns(rejection.table)
            let json =
                "json_object("
                + columns.map { column in
                    let value = MigrationPlanner.qualified(rejection.table, column)
                    return "'\(column.replacingOccurrences(of: "'", with: "''"))', "
                        + "CASE WHEN typeof(\(value)) = 'blob' THEN hex(\(value)) ELSE \(value) END"
                }.joined(separator: ", ") + ")"
            try execute(
                "INSERT INTO ferry_migration_rejects (version, entity, table_name, pk, reason, row) SELECT ?, ?, ?, "
                    + "\(MigrationPlanner.qualified(rejection.table, "_pk")), ?, \(json) FROM "
                    + "\(SQL.identifier(rejection.table)) WHERE \(rejection.condition)",
                [.integer(Int64(version)), .text(rejection.entity), .text(rejection.table), .text(rejection.reason)])
            total += connection.changes
            try removeRows(
                of: rejection.table,
                listedBy: "SELECT pk FROM ferry_migration_rejects WHERE version = \(version) AND table_name = "
                    + "'\(rejection.table.replacingOccurrences(of: "'", with: "''"))'")
        }
        return total
    }

    /// Removes the rows of entities the new model no longer has.
    func removeEntities() throws {
        for table in plan.tables where !table.removedEntityIDs.isEmpty {
            guard let old = table.sourceTable else { continue }
            try execute("CREATE TEMP TABLE IF NOT EXISTS ferry_migration_gone (pk INTEGER PRIMARY KEY)")
            try execute("DELETE FROM temp.ferry_migration_gone")
            let ids = table.removedEntityIDs.map(String.init).joined(separator: ", ")
            try execute(
                "INSERT INTO temp.ferry_migration_gone (pk) SELECT \"_pk\" FROM \(SQL.identifier(old)) "
                    + "WHERE \"_ent\" IN (\(ids))")
            try removeRows(of: old, listedBy: "SELECT pk FROM temp.ferry_migration_gone")
        }
    }

    /// Removes the rows of `table` whose `_pk` the query `keys` lists, with what refers to them: references to
    /// them become null, their join rows go (as a nullify delete rule would have it), and so does their copy.
    private func removeRows(of table: String, listedBy keys: String) throws {
        let source = plan.source
        var nullified: Set<String> = []
        for mapping in source.entities.values {
            for key in mapping.foreignKeys.values where key.destinationTable == table {
                guard nullified.insert("\(mapping.table).\(key.column)").inserted else { continue }
                var assignments = ["\(SQL.identifier(key.column)) = NULL"]
                if let entityColumn = key.entityColumn { assignments.append("\(SQL.identifier(entityColumn)) = NULL") }
                try execute(
                    "UPDATE \(SQL.identifier(mapping.table)) SET \(assignments.joined(separator: ", ")) WHERE "
                        + "\(SQL.identifier(key.column)) IN (\(keys))")
            }
        }
        for join in source.joinTables {
            if source.model.rootEntity(of: join.sourceEntity) == table {
                try execute("DELETE FROM \(SQL.identifier(join.name)) WHERE source IN (\(keys))")
            }
            if source.model.rootEntity(of: join.destinationEntity) == table {
                try execute("DELETE FROM \(SQL.identifier(join.name)) WHERE destination IN (\(keys))")
            }
        }
        if let migration = plan.tables.first(where: { $0.sourceTable == table }), migration.rebuilds {
            try execute("DELETE FROM \(SQL.identifier(Self.copyName(of: migration.table))) WHERE \"_pk\" IN (\(keys))")
        }
        try execute("DELETE FROM \(SQL.identifier(table)) WHERE \"_pk\" IN (\(keys))")
    }

    /// Drops every trigger of the entity tables (the new layout's are created again at the end, so none refers to a
    /// renamed or dropped column meanwhile) and the indexes the new layout does not have.
    func dropStaleTriggersAndIndexes() throws {
        for trigger in try MigrationPlanner.existingIndexes(on: connection, type: "trigger") {
            try execute("DROP TRIGGER \(SQL.identifier(trigger.name))")
        }
        let wanted = Set(MigrationPlanner.indexStatements(of: plan.destination))
        let moved = Set(plan.tables.filter { $0.rebuilds || $0.sourceTable != $0.table }.compactMap(\.sourceTable))
        for index in try MigrationPlanner.existingIndexes(on: connection)
        where !wanted.contains(index.sql) || moved.contains(index.table) {
            try execute("DROP INDEX \(SQL.identifier(index.name))")
        }
    }

    /// Rewrites `ferry_entities` for the new model (numbers kept, new entities added, removed ones gone).
    func writeEntities() throws {
        let schema = plan.destination
        try execute("DELETE FROM ferry_entities")
        for (id, name) in schema.entityNames.sorted(by: { $0.key < $1.key }) {
            let parent = schema.model.entity(named: name)?.parentEntity.flatMap { schema.mapping(for: $0)?.entityID }
            try execute(
                "INSERT INTO ferry_entities (ent, name, parent, table_name) VALUES (?, ?, ?, ?)",
                [
                    .integer(Int64(id)), .text(name), parent.map { .integer(Int64($0)) } ?? .null,
                    .text(schema.model.rootEntity(of: name)),
                ])
        }
    }

    /// Records the new model as the store's: its version hash and its text.
    func writeModel() throws {
        let model = plan.destination.model
        try execute(
            "INSERT OR REPLACE INTO ferry_metadata (key, value) VALUES ('model_hash', ?), (?, ?)",
            [.text(model.versionHash), .text(StoreMetadata.modelTextKey), .text(model.modelFileYAML)])
    }

    /// Checks the tables whose rows the migration wrote before the commit: SQLite's full integrity check (rows, indexes
    /// and their agreement), or its quick check for a table rebuilt with fresh indexes.
    ///
    /// - Throws: ``StoreError`` `.sqlite` naming what SQLite found; the transaction then rolls back.
    func checkIntegrity() throws {
        // Tables whose rows the migration wrote (copied, filled, removed, a column dropped, an index built); a table
        // only renamed or given a new column has the rows and indexes it had.
        let written = Set(plan.steps.filter { $0.cost != .instantDDL }.map(\.entity))
        let tables = plan.tables.filter { table in
            !table.table.isEmpty && table.sourceTable != nil
                && (table.rebuilds || written.contains(table.table)
                    || plan.source.model.subentities(of: table.sourceTable ?? "").contains { written.contains($0) }
                    || written.contains(where: { plan.destination.model.rootEntity(of: $0) == table.table }))
        }.map(\.table)
        let rebuilt = Set(plan.tables.filter(\.rebuilds).map(\.table))
        for table in tables {
            // A rebuilt table's indexes were all built from its rows in this transaction: SQLite's quick check (every
            // page, record and constraint, without looking up each row in each index) is enough there, and costs a
            // tenth of the full check on a large table. Tables changed in place get the full check.
            let check = rebuilt.contains(table) ? "quick_check" : "integrity_check"
            let rows = try connection.prepare("PRAGMA \(check)(\(SQL.identifier(table)))").fetchAll()
            let findings = rows.compactMap { $0[0].text }
            guard findings == ["ok"] else {
                throw StoreError(
                    .sqlite,
                    "the migrated table '\(table)' fails SQLite's integrity check: "
                        + findings.prefix(3).joined(separator: "; "), path: connection.path)
            }
        }
    }

    /// The columns of `table`, in order.
    private func tableColumns(_ table: String) throws -> [String] {
        try connection.prepare("SELECT name FROM pragma_table_info(?)").bindingAll([.text(table)]).fetchAll()
            .compactMap { $0[0].text }
    }
}

extension Statement {
    /// Binds `values` and returns the statement, for chaining.
    fileprivate func bindingAll(_ values: [SQLiteValue]) throws -> Statement {
        try bind(values)
        return self
    }
}

import FerrySQLite

/// The links of relationships whose storage changes (to-one ↔ to-many, ordered ↔ unordered): copied out of the old
/// layout into temporary tables before anything is renamed or dropped, written into the new layout after it exists.
extension MigrationExecutor {
    /// The temporary table holding the links of move `index`.
    private static func linkTable(_ index: Int) -> String { "ferry_migration_links_\(index)" }

    /// Copies each move's `owner, member, position` rows out of the old layout (after rejected and removed rows are
    /// gone).
    func collectLinks() throws {
        for (index, move) in plan.relationshipMoves.enumerated() {
            let table = SQL.identifier(Self.linkTable(index))
            try execute("DROP TABLE IF EXISTS temp.\(table)")
            try execute("CREATE TEMP TABLE \(table) AS \(move.pairs)")
            try execute("CREATE INDEX temp.\(SQL.identifier(Self.linkTable(index) + "_owner")) ON \(table) (owner)")
        }
    }

    /// Writes each move's links into the new layout: a key column gets each owner's one member (the first or, under
    /// keep-last, the last by position then row number); a join table gets every link, numbered in order when it
    /// is ordered.
    func writeLinks() throws {
        for (index, move) in plan.relationshipMoves.enumerated() {
            let links = "temp.\(SQL.identifier(Self.linkTable(index)))"
            switch move.target {
            case .foreignKey(let table, let column, let entityIDs, let orderColumn):
                let direction = move.keepsLast ? "DESC" : "ASC"
                let name = SQL.identifier(table)
                let key = "\(name).\(SQL.identifier(column))"
                let ids = entityIDs.map(String.init).joined(separator: ", ")
                let owners = "WHERE \"_pk\" IN (SELECT owner FROM \(links)) AND \"_ent\" IN (\(ids))"
                try execute(
                    "UPDATE \(name) SET \(SQL.identifier(column)) = (SELECT l.member FROM \(links) AS l WHERE "
                        + "l.owner = \(name).\"_pk\" ORDER BY l.position \(direction), l.member \(direction) LIMIT 1) "
                        + owners)
                if let orderColumn {
                    // Each member's owners are numbered 1, 2, … in the order they had (by key where they had none),
                    // as a save numbers them.
                    try execute(
                        "UPDATE \(links) SET inverse_position = numbered.n FROM (SELECT rowid AS r, row_number() OVER "
                            + "(PARTITION BY member ORDER BY inverse_position, owner) AS n FROM \(links)) AS numbered "
                            + "WHERE \(links).rowid = numbered.r")
                    try execute(
                        "UPDATE \(name) SET \(SQL.identifier(orderColumn)) = (SELECT l.inverse_position FROM \(links) "
                            + "AS l WHERE l.owner = \(name).\"_pk\" AND l.member = \(key) LIMIT 1) \(owners)")
                }
            case .joinTable(let join):
                let isOrdered = plan.destination.joinTables.first { $0.name == join }?.isOrdered ?? false
                let columns = isOrdered ? "source, destination, position" : "source, destination"
                let position = isOrdered ? ", row_number() OVER (PARTITION BY owner ORDER BY position, member)" : ""
                try execute(
                    "INSERT OR IGNORE INTO \(SQL.identifier(join)) (\(columns)) SELECT owner, member\(position) "
                        + "FROM \(links)")
            }
            try execute("DROP TABLE \(links)")
        }
    }
}

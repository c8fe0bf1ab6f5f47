import FerrySQLite
import Foundation
import Logging

/// Carries out a ``MigrationPlan`` on a store so that, whenever the process stops, the store is at its old model or
/// at the new one, never between:
///
/// 1. A marker (`ferry_migration`) says a migration to the new model is under way; other work is refused meanwhile.
/// 2. Each table that must be rebuilt is copied beside the old one (`ferry_migrating_<table>`) in chunks of rows,
///    each chunk its own transaction; the copy's highest `_pk` is the checkpoint, so a run killed here resumes with
///    the next chunk (or, for a migration to another model, starts again). A table with a column whose values move
///    between rows and blob files is rebuilt so: each chunk also moves its rows' values, its new files made durable
///    before it commits (see ``MigrationBlobMover``), and a chunk ends early once its values reach
///    ``chunkBytes``.
/// 3. One transaction does the rest: rows rejected by the violation policy are kept in `ferry_migration_rejects` and
///    removed, copies are swapped in, tables and columns renamed, added and dropped, blob references recounted,
///    defaults filled, indexes and triggers rebuilt, the entity numbers, model and history written, the integrity
///    checked, and the marker removed.
/// 4. After the commit, a sweep of the blob folder removes the files no row refers to any more (and any a killed
///    run left).
struct MigrationExecutor {
    let connection: Connection
    let plan: MigrationPlan
    let appliedBy: String
    /// Rows per chunk when a table is copied.
    let chunkRows: Int
    /// When values move between rows and blob files: a chunk takes no more rows once the values it moves reach this
    /// many bytes (at least one row per chunk).
    var chunkBytes = StoreMigrator.defaultChunkBytes
    let logger: Logger
    /// Called after each committed chunk of a copy with the table and the rows copied so far (tests stop here).
    var afterChunk: ((String, Int) throws -> Void)? = nil
    /// Called after each value moved between a row and a blob file, inside its chunk's transaction, with the column
    /// (`Table.column`) and the values this run moved so far (tests stop here).
    var afterBlobFile: ((String, Int) throws -> Void)? = nil

    /// Runs the migration.
    ///
    /// - Returns: what it did.
    /// - Throws: `SQLiteError` or ``StoreError`` when a statement fails (the store is then at its old model, with
    ///   the marker set when the failure came after step 1).
    func run() throws -> MigrationResult {
        let started = ContinuousClock.now
        try connection.transaction(.immediate) {
            let previous = try StoreMigrationState.read(connection)
            if previous?.targetHash != plan.destinationHash { try dropCopies() }
            try StoreMigrationState(
                targetHash: plan.destinationHash, startedAt: ISO8601DateFormatter().string(from: Date()),
                startedBy: appliedBy
            ).write(connection)
        }
        for table in plan.tables where table.rebuilds { try copy(table) }
        let result = try connection.transaction(.immediate) { try finish() }
        sweepBlobFolder()
        logger.info(
            "migrated the store",
            metadata: [
                "path": "\(connection.path)", "version": "\(result.version)",
                "seconds": "\((ContinuousClock.now - started).components.seconds)",
            ])
        return result
    }

    // MARK: - Copies

    /// The name of the copy of `table`.
    static func copyName(of table: String) -> String { StoreMigrationState.copyPrefix + table }

    /// Drops copies a migration to another model left.
    private func dropCopies() throws {
        let statement = try connection.prepare(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'ferry\\_migrating\\_%' ESCAPE '\\'")
        for row in try statement.fetchAll() {
            if let name = row[0].text { try execute("DROP TABLE \(SQL.identifier(name))") }
        }
    }

    /// Fills the copy of `table` from the old table, chunk by chunk from where the copy stopped.
    private func copy(_ table: TableMigration) throws {
        guard let sourceTable = table.sourceTable else { return }
        let copy = Self.copyName(of: table.table)
        try execute(plan.destination.createTableStatement(forRoot: table.table, named: copy))
        let movers = try blobMovers(for: table)
        let columns = ["_pk", "_ent", "_opt"] + table.columns.map(\.name)
        let values =
            ["_pk", "_ent", "_opt"].map(SQL.identifier)
            + table.columns.map { column in
                guard let old = column.source else { return "NULL" }
                if let mover = movers.first(where: { $0.name == "\(table.table).\(column.name)" }) {
                    return mover.copiedValue
                }
                if let conversion = column.conversion { return conversion }
                return column.cast ? "CAST(\(SQL.identifier(old)) AS \(column.type))" : SQL.identifier(old)
            }
        let insert =
            "INSERT INTO \(SQL.identifier(copy)) (\(columns.map(SQL.identifier).joined(separator: ", "))) "
            + "SELECT \(values.joined(separator: ", ")) FROM \(SQL.identifier(sourceTable)) WHERE \"_pk\" > ? "
        guard movers.isEmpty else {
            let copied = try copyMovingBlobs(
                table, insert: insert + "AND \"_pk\" <= ? ORDER BY \"_pk\"", movers: movers)
            logger.debug("copied a table beside the old one", metadata: ["table": "\(table.table)", "rows": "\(copied)"])
            return
        }
        let chunk = insert + "ORDER BY \"_pk\" LIMIT \(max(chunkRows, 1))"
        var copied = try count(copy)
        while true {
            let added = try connection.transaction(.immediate) { () -> Int in
                let last = try connection.prepare("SELECT coalesce(max(\"_pk\"), 0) FROM \(SQL.identifier(copy))")
                    .fetchOne()?[0].integer ?? 0
                let statement = try connection.prepare(chunk)
                try statement.bind([.integer(last)])
                try statement.run()
                return connection.changes
            }
            copied += added
            if added > 0 { try afterChunk?(table.table, copied) }
            if added < max(chunkRows, 1) { break }
        }
        logger.debug("copied a table beside the old one", metadata: ["table": "\(table.table)", "rows": "\(copied)"])
    }

    // MARK: - The swap

    /// Everything after the copies, in the caller's transaction.
    private func finish() throws -> MigrationResult {
        let version = Int(try connection.prepare("SELECT coalesce(max(version), 0) + 1 FROM ferry_model_history")
            .fetchOne()?[0].integer ?? 1)
        var rowsBefore: [String: Int] = [:]
        for table in plan.tables { if let old = table.sourceTable { rowsBefore[old] = try count(old) } }
        let rejected = try reject(version: version)
        try removeEntities()
        try collectLinks()
        try dropStaleTriggersAndIndexes()
        for table in plan.tables where table.table.isEmpty {
            if let old = table.sourceTable { try execute("DROP TABLE \(SQL.identifier(old))") }
        }
        for join in plan.joins {
            guard let old = join.sourceTable else { continue }
            if let new = join.table {
                if new != old { try execute("ALTER TABLE \(SQL.identifier(old)) RENAME TO \(SQL.identifier(new))") }
            } else {
                try execute("DROP TABLE \(SQL.identifier(old))")
            }
        }
        // Renames go through temporary names, so two tables (or columns) may trade names.
        let altered = plan.tables.filter { $0.sourceTable != nil && !$0.table.isEmpty }
        for table in altered {
            guard let old = table.sourceTable else { continue }
            if table.rebuilds {
                try execute("DROP TABLE \(SQL.identifier(old))")
            } else if old != table.table {
                try execute("ALTER TABLE \(SQL.identifier(old)) RENAME TO \(SQL.identifier("ferry_renaming_" + table.table))")
            }
        }
        for table in altered {
            guard let old = table.sourceTable else { continue }
            if table.rebuilds {
                try execute(
                    "ALTER TABLE \(SQL.identifier(Self.copyName(of: table.table))) RENAME TO \(SQL.identifier(table.table))")
            } else {
                if old != table.table {
                    try execute(
                        "ALTER TABLE \(SQL.identifier("ferry_renaming_" + table.table)) RENAME TO "
                            + SQL.identifier(table.table))
                }
                try alterColumns(table)
            }
        }
        for statement in plan.destination.createStatements { try execute(statement) }
        try writeLinks()
        for table in altered { try fill(table) }
        try recomputeDerivations()
        try recountBlobReferences()
        try writeEntities()
        try writeModel()
        var rowsAfter: [String: Int] = [:]
        for table in plan.tables where !table.table.isEmpty { rowsAfter[table.table] = try count(table.table) }
        let summary = Summary(
            steps: plan.steps.map(\.summary), rowsBefore: rowsBefore, rowsAfter: rowsAfter, rejected: rejected,
            policy: plan.policy.rawValue)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let text = (try? encoder.encode(summary)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        try ModelHistory.append(
            plan.destination.model, kind: "migrated", appliedBy: appliedBy, summary: text, on: connection)
        try StoreMigrationState.clear(connection)
        try checkIntegrity()
        return MigrationResult(
            version: version, steps: plan.steps, rowsBefore: rowsBefore, rowsAfter: rowsAfter, rejected: rejected)
    }

    /// What the history records about a migration.
    private struct Summary: Encodable {
        var steps: [String]
        var rowsBefore: [String: Int]
        var rowsAfter: [String: Int]
        var rejected: Int
        var policy: String
    }

    /// Drops, renames and adds the columns of a table altered in place.
    private func alterColumns(_ table: TableMigration) throws {
        let name = SQL.identifier(table.table)
        for column in table.droppedColumns { try execute("ALTER TABLE \(name) DROP COLUMN \(SQL.identifier(column))") }
        let renamed = table.columns.filter { $0.source != nil && $0.source != $0.name }
        for (index, column) in renamed.enumerated() {
            guard let old = column.source else { continue }
            try execute(
                "ALTER TABLE \(name) RENAME COLUMN \(SQL.identifier(old)) TO \(SQL.identifier("ferry_renaming_\(index)"))")
        }
        for (index, column) in renamed.enumerated() {
            try execute(
                "ALTER TABLE \(name) RENAME COLUMN \(SQL.identifier("ferry_renaming_\(index)")) TO "
                    + SQL.identifier(column.name))
        }
        for column in table.columns where column.source == nil {
            try execute("ALTER TABLE \(name) ADD COLUMN \(SQL.identifier(column.name)) \(column.type)")
        }
    }

    /// Gives new and newly required columns their values: defaults, `_ent` of referenced rows, order.
    private func fill(_ table: TableMigration) throws {
        let name = SQL.identifier(table.table)
        for column in table.columns {
            let target = SQL.identifier(column.name)
            if let value = column.fill {
                let ids = column.fillEntityIDs.map(String.init).joined(separator: ", ")
                let scope = column.fillEntityIDs.isEmpty ? "" : " AND \"_ent\" IN (\(ids))"
                try execute("UPDATE \(name) SET \(target) = ? WHERE \(target) IS NULL\(scope)", [value])
            } else if column.source == nil, column.name.hasPrefix("_order_") {
                try execute("UPDATE \(name) SET \(target) = \"_pk\" WHERE \(target) IS NULL")
            } else if column.source == nil, column.name.hasSuffix("_ent"),
                let key = plan.destination.mapping(for: table.table).flatMap({ _ in
                    plan.destination.entities.values.lazy.compactMap { mapping in
                        mapping.foreignKeys.values.first { $0.entityColumn == column.name }
                    }.first
                })
            {
                let reference = SQL.identifier(key.column)
                try execute(
                    "UPDATE \(name) SET \(target) = (SELECT d.\"_ent\" FROM \(SQL.identifier(key.destinationTable)) "
                        + "AS d WHERE d.\"_pk\" = \(name).\(reference)) WHERE \(reference) IS NOT NULL")
            }
        }
    }

    /// Sets the derived attributes added or changed from scratch, one set-based `UPDATE` each, with the new
    /// layout's triggers in place (a derived value that feeds another updates that one too).
    private func recomputeDerivations() throws {
        guard !plan.derivations.isEmpty else { return }
        let wanted = Set(plan.derivations)
        for (attribute, sql) in plan.destination.derivationRecomputeStatements where wanted.contains(attribute) {
            try execute(sql)
        }
    }

    // MARK: - Helpers

    /// Runs one statement, logging it with its duration at debug level.
    func execute(_ sql: String, _ bindings: [SQLiteValue] = []) throws {
        let start = ContinuousClock.now
        if bindings.isEmpty {
            try connection.execute(sql)
        } else {
            let statement = try connection.prepare(sql)
            try statement.bind(bindings)
            try statement.run()
        }
        let elapsed = ContinuousClock.now - start
        logger.debug(
            "migration statement",
            metadata: ["sql": "\(sql)", "milliseconds": "\(elapsed.components.attoseconds / 1_000_000_000_000_000 + elapsed.components.seconds * 1000)"])
    }

    func count(_ table: String) throws -> Int {
        Int(try connection.prepare("SELECT count(*) FROM \(SQL.identifier(table))").fetchOne()?[0].integer ?? 0)
    }
}

/// What a migration did.
public struct MigrationResult: Sendable {
    /// The store's model version after it (its number in ``ModelHistory``).
    public var version: Int
    /// The steps it ran.
    public var steps: [MigrationStep]
    /// Rows of each old table before.
    public var rowsBefore: [String: Int]
    /// Rows of each new table after.
    public var rowsAfter: [String: Int]
    /// Rows removed by the violation policy and kept in `ferry_migration_rejects`.
    public var rejected: Int
}

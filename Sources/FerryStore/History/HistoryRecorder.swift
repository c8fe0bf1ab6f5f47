import FerrySQLite
import Foundation

/// Who a recorded transaction is attributed to.
struct HistoryAttribution: Sendable, Hashable {
    var author: String?
    var contextName: String?
}

/// Records one history transaction and its changes, inside the write transaction that makes
/// them, on the store's writer connection: a rolled-back write leaves no history.
///
/// Making a recorder writes the transaction row. Changes are then recorded one row at a time through a prepared
/// INSERT (a context save's rows, a batch insert's upserted rows), or a set at a time with one `INSERT … SELECT`
/// (a batch insert's new rows by their key range, a batch update's matching rows, a batch delete's rows and the rows
/// its nullify rules clear). ``finish()`` gives the token, or removes the transaction again when nothing was
/// recorded. A store without history never makes a recorder, so recording costs nothing there.
///
/// Changes are keyed by `(token, ent, pk)`: a second change of one object in the same transaction merges into the
/// first (an insert stays an insert, a delete wins, updates add their property names).
final class HistoryRecorder {
    let connection: Connection
    let schema: StoreSchema
    let token: Int64
    let attribution: HistoryAttribution
    private(set) var changeCount = 0
    private var statements: [HistoryChange.Kind: Statement] = [:]
    private var tombstoneAttributes: [String: [String]] = [:]

    /// Merges a change into an existing one of the same object: a delete wins, then an insert (a batch insert records
    /// its new rows after the upserts of the same request), and an update adds the property names the existing
    /// update does not list yet. (In SET, bare names are the existing row.)
    static let mergeClause = """
        ON CONFLICT (token, ent, pk) DO UPDATE SET updated = CASE \
        WHEN excluded.kind <> 'update' OR kind <> 'update' THEN NULL \
        WHEN updated IS NULL THEN excluded.updated \
        WHEN excluded.updated IS NULL OR instr(',' || updated || ',', ',' || excluded.updated || ',') > 0 \
        THEN updated ELSE updated || ',' || excluded.updated END, \
        kind = CASE WHEN excluded.kind = 'delete' OR kind = 'delete' THEN 'delete' \
        WHEN excluded.kind = 'insert' THEN 'insert' ELSE kind END
        """

    /// Starts a transaction attributed to `attribution`, timestamped now.
    ///
    /// - Throws: ``SQLiteError``.
    init(connection: Connection, schema: StoreSchema, attribution: HistoryAttribution) throws {
        self.connection = connection
        self.schema = schema
        self.attribution = attribution
        let insert = try connection.cachedStatement(
            "INSERT INTO \(SQL.identifier(HistoryTables.transactions)) (timestamp, author, context_name) "
                + "VALUES (?, ?, ?) RETURNING token")
        defer { insert.reset() }
        try insert.bind(
            [
                .real(Date().timeIntervalSince1970), attribution.author.map(SQLiteValue.text) ?? .null,
                attribution.contextName.map(SQLiteValue.text) ?? .null,
            ])
        guard try insert.step() else {
            preconditionFailure("INSERT … RETURNING gave no row")
        }
        token = insert.int64(at: 0)
    }

    /// Ends the transaction: its token, or `nil` (and no transaction row) when it recorded no change.
    ///
    /// - Throws: ``SQLiteError``.
    func finish() throws -> Int64? {
        statements = [:]
        guard changeCount == 0 else { return token }
        try run("DELETE FROM \(SQL.identifier(HistoryTables.transactions)) WHERE token = ?", [.integer(token)])
        return nil
    }

    // MARK: One row at a time

    /// Records that row `primaryKey` of entity number `ent` was inserted.
    func recordInsert(ent: Int, primaryKey: Int64) throws {
        try record(.insert, ent: ent, primaryKey: primaryKey, updated: nil)
    }

    /// Records that row `primaryKey` of entity number `ent` was updated; `properties` are the changed property
    /// names, comma-separated (see ``propertyList(_:)``).
    func recordUpdate(ent: Int, primaryKey: Int64, properties: String) throws {
        try record(.update, ent: ent, primaryKey: primaryKey, updated: properties)
    }

    /// Records that row `primaryKey` of `entity` is being deleted, with its tombstone; call it before the row goes.
    func recordDelete(entity: String, primaryKey: Int64) throws {
        guard let mapping = schema.mapping(for: entity) else { return }
        try record(.delete, ent: mapping.entityID, primaryKey: primaryKey, updated: nil)
        try recordTombstones(
            of: mapping, where: "\(SQL.identifier("_pk")) = ?", [.integer(primaryKey)])
    }

    private func record(_ kind: HistoryChange.Kind, ent: Int, primaryKey: Int64, updated: String?) throws {
        let statement = try statement(for: kind)
        try statement.bind(ent, at: 2)
        try statement.bind(primaryKey, at: 3)
        if kind == .update {
            if let updated { try statement.bind(updated, at: 4) } else { try statement.bindNull(at: 4) }
        }
        try statement.run()
        changeCount += 1
    }

    /// The prepared INSERT for changes of `kind`, with this transaction's token bound once (a reset keeps it).
    private func statement(for kind: HistoryChange.Kind) throws -> Statement {
        if let statement = statements[kind] { return statement }
        let updated = kind == .update ? "?4" : "NULL"
        let statement = try connection.prepare(
            "INSERT INTO \(SQL.identifier(HistoryTables.changes)) (token, ent, pk, kind, updated) "
                + "VALUES (?1, ?2, ?3, '\(kind.storedName)', \(updated)) " + Self.mergeClause)
        try statement.bind(token, at: 1)
        statements[kind] = statement
        return statement
    }

    // MARK: Sets of rows

    /// Records an update of `properties` (comma-separated) for every row of `table` that `condition` selects (with
    /// `bindings`), in one statement; call it before the UPDATE that changes them.
    func recordUpdates(
        inTable table: String, where condition: String, _ bindings: [SQLiteValue], properties: String
    ) throws {
        try run(
            "INSERT INTO \(SQL.identifier(HistoryTables.changes)) (token, ent, pk, kind, updated) "
                + "SELECT ?, \(SQL.identifier("_ent")), \(SQL.identifier("_pk")), 'update', ? "
                + "FROM \(SQL.identifier(table)) WHERE \(condition) " + Self.mergeClause,
            [.integer(token), .text(properties)] + bindings)
        changeCount += connection.changes
    }

    /// Records an insert for every row of `table` whose primary key is in `primaryKeys`: a batch insert's new rows,
    /// whose keys it chose consecutively, in one statement instead of one per row.
    func recordInserts(inTable table: String, primaryKeys: Range<Int64>) throws {
        guard !primaryKeys.isEmpty else { return }
        let key = SQL.identifier("_pk")
        try run(
            "INSERT INTO \(SQL.identifier(HistoryTables.changes)) (token, ent, pk, kind) "
                + "SELECT ?, \(SQL.identifier("_ent")), \(key), 'insert' FROM \(SQL.identifier(table)) "
                + "WHERE \(key) >= ? AND \(key) < ? " + Self.mergeClause,
            [.integer(token), .integer(primaryKeys.lowerBound), .integer(primaryKeys.upperBound)])
        changeCount += connection.changes
    }

    /// Records a delete, with its tombstone, for every row listed in the temporary table `pending` (columns `tbl`,
    /// `pk`, `ent`, as the batch deleter keeps them); call it before the rows go.
    func recordDeletes(listedIn pending: String) throws {
        try run(
            "INSERT INTO \(SQL.identifier(HistoryTables.changes)) (token, ent, pk, kind) "
                + "SELECT ?, ent, pk, 'delete' FROM \(pending) WHERE true " + Self.mergeClause,
            [.integer(token)])
        changeCount += connection.changes
        for mapping in schema.entities.values.sorted(by: { $0.entityID < $1.entityID }) {
            try recordTombstones(
                of: mapping,
                where: "\(SQL.identifier("_pk")) IN (SELECT pk FROM \(pending) WHERE tbl = ? AND ent = ?)",
                [.text(mapping.table), .integer(Int64(mapping.entityID))])
        }
    }

    // MARK: Tombstones

    /// Keeps the uniqueness-constrained attributes of the rows of exactly `mapping`'s entity that `condition`
    /// selects (nil values are left out).
    private func recordTombstones(
        of mapping: StoreSchema.EntityMapping, where condition: String, _ bindings: [SQLiteValue]
    ) throws {
        for attribute in tombstoneAttributes(of: mapping.entity) {
            let column = SQL.identifier(attribute)
            try run(
                "INSERT OR REPLACE INTO \(SQL.identifier(HistoryTables.tombstones)) (token, ent, pk, attribute, value) "
                    + "SELECT ?, \(SQL.identifier("_ent")), \(SQL.identifier("_pk")), ?, \(column) "
                    + "FROM \(SQL.identifier(mapping.table)) WHERE \(SQL.identifier("_ent")) = ? "
                    + "AND \(column) IS NOT NULL AND \(condition)",
                [.integer(token), .text(attribute), .integer(Int64(mapping.entityID))] + bindings)
        }
    }

    /// The attributes of every uniqueness constraint that applies to `entity` (inherited ones first), once each.
    private func tombstoneAttributes(of entity: String) -> [String] {
        if let cached = tombstoneAttributes[entity] { return cached }
        var names: [String] = []
        for declaring in schema.model.ancestry(of: entity) {
            for name in declaring.uniquenessConstraints.joined() where !names.contains(name) { names.append(name) }
        }
        tombstoneAttributes[entity] = names
        return names
    }

    // MARK: SQL

    /// Property names as `updated` stores them: sorted, once each, comma-separated.
    static func propertyList<Names: Sequence<String>>(_ names: Names) -> String {
        Set(names).sorted().joined(separator: ",")
    }

    private func run(_ sql: String, _ bindings: [SQLiteValue]) throws {
        let statement = try connection.cachedStatement(sql)
        try statement.bind(bindings)
        try statement.run()
    }
}

extension HistoryRecorder {
    /// A recorder for `attribution`, or `nil` when there is none (the store records no history).
    ///
    /// - Throws: ``SQLiteError``.
    convenience init?(_ connection: Connection, _ schema: StoreSchema, _ attribution: HistoryAttribution?) throws {
        guard let attribution else { return nil }
        try self.init(connection: connection, schema: schema, attribution: attribution)
    }
}

package import FerrySQLite
import Foundation

/// A table whose indexes a bulk load has dropped, to be built when it ends (see
/// ``PersistentStore/deferIndexes(ofEntity:owner:)``).
public struct DeferredIndexes: Sendable, Hashable {
    /// The table (the root entity's name).
    public var table: String
    /// Who deferred them: the load that builds them when it ends.
    public var owner: String
}

/// Loading an empty table fast: while a bulk load fills it, the table's uniqueness index and attribute indexes are
/// dropped, and they are built once when it ends, from all the keys at once, instead of one random B-tree insert
/// per row: faster at any size, and at 10M rows, whose random keys outgrow the page cache, it keeps the cost
/// linear (figures in Tests/Benchmarks/README.md). Foreign-key and `_ent`
/// indexes stay: their keys arrive nearly in order.
///
/// Only an empty table with exactly one uniqueness index (a constraint declared on its root entity), in a store
/// that records no history, qualifies. While its indexes are deferred, a batch insert under store-trump, or a
/// context's save (its uniqueness check relies on the index), stores every row, a repeated key included;
/// ``buildDeferredIndexes(ofTable:)`` then deletes each row whose key repeats an earlier row's (the
/// lowest primary key wins, the row insert-or-ignore would have kept) and builds the indexes, in one transaction.
/// Which indexes were dropped is recorded in `ferry_deferred_indexes` in the transaction that drops them, so a load
/// killed midway leaves the record to finish from.
///
/// Until they are built, the table has no uniqueness index: an upsert into it fails, and a reader may see rows
/// whose key repeats an earlier row's. Whoever holds the store for writing finishes deferred indexes before
/// anything else (`ferry` does so when it takes the store's lock).
extension PersistentStore {
    /// Drops the deferrable indexes of `entityName`'s table, if the table qualifies (see above), recording them for
    /// ``buildDeferredIndexes(ofTable:)`` under `owner`, in one transaction.
    ///
    /// - Returns: whether the indexes were deferred; `false` changes nothing.
    /// - Throws: ``StoreError`` `.sqlite`.
    public func deferIndexes(ofEntity entityName: String, owner: String) async throws -> Bool {
        guard !description.recordsHistory, let mapping = schema.mapping(for: entityName) else { return false }
        let table = mapping.table
        return try await writer.run { connection in
            try Self.mappingIndexErrors(table: table, path: connection.path) {
                try connection.transaction(.immediate) {
                    guard try Self.isEmpty(table, on: connection) else { return false }
                    let indexes = try Self.deferrableIndexes(of: table, schema: self.schema, on: connection)
                    guard indexes.count(where: \.isUnique) == 1, !indexes.contains(where: \.isPartial) else {
                        return false
                    }
                    try connection.execute(Self.deferredTableSQL)
                    let record = try connection.prepare(
                        "INSERT INTO ferry_deferred_indexes (name, tbl, owner, is_unique, columns, sql) "
                            + "VALUES (?, ?, ?, ?, ?, ?)")
                    for index in indexes {
                        try record.bind([
                            .text(index.name), .text(table), .text(owner), .integer(index.isUnique ? 1 : 0),
                            .text(Self.encode(index.columns)), .text(index.sql),
                        ])
                        try record.run()
                        try connection.execute("DROP INDEX \(SQL.identifier(index.name))")
                    }
                    return true
                }
            }
        }
    }

    /// The tables whose indexes are deferred, oldest first.
    ///
    /// - Throws: ``StoreError`` `.sqlite`.
    public func deferredIndexes() async throws -> [DeferredIndexes] {
        try await writer.run { connection in
            try Self.mappingIndexErrors(table: "ferry_deferred_indexes", path: connection.path) {
                guard try Self.hasDeferredTable(on: connection) else { return [] }
                return try connection.prepare(
                    "SELECT tbl, owner FROM ferry_deferred_indexes GROUP BY tbl, owner ORDER BY min(rowid)"
                ).fetchAll().map { DeferredIndexes(table: $0[0].text ?? "", owner: $0[1].text ?? "") }
            }
        }
    }

    /// Builds the deferred indexes of `table`: deletes the rows whose key repeats an earlier row's (the lowest
    /// primary key wins), creates the indexes and forgets the record, all in one transaction. Blob files only the
    /// deleted rows referred to are removed after it commits.
    ///
    /// ```swift
    /// try await store.deferIndexes(ofEntity: "Product", owner: "nightly load")
    /// // … insert the first load …
    /// let repeated = try await store.buildDeferredIndexes(ofTable: "Product")
    /// ```
    ///
    /// - Returns: the number of rows deleted; 0 when nothing was deferred.
    /// - Throws: ``StoreError`` `.sqlite`.
    @discardableResult
    public func buildDeferredIndexes(ofTable table: String) async throws -> Int {
        try await buildDeferredIndexes(ofTable: table, companion: nil)
    }

    /// Builds the deferred indexes of `table` as ``buildDeferredIndexes(ofTable:)`` does, and runs `companion` with
    /// the number of rows deleted in the same transaction.
    ///
    /// - Returns: the number of rows deleted; 0 when nothing was deferred.
    /// - Throws: ``StoreError`` `.sqlite`; what `companion` throws.
    @discardableResult
    package func buildDeferredIndexes(
        ofTable table: String, companion: (@Sendable (_ connection: Connection, _ removed: Int) throws -> Void)?
    ) async throws -> Int {
        var counting: (@Sendable (Connection, RemovedDuplicates) throws -> Void)?
        if let companion {
            counting = { connection, removed in try companion(connection, removed.count) }
        }
        return try await buildDeferredIndexes(ofTable: table, removing: counting).count
    }

    /// The rows a deferred index build deleted because their key repeated an earlier row's.
    public struct RemovedDuplicates: Sendable, Hashable {
        /// Rows deleted.
        public var count = 0
        /// Of those, the rows whose values differed from the row kept for their key (not only a repeat of it).
        public var differing = 0

        /// No rows.
        public init() {}

        mutating func add(_ other: RemovedDuplicates) {
            count += other.count
            differing += other.differing
        }
    }

    /// Builds the deferred indexes of `table` as ``buildDeferredIndexes(ofTable:)`` does, telling the
    /// deleted rows that differed from the row kept for their key from those that repeated it.
    ///
    /// - Throws: ``StoreError`` `.sqlite`.
    @discardableResult
    package func buildDeferredIndexes(
        ofTable table: String,
        removing companion: (@Sendable (_ connection: Connection, _ removed: RemovedDuplicates) throws -> Void)?
    ) async throws -> RemovedDuplicates {
        try await writer.run { connection in
            defer { self.releaseBlobs(on: connection) }
            return try Self.mappingIndexErrors(table: table, path: connection.path) {
                try connection.transaction(.immediate) {
                    guard try Self.hasDeferredTable(on: connection) else { return RemovedDuplicates() }
                    let select = try connection.prepare(
                        "SELECT name, is_unique, columns, sql FROM ferry_deferred_indexes WHERE tbl = ? ORDER BY rowid")
                    try select.bind([.text(table)])
                    var removed = RemovedDuplicates()
                    let indexes = try select.fetchAll()
                    try Self.withSortSettings(on: connection) {
                        for row in indexes {
                            let sql = row[3].text ?? ""
                            if row[1].integer == 1 {
                                removed.add(
                                    try Self.createUniqueIndex(
                                        sql, name: row[0].text ?? "", table: table, columns: Self.decode(row[2].text),
                                        on: connection))
                            } else {
                                try connection.execute(sql)
                            }
                        }
                    }
                    let forget = try connection.prepare("DELETE FROM ferry_deferred_indexes WHERE tbl = ?")
                    try forget.bind([.text(table)])
                    try forget.run()
                    try companion?(connection, removed)
                    return removed
                }
            }
        }
    }

    // MARK: On the writer

    static let deferredTableSQL = """
        CREATE TABLE IF NOT EXISTS ferry_deferred_indexes (
            name TEXT PRIMARY KEY, tbl TEXT NOT NULL, owner TEXT NOT NULL, is_unique INTEGER NOT NULL,
            columns TEXT NOT NULL, sql TEXT NOT NULL)
        """

    /// An index of a table, as SQLite describes it.
    struct TableIndex {
        var name: String
        var sql: String
        var columns: [String]
        var isUnique: Bool
        var isPartial: Bool
    }

    /// The indexes of `table` a load may defer: every index made by `CREATE INDEX` but those on `_ent` or a
    /// foreign-key column.
    static func deferrableIndexes(of table: String, schema: StoreSchema, on connection: Connection) throws
        -> [TableIndex]
    {
        var keptColumns: Set<String> = ["_ent"]
        for mapping in schema.entities.values where mapping.table == table {
            for foreignKey in mapping.foreignKeys.values {
                keptColumns.insert(foreignKey.column)
                if let entityColumn = foreignKey.entityColumn { keptColumns.insert(entityColumn) }
            }
        }
        let list = try connection.prepare(
            "SELECT l.name, l.\"unique\", l.partial, m.sql FROM pragma_index_list(?) AS l "
                + "JOIN sqlite_master AS m ON m.type = 'index' AND m.name = l.name WHERE l.origin = 'c'")
        try list.bind([.text(table)])
        var indexes: [TableIndex] = []
        for row in try list.fetchAll() {
            let name = row[0].text ?? ""
            let info = try connection.prepare("SELECT name FROM pragma_index_info(?) ORDER BY seqno")
            try info.bind([.text(name)])
            let columns = try info.fetchAll().compactMap { $0[0].text }
            guard !columns.contains(where: keptColumns.contains) else { continue }
            indexes.append(
                TableIndex(
                    name: name, sql: row[3].text ?? "", columns: columns, isUnique: row[1].integer == 1,
                    isPartial: row[2].integer == 1))
        }
        return indexes
    }

    /// Runs `body` (which builds indexes) with one helper thread for SQLite's sorter, so both cores sort, and a
    /// smaller page cache, whose freed pages the sorter's buffers reuse: without it, the build's memory comes on
    /// top of a full cache, and is the load's peak.
    private static func withSortSettings(on connection: Connection, _ body: () throws -> Void) throws {
        let cacheSize = try connection.prepare("PRAGMA cache_size").fetchOne()?[0].integer ?? -2000
        try connection.execute("PRAGMA threads = 1")
        // Negative: KiB; positive: pages (of 4 KiB at most, by default). Never raised.
        if cacheSize < -4096 || cacheSize > 1024 { try connection.execute("PRAGMA cache_size = -4096") }
        defer {
            try? connection.execute("PRAGMA cache_size = \(cacheSize)")
            try? connection.execute("PRAGMA threads = 0")
        }
        try body()
    }

    /// Creates a unique index, first deleting the rows whose key repeats an earlier row's when there are any;
    /// returns how many were deleted. Rows with a NULL in the key are never duplicates (as in a UNIQUE index).
    private static func createUniqueIndex(
        _ sql: String, name: String, table: String, columns: [String], on connection: Connection
    ) throws -> RemovedDuplicates {
        do {
            try connection.execute(sql)
            return RemovedDuplicates()
        } catch let error as SQLiteError where error.code == .constraint && connection.isInTransaction {
            // A failed statement is undone on its own; the transaction goes on.
            // A plain index on the key makes finding each row's earlier twin a lookup, not a scan.
            let helper = SQL.identifier(name + "_dedupe")
            let quotedTable = SQL.identifier(table)
            let list = columns.map(SQL.identifier).joined(separator: ", ")
            try connection.execute("CREATE INDEX \(helper) ON \(quotedTable) (\(list))")
            let notNull = columns.map { "\(SQL.identifier($0)) IS NOT NULL" }.joined(separator: " AND ")
            // The inner copy of the table needs a name of its own, and it must not hide the outer table's name.
            let earlier = SQL.alias("earlier")
            let same = columns.map { "\(earlier).\(SQL.identifier($0)) = \(quotedTable).\(SQL.identifier($0))" }
                .joined(separator: " AND ")
            var removed = RemovedDuplicates()
            removed.differing = try differingDuplicates(
                in: table, key: columns, notNull: notNull, same: same, earlier: earlier, on: connection)
            try connection.execute(
                "DELETE FROM \(quotedTable) WHERE \(notNull) AND EXISTS (SELECT 1 FROM \(quotedTable) AS \(earlier) "
                    + "WHERE \(same) AND \(earlier).\"_pk\" < \(quotedTable).\"_pk\")")
            removed.count = connection.changes
            try connection.execute("DROP INDEX \(helper)")
            try connection.execute(sql)
            return removed
        }
    }

    /// The rows of `table` whose `key` repeats an earlier row's and whose other values (all but `_pk` and `_opt`)
    /// differ from the first row of that key, the one the build keeps: one statement, each row's first twin found
    /// through the key's helper index.
    private static func differingDuplicates(
        in table: String, key: [String], notNull: String, same: String, earlier: String, on connection: Connection
    ) throws -> Int {
        let quotedTable = SQL.identifier(table)
        let info = try connection.prepare("SELECT name FROM pragma_table_info(?)")
        try info.bind([.text(table)])
        let names = try info.fetchAll().compactMap { $0[0].text }.filter {
            !key.contains($0) && $0 != "_pk" && $0 != "_opt"
        }
        guard !names.isEmpty else { return 0 }
        let first = SQL.alias("first")
        let differs = names.map { "\(first).\(SQL.identifier($0)) IS NOT \(quotedTable).\(SQL.identifier($0))" }
            .joined(separator: " OR ")
        let row = try connection.prepare(
            "SELECT count(*) FROM \(quotedTable) WHERE \(notNull) AND EXISTS (SELECT 1 FROM \(quotedTable) AS \(first) "
                + "WHERE \(first).\"_pk\" = (SELECT min(\(earlier).\"_pk\") FROM \(quotedTable) AS \(earlier) WHERE \(same)) "
                + "AND (\(differs)))"
        ).fetchOne()
        return Int(row?[0].integer ?? 0)
    }

    private static func isEmpty(_ table: String, on connection: Connection) throws -> Bool {
        try connection.prepare("SELECT 1 FROM \(SQL.identifier(table)) LIMIT 1").fetchOne() == nil
    }

    private static func hasDeferredTable(on connection: Connection) throws -> Bool {
        try connection.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'ferry_deferred_indexes'")
            .fetchOne() != nil
    }

    private static func encode(_ columns: [String]) -> String {
        String(decoding: (try? JSONEncoder().encode(columns)) ?? Data("[]".utf8), as: UTF8.self)
    }

    private static func decode(_ text: String?) -> [String] {
        text.flatMap { try? JSONDecoder().decode([String].self, from: Data($0.utf8)) } ?? []
    }

    private static func mappingIndexErrors<Result>(table: String, path: String, _ body: () throws -> Result) throws
        -> Result
    {
        do {
            return try body()
        } catch let error as SQLiteError {
            throw StoreError(
                .sqlite, "deferring or building the indexes of \(table) failed", path: path, underlying: error)
        }
    }
}

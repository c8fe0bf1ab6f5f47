import FerrySQLite
import Foundation

/// Reads and purges the history tables (see ``HistoryTables``) on the store's writer connection.
struct HistoryReader {
    let connection: Connection
    let schema: StoreSchema
    let storeIdentifier: String

    /// The transactions after `token` (all kept ones for `nil`), oldest first, with their changes; only `author`'s
    /// when given. With a `limit`, at most that many: the first ones after `token`, or the latest ones when `token`
    /// is `nil`.
    ///
    /// - Throws: ``StoreError`` `.historyTokenExpired` when transactions after `token` were deleted; ``SQLiteError``.
    func transactions(after token: Int64?, author: String?, limit: Int? = nil) throws -> [HistoryTransaction] {
        guard try HistoryTables.exist(on: connection) else { return [] }
        if let token, let purged = try purgedThrough(), token < purged {
            throw StoreError(
                .historyTokenExpired,
                "the history after token \(token) was deleted up to token \(purged); fetch the current state again "
                    + "and continue from currentHistoryToken()",
                path: connection.path)
        }
        let after = SQLiteValue.integer(token ?? 0)
        let authorFilter = author == nil ? "" : " AND t.author = ?"
        let bindings = [after] + (author.map { [SQLiteValue.text($0)] } ?? [])
        let transactionsTable = SQL.identifier(HistoryTables.transactions)

        // Without a token, a limit keeps the latest transactions: read newest first, then turn the list around.
        let newestFirst = token == nil && limit != nil
        let limitClause = limit.map { " LIMIT \(max($0, 0))" } ?? ""
        var transactions: [HistoryTransaction] = []
        for row in try rows(
            "SELECT t.token, t.timestamp, t.author, t.context_name FROM \(transactionsTable) AS t "
                + "WHERE t.token > ?\(authorFilter) ORDER BY t.token\(newestFirst ? " DESC" : "")\(limitClause)",
            bindings)
        {
            guard let number = row[0].integer else { continue }
            transactions.append(
                HistoryTransaction(
                    token: number, timestamp: Date(timeIntervalSince1970: row[1].real ?? 0), author: row[2].text,
                    contextName: row[3].text, changes: []))
        }
        if newestFirst { transactions.reverse() }
        guard let first = transactions.first?.token, let last = transactions.last?.token else { return [] }
        var indexes: [Int64: Int] = [:]
        for (index, transaction) in transactions.enumerated() { indexes[transaction.token] = index }
        // The changes of the transactions listed: their tokens' range, and the author's within it.
        let rangeBindings = [SQLiteValue.integer(first), .integer(last)] + bindings.dropFirst()

        var tombstones: [ChangeKey: [String: AttributeValue]] = [:]
        for row in try rows(
            "SELECT s.token, s.ent, s.pk, s.attribute, s.value FROM \(SQL.identifier(HistoryTables.tombstones)) AS s "
                + "JOIN \(transactionsTable) AS t ON t.token = s.token WHERE s.token BETWEEN ? AND ?\(authorFilter)",
            rangeBindings)
        {
            guard let key = ChangeKey(row), let attribute = row[3].text, let entity = schema.entityNames[key.ent],
                let type = schema.model.allAttributes(of: entity).first(where: { $0.name == attribute })?.type,
                let value = StoredValueCodec.decode(row[4], as: type)
            else { continue }
            tombstones[key, default: [:]][attribute] = value
        }
        var ids = ObjectIDMaker(storeIdentifier: storeIdentifier)
        for row in try rows(
            "SELECT c.token, c.ent, c.pk, c.kind, c.updated FROM \(SQL.identifier(HistoryTables.changes)) AS c "
                + "JOIN \(transactionsTable) AS t ON t.token = c.token WHERE c.token BETWEEN ? AND ?\(authorFilter) "
                + "ORDER BY c.token, c.ent, c.pk", rangeBindings)
        {
            guard let key = ChangeKey(row), let index = indexes[key.token], let entity = schema.entityNames[key.ent],
                let kind = row[3].text.flatMap(HistoryChange.Kind.init(storedName:))
            else { continue }
            let updated = row[4].text.map { Set($0.split(separator: ",").map(String.init)) } ?? []
            transactions[index].changes.append(
                HistoryChange(
                    objectID: ids.id(entityName: entity, primaryKey: key.pk),
                    kind: kind, updatedProperties: kind == .update ? updated : [],
                    tombstone: kind == .delete ? tombstones[key] ?? [:] : [:]))
        }
        return transactions
    }

    /// Deletes the transactions before `token`, with their changes, and remembers the last one deleted.
    ///
    /// - Throws: ``SQLiteError``.
    /// The transactions recorded after `date`, as ``transactions(after:author:limit:)`` from the first of them.
    ///
    /// - Throws: ``SQLiteError``.
    func transactions(recordedAfter date: Date, author: String?, limit: Int?) throws -> [HistoryTransaction] {
        guard try HistoryTables.exist(on: connection) else { return [] }
        let table = SQL.identifier(HistoryTables.transactions)
        guard
            let first = try rows(
                "SELECT min(token) FROM \(table) WHERE timestamp > ?", [.real(date.timeIntervalSince1970)]
            ).first?[0].integer
        else { return [] }
        // The first kept transaction after the date is after any purge, so this never reports an expired token.
        return try transactions(after: first - 1, author: author, limit: limit)
    }

    func deleteTransactions(before token: Int64) throws {
        guard try HistoryTables.exist(on: connection) else { return }
        try connection.transaction(.immediate) {
            let bound = SQLiteValue.integer(token)
            let last = try rows(
                "SELECT max(token) FROM \(SQL.identifier(HistoryTables.transactions)) WHERE token < ?", [bound]
            ).first?[0].integer
            guard let last else { return }
            for table in [HistoryTables.tombstones, HistoryTables.changes, HistoryTables.transactions] {
                try run("DELETE FROM \(SQL.identifier(table)) WHERE token < ?", [bound])
            }
            let purged = max(last, try purgedThrough() ?? 0)
            try run(
                "INSERT OR REPLACE INTO ferry_metadata (key, value) VALUES (?, ?)",
                [.text(HistoryTables.purgedThroughKey), .integer(purged)])
        }
    }

    /// Deletes the transactions recorded before `date`, with their changes (as ``deleteTransactions(before:)``
    /// does up to the first transaction of `date` or later), and returns how many were deleted.
    ///
    /// - Throws: ``SQLiteError``.
    func deleteTransactions(recordedBefore date: Date) throws -> Int {
        guard try HistoryTables.exist(on: connection) else { return 0 }
        let table = SQL.identifier(HistoryTables.transactions)
        let bound = SQLiteValue.real(date.timeIntervalSince1970)
        let count = try rows("SELECT count(*) FROM \(table) WHERE timestamp < ?", [bound]).first?[0].integer ?? 0
        guard count > 0 else { return 0 }
        // Tokens grow with time, so the first transaction kept bounds the ones deleted.
        let firstKept =
            try rows("SELECT min(token) FROM \(table) WHERE timestamp >= ?", [bound]).first?[0].integer
            ?? (try rows("SELECT max(token) + 1 FROM \(table)", []).first?[0].integer ?? 0)
        try deleteTransactions(before: firstKept)
        return Int(count)
    }

    /// The token of the latest transaction recorded (kept or deleted), or `nil` when none was.
    ///
    /// - Throws: ``SQLiteError``.
    func currentToken() throws -> Int64? {
        guard try HistoryTables.exist(on: connection) else { return nil }
        let kept = try rows("SELECT max(token) FROM \(SQL.identifier(HistoryTables.transactions))", []).first?[0]
            .integer
        switch (kept, try purgedThrough()) {
        case (let kept?, let purged?): return max(kept, purged)
        case (let kept, let purged): return kept ?? purged
        }
    }

    /// The last token ``deleteTransactions(before:)`` removed, or `nil`.
    private func purgedThrough() throws -> Int64? {
        try rows("SELECT value FROM ferry_metadata WHERE key = ?", [.text(HistoryTables.purgedThroughKey)]).first?[0]
            .integer
    }

    private func rows(_ sql: String, _ bindings: [SQLiteValue]) throws -> [Row] {
        let statement = try connection.cachedStatement(sql)
        try statement.bind(bindings)
        return try statement.fetchAll()
    }

    private func run(_ sql: String, _ bindings: [SQLiteValue]) throws {
        let statement = try connection.cachedStatement(sql)
        try statement.bind(bindings)
        try statement.run()
    }
}

/// A change's key, read from the first three columns (`token`, `ent`, `pk`) of a history row.
private struct ChangeKey: Hashable {
    let token: Int64
    let ent: Int
    let pk: Int64

    init?(_ row: Row) {
        guard let token = row[0].integer, let ent = row[1].integer, let pk = row[2].integer else { return nil }
        self.token = token
        self.ent = Int(ent)
        self.pk = pk
    }
}

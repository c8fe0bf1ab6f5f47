import FerrySQLite
public import Foundation

extension StoreError.Code {
    /// History after the token asked for was deleted by `deleteHistory(before:)`, so the changes
    /// since cannot all be given (`NSPersistentHistoryTokenExpiredError`); fetch the current state again.
    public static let historyTokenExpired = Self(rawValue: "historyTokenExpired", coreDataCode: 134301)
}

/// Persistent history, as in Core Data: with ``PersistentStoreDescription/recordsHistory`` on, every context save
/// and every batch request records one ``HistoryTransaction`` in the same SQLite transaction as its changes, so
/// another context, task or process can catch up on what changed since the token it last saw.
///
/// ```swift
/// var lastToken = try await store.currentHistoryToken()
/// for await _ in store.historyNotifications {
///     let transactions = try await store.fetchHistory(after: lastToken)
///     for transaction in transactions where transaction.author != "app" {
///         let saved = transaction.objectIDNotification()
///         try await viewContext.perform { viewContext.mergeChanges(fromContextDidSave: saved) }
///     }
///     lastToken = transactions.last?.token ?? lastToken
/// }
/// ```
extension PersistentStore {
    /// The transactions recorded after `token` (every kept one for `nil`), oldest first, each with its changes;
    /// only those whose author is `author` when given.
    ///
    /// A `limit` bounds how many are read: the first `limit` after `token`, so a consumer pages forward by passing
    /// the last token it got; without a token, the latest `limit`. A store that never recorded history has none.
    /// Purge what every consumer has seen with `deleteHistory(before:)`.
    ///
    /// ```swift
    /// let batches = try await store.fetchHistory(after: lastToken, author: "nightly-import", limit: 100)
    /// ```
    ///
    /// - Throws: ``StoreError`` `.historyTokenExpired` when transactions after `token` were deleted (then fetch the
    ///   current state again and continue from ``currentHistoryToken()``), `.sqlite`.
    public func fetchHistory(after token: Int64?, author: String? = nil, limit: Int? = nil) async throws
        -> [HistoryTransaction]
    {
        try await historyAccess("fetching history") { reader in
            try reader.transactions(after: token, author: author, limit: limit)
        }
    }

    /// The transactions recorded after `date`, oldest first, each with its changes (Core Data's
    /// `fetchHistory(after:)` with a date); only `author`'s when given, at most `limit` (the first ones after the
    /// date). Deleted history is simply not there: a date never makes the fetch fail as an old token does.
    ///
    /// ```swift
    /// let today = try await store.fetchHistory(recordedAfter: Calendar.current.startOfDay(for: Date()))
    /// ```
    ///
    /// - Throws: ``StoreError`` `.sqlite`.
    public func fetchHistory(recordedAfter date: Date, author: String? = nil, limit: Int? = nil) async throws
        -> [HistoryTransaction]
    {
        try await historyAccess("fetching history") { reader in
            try reader.transactions(recordedAfter: date, author: author, limit: limit)
        }
    }

    /// The transactions recorded after `transaction` (Core Data's `fetchHistory(after:)` with a transaction), as
    /// `fetchHistory(after:author:limit:)` with its token.
    ///
    /// - Throws: as `fetchHistory(after:author:limit:)`.
    public func fetchHistory(after transaction: HistoryTransaction, author: String? = nil, limit: Int? = nil)
        async throws -> [HistoryTransaction]
    {
        try await fetchHistory(after: transaction.token, author: author, limit: limit)
    }

    /// Deletes the transactions before `transaction` (not `transaction` itself), with their changes (Core Data's
    /// `deleteHistory(before:)` with a transaction), as `deleteHistory(before:)` with its token.
    ///
    /// - Throws: ``StoreError`` `.sqlite`.
    public func deleteHistory(before transaction: HistoryTransaction) async throws {
        try await deleteHistory(before: transaction.token)
    }

    /// Deletes the transactions before `token` (not `token`'s own), with their changes
    /// (Core Data's `deleteHistory(before:)`). Later fetches after a deleted token fail with
    /// ``StoreError/Code/historyTokenExpired``.
    ///
    /// ```swift
    /// try await store.deleteHistory(before: tokenEveryConsumerHasSeen)
    /// ```
    ///
    /// - Throws: ``StoreError`` `.sqlite`.
    public func deleteHistory(before token: Int64) async throws {
        try await historyAccess("deleting history") { reader in try reader.deleteTransactions(before: token) }
    }

    /// Deletes the transactions recorded before `date`, with their changes (Core Data's
    /// `deleteHistory(before:)` with a date), and returns how many it deleted. Later fetches after a deleted token
    /// fail with ``StoreError/Code/historyTokenExpired``, as after `deleteHistory(before:)`.
    ///
    /// ```swift
    /// let deleted = try await store.deleteHistory(recordedBefore: Date().addingTimeInterval(-30 * 86_400))
    /// ```
    ///
    /// - Throws: ``StoreError`` `.sqlite`.
    @discardableResult
    public func deleteHistory(recordedBefore date: Date) async throws -> Int {
        try await historyAccess("deleting history") { reader in try reader.deleteTransactions(recordedBefore: date) }
    }

    /// The token of the latest transaction recorded (Core Data's `currentPersistentHistoryToken`), or `nil` when
    /// the store has recorded none. Works across processes: another process polling this value (or
    /// ``dataVersion()``) sees each commit.
    ///
    /// ```swift
    /// let token = try await store.currentHistoryToken()
    /// let changes = try await store.fetchHistory(after: token)  // empty until the next write
    /// ```
    ///
    /// - Throws: ``StoreError`` `.sqlite`.
    public func currentHistoryToken() async throws -> Int64? {
        try await historyAccess("reading the history token") { reader in try reader.currentToken() }
    }

    /// A notification after each history transaction this store's contexts and batch requests commit, from the
    /// moment the stream is made; the stream ends when the caller stops iterating. Writes that change nothing record
    /// no transaction and post nothing. Writes by other processes (or other ``PersistentStore`` instances on the same
    /// file) are not announced here: poll ``currentHistoryToken()`` or ``dataVersion()`` for those.
    ///
    /// ```swift
    /// for await committed in store.historyNotifications where committed.author != "app" {
    ///     try await catchUp(after: lastToken)
    /// }
    /// ```
    public var historyNotifications: AsyncStream<HistoryNotification> { historyNotifier.stream() }

    /// SQLite's `PRAGMA data_version` on this store's connection: a number that changes when *another* connection
    /// — another process, or another ``PersistentStore`` opened on the same file — commits to the database, and
    /// stays the same across this store's own saves and batch requests. Compare two readings: equal means nobody
    /// else wrote in between. The number means nothing on its own and is not comparable between stores. Works
    /// whether or not history is recorded; an in-memory store never changes it.
    ///
    /// ```swift
    /// let seen = try await store.dataVersion()
    /// // … later, maybe on a timer:
    /// if try await store.dataVersion() != seen { try await reloadFromStore() }
    /// ```
    ///
    /// - Throws: ``StoreError`` `.sqlite`.
    public func dataVersion() async throws -> Int64 {
        try await historyAccess("reading the data version") { reader in
            try reader.connection.prepare("PRAGMA data_version").fetchOne()?[0].integer ?? 0
        }
    }

    /// Runs `body` with a history reader on the writer, turning SQLite errors into ``StoreError`` `.sqlite`.
    private func historyAccess<Value: Sendable>(
        _ doing: String, _ body: @escaping @Sendable (HistoryReader) throws -> Value
    ) async throws -> Value {
        let schema = self.schema
        let identifier = self.identifier
        do {
            return try await writer.run { connection in
                try body(HistoryReader(connection: connection, schema: schema, storeIdentifier: identifier))
            }
        } catch let error as SQLiteError {
            throw StoreError(.sqlite, "\(doing) failed", path: writer.path, underlying: error)
        }
    }
}

public import Foundation

/// One recorded write to a store: a context's save or a batch request (Core Data's
/// `NSPersistentHistoryTransaction`), with the changes it made.
///
/// ```swift
/// let transactions = try await store.fetchHistory(after: lastToken)
/// for transaction in transactions where transaction.author != "app" {
///     try await viewContext.perform { viewContext.mergeChanges(fromContextDidSave: transaction.objectIDNotification()) }
/// }
/// lastToken = transactions.last?.token ?? lastToken
/// ```
public struct HistoryTransaction: Sendable, Hashable {
    /// The transaction's number: larger for every later transaction, never reused (Core Data's opaque
    /// `NSPersistentHistoryToken` and `transactionNumber` in one). Keep it to fetch what came after.
    public var token: Int64
    /// When the transaction was written.
    public var timestamp: Date
    /// The saving context's ``ManagedObjectContext/transactionAuthor``, or the batch request's `transactionAuthor`.
    public var author: String?
    /// The saving context's ``ManagedObjectContext/name``; `nil` for a batch request.
    public var contextName: String?
    /// The objects the transaction changed, by entity number and primary key.
    public var changes: [HistoryChange]

    /// Creates a transaction.
    public init(
        token: Int64, timestamp: Date, author: String?, contextName: String?, changes: [HistoryChange]
    ) {
        self.token = token
        self.timestamp = timestamp
        self.author = author
        self.contextName = contextName
        self.changes = changes
    }

    /// The transaction as a did-save notification of object IDs, ready for
    /// ``ManagedObjectContext/mergeChanges(fromContextDidSave:)`` (Core Data's `objectIDNotification()`).
    public func objectIDNotification() -> ContextDidSave {
        ContextDidSave(
            insertedObjectIDs: changes.filter { $0.kind == .insert }.map(\.objectID),
            updatedObjectIDs: changes.filter { $0.kind == .update }.map(\.objectID),
            deletedObjectIDs: changes.filter { $0.kind == .delete }.map(\.objectID), contextName: contextName,
            transactionAuthor: author, historyToken: token)
    }
}

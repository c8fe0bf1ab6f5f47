import Synchronization

/// Announces a history transaction that was just committed to the store, in this process: a context's save or a
/// batch request (the in-process part of Core Data's `NSPersistentStoreRemoteChange`).
///
/// ```swift
/// for await committed in store.historyNotifications where committed.author != "app" {
///     let transactions = try await store.fetchHistory(after: lastToken)
///     …
/// }
/// ```
public struct HistoryNotification: Sendable, Hashable {
    /// The committed transaction's token.
    public var token: Int64
    /// Its author.
    public var author: String?
    /// The saving context's name; `nil` for a batch request.
    public var contextName: String?
}

/// Hands each history notification to every current listener (as ``SaveNotifier`` does for did-save
/// notifications).
final class HistoryNotifier: Sendable {
    private let listeners = Mutex<[Int: AsyncStream<HistoryNotification>.Continuation]>([:])
    private let nextID = Atomic<Int>(0)

    /// A new stream of the notifications posted from now on; it ends when the caller stops iterating.
    func stream() -> AsyncStream<HistoryNotification> {
        let id = nextID.add(1, ordering: .relaxed).newValue
        let (stream, continuation) = AsyncStream<HistoryNotification>.makeStream()
        continuation.onTermination = { [weak self] _ in
            _ = self?.listeners.withLock { $0.removeValue(forKey: id) }
        }
        listeners.withLock { $0[id] = continuation }
        return stream
    }

    /// Posts the notification of transaction `token`, when there is one (a write that changed nothing records
    /// none).
    func post(token: Int64?, author: String?, contextName: String?) {
        guard let token else { return }
        let notification = HistoryNotification(token: token, author: author, contextName: contextName)
        for continuation in listeners.withLock({ Array($0.values) }) { continuation.yield(notification) }
    }
}

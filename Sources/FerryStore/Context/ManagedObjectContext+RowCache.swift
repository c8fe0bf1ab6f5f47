import Dispatch
public import Foundation
import Synchronization

extension ManagedObjectContext {
    /// How old, in seconds, a row read by an earlier fetch may be and still fill a fault (Core Data's
    /// `stalenessInterval`). Negative (the default, as in Core Data) means any age: a fault fetched as a fault fires
    /// from the row its fetch read. `0` means never: every fault reads its row from the store when it fires, so it
    /// sees what other contexts saved since the fetch. A positive interval re-reads rows older than that.
    ///
    /// It applies to firing faults only: fetches always read the store, and loaded objects keep their values until
    /// refreshed. A row cached while the interval was negative has no age, so it counts as stale once the interval
    /// is set to zero or more.
    public var stalenessInterval: TimeInterval {
        get { Double(bitPattern: stalenessBits.load(ordering: .relaxed)) }
        set { stalenessBits.store(newValue.bitPattern, ordering: .relaxed) }
    }

    /// The time to record for rows cached now, or `nil` while the staleness interval is negative (no times kept).
    func rowCacheTimestamp() -> UInt64? {
        stalenessInterval < 0 ? nil : DispatchTime.now().uptimeNanoseconds
    }

    /// Keeps `row` behind its fault, read at `readAt` (from ``rowCacheTimestamp()``).
    func cache(_ row: StoredRow, readAt: UInt64?) {
        rowCache[row.objectID] = row
        if let readAt {
            rowCacheTimes[row.objectID] = readAt
        } else if !rowCacheTimes.isEmpty {
            rowCacheTimes[row.objectID] = nil
        }
    }

    /// Forgets the cached row of `id`, if any.
    func dropCachedRow(_ id: ObjectID) {
        rowCache[id] = nil
        if !rowCacheTimes.isEmpty { rowCacheTimes[id] = nil }
    }

    /// Whether the cached row of `id`, just taken from the cache, may fill its fault under ``stalenessInterval``;
    /// forgets its time either way.
    func isFresh(cachedRowOf id: ObjectID) -> Bool {
        let readAt = rowCacheTimes.isEmpty ? nil : rowCacheTimes.removeValue(forKey: id)
        let interval = stalenessInterval
        guard interval >= 0 else { return true }
        guard let readAt else { return false }
        let age = Double(DispatchTime.now().uptimeNanoseconds &- readAt) / 1_000_000_000
        return age < interval
    }
}

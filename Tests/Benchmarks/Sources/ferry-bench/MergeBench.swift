// Merging a batch update into a live context (issue 4): the merge must cost in proportion to the objects the
// context holds, not to the rows the batch changed.
import FerryStore
import Foundation

/// A store of `rows` products (made with batch inserts of positional rows when the file holds fewer), a context
/// holding `registered` loaded products spread over the table, a batch update of every row, then
/// `ManagedObjectContext.mergeChanges(fromRemoteContextSave:into:)` timed on its own, `repeats` times.
func mergeBatchUpdate(store path: String, rows: Int, registered: Int, repeats: Int) async throws {
    let container = try await productContainer(path, cacheKiB: 65_536, synchronous: .normal)
    let store = container.persistentStore
    try await fillProducts(store, upTo: rows)

    let context = container.newBackgroundContext()
    let step = max(rows / max(registered, 1), 1)
    let identifier = store.identifier
    // Registered objects are held weakly by their context: keep them here.
    let objects = context.performAndWait {
        stride(from: 1, through: rows, by: step).prefix(registered).map { key in
            let product = context.object(
                with: ObjectID(entityName: "Product", primaryKey: Int64(key), storeIdentifier: identifier))
            _ = product.value(forKey: "quantity")
            return product
        }
    }
    let before = context.performAndWait { objects.map { $0.value(forKey: "quantity") } }

    var started = Date()
    let result = try await store.execute(
        BatchUpdateRequest(entityName: "Product", propertiesToUpdate: ["quantity": .keyPath("quantity") + 1]))
    let updateSeconds = Date().timeIntervalSince(started)
    let changes = result.changes
    print(
        String(
            format: "batch update: %d rows in %.3f s; payload %d IDs in %d runs", result.updatedCount, updateSeconds,
            changes.updatedObjectIDs.count, changes.updatedObjectIDs.runCount))

    var timings: [Double] = []
    for _ in 0..<max(repeats, 1) {
        started = Date()
        ManagedObjectContext.mergeChanges(fromRemoteContextSave: changes, into: [context])
        timings.append(Date().timeIntervalSince(started) * 1_000)
    }
    let after = context.performAndWait { objects.map { $0.value(forKey: "quantity") } }
    let refreshed = zip(before, after).filter { old, new in
        guard case .integer(let old)? = old, case .integer(let new)? = new else { return false }
        return new == old + 1
    }.count
    let sorted = timings.sorted()
    print(
        String(
            format: "merge-batch-update: %d registered objects (%d refreshed), %d rows updated: first %.2f ms, "
                + "median %.2f ms, best %.2f ms", objects.count, refreshed, result.updatedCount, timings[0],
            sorted[sorted.count / 2], sorted[0]))

    // For comparison, Core Data's way: the request returns every ID, and the merge payload is built from them.
    started = Date()
    let withIDs = try await store.execute(
        BatchUpdateRequest(
            entityName: "Product", propertiesToUpdate: ["quantity": .keyPath("quantity") + 1],
            resultType: .updatedObjectIDs))
    let idsSeconds = Date().timeIntervalSince(started)
    started = Date()
    let fromIDs = RemoteChanges(updated: withIDs.objectIDs ?? [])
    let payloadMilliseconds = Date().timeIntervalSince(started) * 1_000
    started = Date()
    ManagedObjectContext.mergeChanges(fromRemoteContextSave: fromIDs, into: [context])
    print(
        String(
            format: "with .updatedObjectIDs: batch update %.3f s; payload from %d IDs %.1f ms; merge %.2f ms",
            idsSeconds, fromIDs.updatedObjectIDs.count, payloadMilliseconds, Date().timeIntervalSince(started) * 1_000))
    withExtendedLifetime(objects) {}
}

/// Adds products with batch inserts of 100,000 positional rows until the store holds `rows`.
private func fillProducts(_ store: PersistentStore, upTo rows: Int) async throws {
    guard case .count(var count) = try await store.fetch(FetchRequest(entityName: "Product", resultType: .count))
    else { return }
    let started = Date()
    let initial = count
    while count < rows {
        let chunk = (count..<min(count + 100_000, rows)).map { index -> [AttributeValue?] in
            [.string("SKU-\(index)"), .string("Product \(index)"), .double(Double(index % 1_000) / 10), .integer(0)]
        }
        _ = try await store.execute(
            BatchInsertRequest(entityName: "Product", columns: ["sku", "name", "price", "quantity"], rows: chunk),
            mergePolicy: .error)
        count += chunk.count
    }
    if count > initial {
        print(String(format: "batch insert: %d products in %.3f s", count - initial, Date().timeIntervalSince(started)))
    }
}

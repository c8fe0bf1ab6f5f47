// The store's benchmarks (issue 3): inserting products through background contexts, and walking a large fetch
// with fetchBatchSize. Both use the standard products data of ../shared/bench.
import FerryIO
import FerryStore
import Foundation

/// The products table of the C reference (`limit import-csv --mode unique`) as a model: `sku` unique, the other
/// columns typed as the reference binds them.
let productModel = ManagedObjectModel(entities: [
    EntityDescription(
        name: "Product",
        attributes: [
            AttributeDescription(name: "sku", type: .string, isOptional: false),
            AttributeDescription(name: "name", type: .string),
            AttributeDescription(name: "category", type: .string),
            AttributeDescription(name: "price", type: .double),
            AttributeDescription(name: "quantity", type: .integer64),
            AttributeDescription(name: "weight", type: .double),
            AttributeDescription(name: "active", type: .boolean),
            AttributeDescription(name: "created_at", type: .string),
            AttributeDescription(name: "description", type: .string),
            AttributeDescription(name: "tags", type: .string),
        ],
        uniquenessConstraints: [["sku"]])
])

/// How each CSV column becomes an attribute value (the reference's conversions: empty numbers are NULL).
enum ColumnKind { case text, real, integer, boolean }
let productColumns: [(name: String, kind: ColumnKind)] = [
    ("sku", .text), ("name", .text), ("category", .text), ("price", .real), ("quantity", .integer),
    ("weight", .real), ("active", .boolean), ("created_at", .text), ("description", .text), ("tags", .text),
]

/// `field` as a value of `kind`, numbers parsed straight from the bytes.
func attributeValue(_ field: Field, _ kind: ColumnKind) -> AttributeValue? {
    if field.isNull { return nil }
    switch kind {
    case .text:
        return .string(field.string)
    case .boolean:
        return field.byteCount == 0 ? nil : .boolean(field.equals("true"))
    case .real, .integer:
        guard field.byteCount > 0, field.byteCount < 63 else { return nil }
        return field.withUnsafeBytes { bytes in
            withUnsafeTemporaryAllocation(of: CChar.self, capacity: 64) { buffer in
                for (index, byte) in bytes.enumerated() { buffer[index] = CChar(bitPattern: byte) }
                buffer[bytes.count] = 0
                guard let base = buffer.baseAddress else { return nil }
                return kind == .real ? .double(strtod(base, nil)) : .integer(Int64(strtoll(base, nil, 10)))
            }
        }
    }
}

/// Appends `field` to the open row of `rows` as a cell of `kind`, as ``attributeValue(_:_:)`` converts it, without
/// making a value: text is copied from the field's bytes.
func appendCell(_ field: Field, _ kind: ColumnKind, to rows: inout PackedRows) {
    if field.isNull { return rows.appendNull() }
    switch kind {
    case .text:
        field.withUnsafeBytes { rows.appendText($0) }
    case .boolean:
        field.byteCount == 0 ? rows.appendNull() : rows.appendInteger(field.equals("true") ? 1 : 0)
    case .real, .integer:
        switch attributeValue(field, kind) {
        case .double(let value)?: rows.appendReal(value)
        case .integer(let value)?: rows.appendInteger(value)
        default: rows.appendNull()
        }
    }
}

/// A container on `path` with the page cache the C reference uses (64 MiB), `synchronous=OFF` like it, and the
/// checkpoint interval of `ferry`'s bulk runs.
func productContainer(_ path: String, cacheKiB: Int?, synchronous: PersistentStoreDescription.Synchronous) async throws
    -> PersistentContainer
{
    var description = PersistentStoreDescription(path: path)
    description.cacheSizeKiB = cacheKiB
    description.synchronous = synchronous
    // As `ferry` opens a store for bulk runs: a checkpoint every 64 MiB of log rather than SQLite's 4 MiB, so a page
    // that many commits rewrite is copied into the database once per checkpoint rather than after each commit.
    description.walAutoCheckpointPages = 16_384
    let container = PersistentContainer(name: "bench", model: productModel, storeDescription: description)
    try await container.loadPersistentStores()
    return container
}

/// Inserts every record of `csv` as a managed object through `contextCount` background contexts taking chunks in
/// turn, saving and resetting every `chunk` objects, under the store-trump policy. The records of the next chunk are
/// read while the contexts work; with two contexts, one builds its chunk's objects while the other saves (saves take
/// the writer connection one at a time), so both cores work, as an importer uses Core Data.
func contextInsert(csv: String, store: String, chunk: Int, contextCount: Int) async throws {
    let container = try await productContainer(store, cacheKiB: 65_536, synchronous: .off)
    let contexts = (0..<max(contextCount, 1)).map { _ in
        let context = container.newBackgroundContext()
        context.mergePolicy = .mergeByPropertyStoreTrump
        return context
    }
    let started = Date()
    let reader = try RecordFormat.csv.openReader(path: csv)
    var working: [Task<Void, any Error>?] = Array(repeating: nil, count: contexts.count)
    var records = 0
    var chunks = 0
    while true {
        var rows: [[AttributeValue?]] = []
        rows.reserveCapacity(chunk)
        while rows.count < chunk, let record = try reader.next() {
            rows.append(
                productColumns.indices.map {
                    $0 < record.count ? attributeValue(record[$0], productColumns[$0].kind) : nil
                })
        }
        if rows.isEmpty { break }
        records += rows.count
        let slot = chunks % contexts.count
        chunks += 1
        try await working[slot]?.value
        let context = contexts[slot]
        let values = rows
        working[slot] = Task {
            try await context.perform {
                for row in values {
                    let product = context.insertObject(entityName: "Product")
                    for (index, value) in row.enumerated() {
                        product.setValue(value, forKey: productColumns[index].name)
                    }
                }
                try context.save()
                context.reset()
            }
        }
    }
    for task in working { try await task?.value }
    report(
        "context insert (\(contexts.count) context\(contexts.count == 1 ? "" : "s"))", records: records,
        seconds: Date().timeIntervalSince(started), bytes: fileSize(csv))
}

/// Walks the first `limit` products (0: all) with `fetchBatchSize = batch`, in store order or sorted by `sort`,
/// reading two attributes of each, and prints the peak RSS.
func walk(store: String, limit: Int, batch: Int, sort: String?) async throws {
    let container = try await productContainer(store, cacheKiB: nil, synchronous: .normal)
    let context = container.newBackgroundContext()
    let started = Date()
    let (records, checksum) = try context.performAndWait {
        var request = FetchRequest(
            entityName: "Product", sortDescriptors: sort.map { [FetchSortDescriptor(key: $0)] } ?? [])
        request.fetchLimit = limit
        request.fetchBatchSize = batch
        var checksum = 0
        let results = try context.fetch(request)
        for product in results {
            if case .string(let sku)? = product.value(forKey: "sku") { checksum &+= sku.utf8.count }
            if case .integer(let quantity)? = product.value(forKey: "quantity") { checksum &+= Int(quantity) }
        }
        return (results.count, checksum)
    }
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    print(
        String(
            format: "walk: %d objects in %.3f s (checksum %d), peak RSS %.1f MiB", records,
            Date().timeIntervalSince(started), checksum, Double(usage.ru_maxrss) / 1024))
}

func fileSize(_ path: String) -> Int {
    (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
}

/// Inserts every record of `csv` with direct-to-store batch inserts of `chunk` positional rows each (the C
/// reference commits every 50,000 rows too): under `.error` for a plain import, like `--mode unique`, or under
/// `.mergeByPropertyObjectTrump` (`upsert`), like `--mode upsert`. With `defersIndexes`, an empty table is loaded
/// as `ferry import` loads one: its indexes deferred, the inserts under store-trump, the indexes built at the end.
/// With `packed`, the rows are ``PackedRows`` filled straight from the fields' bytes and sorted by key (the
/// importer's hot path); otherwise arrays of attribute values, one per row, in file order.
func batchInsert(
    csv: String, store path: String, chunk: Int, upsert: Bool, defersIndexes: Bool = false, packed: Bool = false
) async throws {
    let container = try await productContainer(path, cacheKiB: 65_536, synchronous: .off)
    let store = container.persistentStore
    let started = Date()
    let deferred = defersIndexes ? try await store.deferIndexes(ofEntity: "Product", owner: "ferry-bench") : false
    let policy: MergePolicy = upsert ? .mergeByPropertyObjectTrump : deferred ? .mergeByPropertyStoreTrump : .error
    let reader = try RecordFormat.csv.openReader(path: csv)
    let columns = productColumns.map(\.name)
    var rows: [[AttributeValue?]] = []
    var packedRows = PackedRows(columns: columns)
    var records = 0
    // The next chunk is read while the store writes this one, as the importer does.
    var writing: Task<Void, any Error>?
    func flush() async throws {
        guard !rows.isEmpty || !packedRows.isEmpty else { return }
        // Packed rows go sorted by key, as the importer's reader sorts each chunk while the store writes the last.
        if packed { packedRows.reorder(packedRows.orderByKey([0])) }
        try await writing?.value
        let request =
            packed
            ? BatchInsertRequest(entityName: "Product", packedRows: packedRows)
            : BatchInsertRequest(entityName: "Product", columns: columns, rows: rows)
        writing = Task { _ = try await store.execute(request, mergePolicy: policy) }
        rows = []
        packedRows = PackedRows(columns: columns)
    }
    while let record = try reader.next() {
        if packed {
            for index in productColumns.indices {
                if index < record.count {
                    appendCell(record[index], productColumns[index].kind, to: &packedRows)
                } else {
                    packedRows.appendNull()
                }
            }
            packedRows.endRow()
        } else {
            rows.append(
                productColumns.indices.map { index in
                    index < record.count ? attributeValue(record[index], productColumns[index].kind) : nil
                })
        }
        records += 1
        if rows.count == chunk || packedRows.count == chunk { try await flush() }
    }
    try await flush()
    try await writing?.value
    if deferred { try await store.buildDeferredIndexes(ofTable: "Product") }
    report(
        (upsert ? "batch upsert" : deferred ? "batch insert, indexes deferred" : "batch insert")
            + (packed ? " (packed rows)" : ""), records: records,
        seconds: Date().timeIntervalSince(started),
        bytes: fileSize(csv))
}

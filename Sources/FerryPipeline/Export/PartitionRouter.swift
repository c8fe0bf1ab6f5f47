import FerryStore

/// Finds the partition each row of a partitioned export is set aside in: by the row's partition values as stored,
/// and, for values not met before, by the folder path they make (``PartitionKeyWriter``), since different stored
/// values can make the same folder (an empty string and null; a date stored as an integer and as a real).
///
/// Rows come in any order, so the lookup runs for every row: the stored values are cheaper to gather and to hash
/// than the escaped folder path.
final class PartitionRouter {
    private let keys: PartitionKeyWriter
    private let buckets: PartitionBuckets
    /// The partition of each set of stored values met so far: a few per partition at most.
    private var known: [HashedBytes: Int] = [:]
    private var values: [UInt8] = []
    private var key: [UInt8] = []

    init(keys: PartitionKeyWriter, buckets: PartitionBuckets) {
        self.keys = keys
        self.buckets = buckets
    }

    /// The index of `row`'s partition among the buckets' (see ``PartitionBuckets/partition(ofKey:)``).
    ///
    /// - Throws: what ``PartitionKeyWriter/write(_:into:)`` and ``PartitionBuckets/partition(ofKey:)`` throw, for
    ///   values not met before.
    func partition<Row: ExportRow>(of row: Row) throws -> Int {
        values.removeAll(keepingCapacity: true)
        keys.writeStoredValues(row, into: &values)
        if let partition = known[HashedBytes(values)] { return partition }
        key.removeAll(keepingCapacity: true)
        try keys.write(row, into: &key)
        let partition = try buckets.partition(ofKey: key)
        known[HashedBytes(values)] = partition
        return partition
    }
}

/// Bytes that hash as one buffer, where an array of bytes hashes byte by byte.
struct HashedBytes: Hashable {
    let bytes: [UInt8]

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    func hash(into hasher: inout Hasher) {
        bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
    }
}

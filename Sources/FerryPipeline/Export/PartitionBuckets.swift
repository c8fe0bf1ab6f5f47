import FerryIO

/// A partitioned export's rows set aside by partition, in the order they were read, so that the rows need no sort:
/// each partition's file is then written from its own rows, one file at a time.
///
/// Rows are kept as ``RowBatch`` lays them out. Each partition gathers its rows in memory and appends them to one
/// unlinked scratch file beside the dataset in chunks of up to ``chunkBytes`` (a row larger than that is a chunk of
/// its own); when the rows held in memory reach ``memoryLimit`` in all, every partition's go. Memory stays within
/// that limit plus the partitions' keys and chunk lists, so a dataset with more than ``partitionLimit`` partitions
/// is refused with ``TooManyPartitions`` (the export then sorts instead).
final class PartitionBuckets {
    /// Thrown by ``partition(ofKey:)`` for one partition more than ``partitionLimit``.
    struct TooManyPartitions: Error {}

    /// The most partitions set aside.
    let partitionLimit: Int
    /// The most bytes of rows a partition holds in memory before they go to the file.
    let chunkBytes: Int
    /// The most bytes of rows all partitions hold in memory before they all go to the file.
    let memoryLimit: Int

    private let file: ScratchFile
    private var indices: [[UInt8]: Int] = [:]
    private var keys: [[UInt8]] = []
    private var held: [[UInt8]] = []
    private var heldBytes = 0
    /// Each partition's chunks in the file, in order.
    private var chunks: [[(offset: Int, count: Int)]] = []

    /// Buckets whose scratch file is beside `neighbour`, its errors naming `outputPath`.
    ///
    /// - Throws: ``FerryIOError`` `.io` when the scratch file cannot be created.
    init(
        beside neighbour: String, reportedAs outputPath: String, partitionLimit: Int = 10_000,
        chunkBytes: Int = 64 * 1024, memoryLimit: Int = 16 * 1024 * 1024
    ) throws {
        file = try ScratchFile(beside: neighbour, reportedAs: outputPath)
        self.partitionLimit = partitionLimit
        self.chunkBytes = chunkBytes
        self.memoryLimit = memoryLimit
    }

    /// The partitions' keys (`name=value/` folder paths), in the order their first row came.
    var partitionKeys: [[UInt8]] { keys }

    /// The index of the partition of `key` (in ``partitionKeys``), a new one for a key not seen before.
    ///
    /// - Throws: ``TooManyPartitions`` for a new key past ``partitionLimit``.
    func partition(ofKey key: [UInt8]) throws -> Int {
        if let known = indices[key] { return known }
        guard keys.count < partitionLimit else { throw TooManyPartitions() }
        let partition = keys.count
        indices[key] = partition
        keys.append(key)
        held.append([])
        chunks.append([])
        return partition
    }

    /// Sets `row` aside in partition `partition` (see ``partition(ofKey:)``).
    ///
    /// - Throws: ``FerryIOError`` `.io` when writing the scratch file fails.
    func add(_ row: RowBatch.Row, toPartition partition: Int) throws {
        let bytes = row.bytes
        held[partition].append(contentsOf: bytes)
        heldBytes += bytes.count
        if held[partition].count >= chunkBytes {
            try setAside(partition)
        } else if heldBytes >= memoryLimit {
            for partition in held.indices where !held[partition].isEmpty { try setAside(partition) }
        }
    }

    /// Calls `body` with the rows of partition `index` (in ``partitionKeys``' order), in the order they were added,
    /// a batch at a time in `batch`.
    ///
    /// - Throws: what `body` throws; ``FerryIOError`` `.io` when reading the scratch file fails.
    func forEachBatch(ofPartition index: Int, in batch: RowBatch, _ body: (RowBatch) throws -> Void) throws {
        for chunk in chunks[index] {
            try batch.replaceRows(byteCount: chunk.count) { try file.read(at: chunk.offset, into: $0) }
            try body(batch)
        }
        guard !held[index].isEmpty else { return }
        held[index].withUnsafeBytes { rows in
            batch.replaceRows(byteCount: rows.count) { $0.copyMemory(from: rows) }
        }
        try body(batch)
    }

    /// Appends partition `index`'s rows in memory to the file, as one chunk.
    private func setAside(_ index: Int) throws {
        let offset = file.count
        try held[index].withUnsafeBytes { try file.append($0) }
        chunks[index].append((offset, held[index].count))
        heldBytes -= held[index].count
        held[index] = []
    }
}

import FerryIO
import FerryStore
import Foundation

/// Reads a step's inputs on a thread of its own and packs their records into chunks, so parsing the next chunk
/// overlaps with committing the current one. A chunk never spans two inputs, so a checkpoint names one input.
final class ChunkProducer: @unchecked Sendable {
    // @unchecked: the producer's state is used by its own thread only, after `start()`; the plan and channel are
    // Sendable.
    private let plan: ImportPlan
    private let channel: ChunkChannel
    private let resumeAt: Checkpoint?
    /// Whether chunks list the keys they saw (full sync). Stored: asking the spec copied its full-sync settings, and
    /// released them, twice for every record.
    private let tracksKeys: Bool
    /// Whether each chunk's rows are handed over in key order (see
    /// ``init(plan:channel:resumeAt:recordsPerChunk:ordersRowsByKey:)``).
    private let ordersRowsByKey: Bool
    /// The records each chunk holds.
    private let recordsPerChunk: Int
    /// Text and blob bytes of the last chunk, to size the next (64 a record before the first): memory follows the
    /// data, so a chunk's buffers are never the chunk size times its largest record (a chunk of one large record
    /// followed by more was reserved as if each were that large).
    private var lastChunkBytes: Int?
    /// Bytes of the last chunk's records as read, to size the next.
    private var lastRawBytes: Int?
    /// The header (CSV) of the input being read, for its chunks.
    private var columnNames: [String]?
    /// The header of the first CSV input, for the rejects file.
    private(set) var firstColumnNames: [String]?
    /// The fields of JSON records that no column reads (read once the producer has finished).
    private(set) var unreadFields: UnreadFieldNames
    /// The columns of CSV headers that no column reads, every input's (standard input's too, whose header is known
    /// only once read), in the order found (read once the producer has finished).
    private(set) var unreadHeaderColumns: [String] = []

    /// A producer of `plan`'s inputs, from `resumeAt` (records of that input already committed are skipped), in
    /// chunks of `recordsPerChunk` records (the spec's ``ImportSpec/recordsPerChunk`` by default).
    ///
    /// With `ordersRowsByKey`, each chunk's rows are sorted by the step's key before the hand-over: a batch insert (or
    /// a context's save) then walks the uniqueness index once per chunk instead of jumping between its pages, and the
    /// sort runs here, beside the commit of the previous chunk, rather than before the next one.
    init(
        plan: ImportPlan, channel: ChunkChannel, resumeAt: Checkpoint?, recordsPerChunk: Int? = nil,
        ordersRowsByKey: Bool = false
    ) {
        self.plan = plan
        self.recordsPerChunk = max(recordsPerChunk ?? plan.spec.recordsPerChunk, 1)
        self.channel = channel
        self.resumeAt = resumeAt
        self.ordersRowsByKey = ordersRowsByKey
        tracksKeys = plan.spec.fullSync != nil
        unreadFields = UnreadFieldNames(readNames: plan.readNames)
    }

    /// Starts reading on a new thread.
    func start() {
        let thread = Thread { [self] in
            do {
                try run()
                channel.finish()
            } catch {
                channel.finish(throwing: error)
            }
        }
        thread.name = "ferry.import.reader"
        thread.stackSize = 1 << 20
        thread.start()
    }

    private func run() throws {
        let spec = plan.spec
        let first = resumeAt?.input ?? 0
        for (index, path) in spec.sources.enumerated() where index >= first {
            let skip = index == first ? resumeAt?.records ?? 0 : 0
            guard try produce(input: index, path: path, skipping: skip) else { return }
        }
    }

    /// Reads one input to its end; `false` when the run was cancelled.
    private func produce(input: Int, path: String, skipping skip: Int) throws -> Bool {
        let spec = plan.spec
        guard let format = spec.format ?? RecordFormat(inferringFrom: path) else {
            throw PipelineError(
                .invalidSpec,
                "cannot infer the format of '\(path)' from its extension; give format: csv|tsv|ndjson|json")
        }
        let reader = try format.openReader(path: path, dialect: spec.dialect, jsonOptions: spec.jsonOptions)
        // A CSV input without a header names its columns by position, once its first record gives their number.
        let headerless = reader.columnNames == nil && format.defaultDialect != nil
        columnNames = reader.columnNames
        if firstColumnNames == nil && !headerless { firstColumnNames = columnNames }
        noteUnread(columnNames)
        var packer = headerless ? nil : try RecordPacker(plan: plan, inputPath: path, columnNames: columnNames)
        var consumed = 0
        while consumed < skip {
            do {
                guard try reader.next() != nil else { break }
            } catch let error as FerryIOError where error.isRecoverable {}
            consumed += 1
        }
        var chunk = emptyChunk(input: input, path: path, consumed: consumed)
        while true {
            let record: Record?
            do {
                record = try reader.next()
            } catch let error as FerryIOError where error.isRecoverable && !tracksKeys {
                // The reader goes on after a malformed record (a CSV record of the wrong width, a bad NDJSON line):
                // reject it alone. Not in a full sync: its key is unknown, so its row would be deleted.
                chunk.rejects.append(RejectedRecord(skipped: error, file: path, record: consumed + 1))
                chunk.read += 1
                consumed += 1
                if chunk.read >= recordsPerChunk {
                    guard hand(&chunk, reader: reader, consumed: consumed) else { return false }
                }
                continue
            }
            guard let record else { break }
            consumed += 1
            chunk.read += 1
            if packer == nil {
                let names = (0..<record.count).map(Record.positionalName(ofField:))
                columnNames = names
                chunk.columnNames = names
                if firstColumnNames == nil { firstColumnNames = names }
                noteUnread(names)
                packer = try RecordPacker(plan: plan, inputPath: path, columnNames: names)
            }
            guard let packer else { break }
            var readFields: UInt64 = 0
            let reason = packer.pack(record, into: &chunk.rows, readFields: &readFields)
            // A rejected record's fields count too: one rejected for a new column names it among the unread ones.
            if packer.readsFieldsByName { unreadFields.note(record, readFields: readFields) }
            if let reason {
                chunk.rejects.append(
                    RejectedRecord(record: record, file: path, reason: reason, columnNames: columnNames))
                if tracksKeys, let key = packer.rawKeyText(of: record) { chunk.seenKeys.append(key) }
            } else {
                chunk.positions.append(record.position)
                if packer.keepsRecordAsRead(record) {
                    chunk.raw.append(record, packedIn: chunk.rows, textColumns: packer.textColumnOfField)
                } else {
                    chunk.raw.appendUnkept()
                }
                if tracksKeys, let key = packer.keyText(ofRow: chunk.rows.count - 1, in: chunk.rows) {
                    chunk.seenKeys.append(key)
                }
            }
            if chunk.read >= recordsPerChunk {
                guard hand(&chunk, reader: reader, consumed: consumed) else { return false }
            }
        }
        if chunk.read > 0 || consumed == skip {
            // The last (possibly empty) chunk moves the checkpoint to the input's end.
            guard hand(&chunk, reader: reader, consumed: consumed) else { return false }
        }
        return true
    }

    private func noteUnread(_ header: [String]?) {
        for name in plan.unreadColumns(of: header ?? []) where !unreadHeaderColumns.contains(name) {
            unreadHeaderColumns.append(name)
        }
    }

    /// A chunk with no records yet, in the buffers of a committed chunk when the writer handed them back, sized by
    /// the last chunk so that they grow once instead of doubling their way up.
    private func emptyChunk(input: Int, path: String, consumed: Int) -> Chunk {
        var rows = channel.takeSpareRows() ?? PackedRows(columns: plan.columns.map(\.name))
        // The last chunk's bytes and 16 a record to spare, so a chunk a little larger does not double the buffer.
        let records = recordsPerChunk
        rows.reserveCapacity(rows: records, bytes: lastChunkBytes.map { $0 + 16 * records } ?? records * 64)
        var positions: [RecordPosition] = []
        positions.reserveCapacity(recordsPerChunk)
        var raw = RawRecords()
        // Records kept as read take room as they come; a chunk that kept none (the fast path) reserves none. An
        // eighth to spare, so a slightly larger chunk does not double the buffers.
        let kept = lastRawBytes ?? 0
        raw.reserveCapacity(records: recordsPerChunk, bytes: kept + kept / 8)
        return Chunk(
            rows: rows, positions: positions, raw: raw, columnNames: columnNames, rejects: [], read: 0,
            checkpoint: Checkpoint(input: input, records: consumed), inputPath: path, bytesRead: 0)
    }

    private func hand(_ chunk: inout Chunk, reader: any RecordReader, consumed: Int) -> Bool {
        chunk.checkpoint.records = consumed
        if chunk.rows.count > 0 {
            lastChunkBytes = chunk.rows.bytes.count
            lastRawBytes = chunk.raw.byteCount
        }
        chunk.bytesRead = reader.bytesRead
        // Sorted in place, and the next chunk's buffers reserved only once this one is taken: the reader never
        // holds a second copy of a chunk.
        if ordersRowsByKey { chunk.reorder(chunk.rows.orderByKey(plan.keyColumnIndexes)) }
        let full = chunk
        chunk.rows = PackedRows(columns: full.rows.columns)
        chunk.positions = []
        chunk.raw = RawRecords()
        guard channel.put(full) else { return false }
        chunk = emptyChunk(input: full.checkpoint.input, path: full.inputPath, consumed: consumed)
        return true
    }
}

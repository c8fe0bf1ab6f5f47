import FerryIO
import FerryStore
import Foundation

/// What committing one chunk did.
struct ChunkOutcome: Sendable {
    var counts = StepCounts()
    /// Every record of the chunk refused, while packing or while committing.
    var rejects: [RejectedRecord]
}

/// Commits chunks to the store, each with the companion that writes its checkpoint.
protocol ChunkWriter: Sendable {
    /// Whether ``commit(_:upcoming:companion:)`` starts on the next chunk while this one commits. The importer
    /// takes the next chunk from the reader early only for a writer that does: taking it lets the reader start one
    /// more, which otherwise would only hold memory.
    var looksAhead: Bool { get }

    /// Whether the writer may take each chunk's rows in key order rather than in record order (the order among
    /// records of one key kept): true when the rows of a chunk depend on one another only through their key, so
    /// the order changes nothing but where the store's B-trees are walked (see ``ChunkProducer``).
    var takesRowsInKeyOrder: Bool { get }

    /// Commits `chunk` with `companion(outcome)` in the same transaction, where `outcome` is what committing the
    /// chunk does: all its counts (rows inserted, updated and unchanged as the transaction writes them) and all
    /// its refused records. The ledger's counts after a crash are then exactly those of the committed chunks.
    ///
    /// `upcoming` gives the chunk after this one once the reader has it (nil after the last), so that the writer
    /// may start on it while this one commits; its next call is then for that chunk.
    ///
    /// - Throws: ``PipelineError`` `.conflict` for a collision the merge policy does not resolve; ``StoreError``.
    func commit(
        _ chunk: Chunk, upcoming: Task<Chunk?, any Error>?,
        companion: @escaping @Sendable (_ outcome: ChunkOutcome) -> TransactionCompanion
    ) async throws -> ChunkOutcome
}

extension Chunk {
    /// Where row `row`'s record starts (an empty position when positions were not kept).
    func position(of row: Int) -> RecordPosition {
        row < positions.count ? positions[row] : RecordPosition(record: 0, line: 0, byteOffset: 0)
    }

    /// Row `row`'s record as read, as a reject's fields.
    func fieldsJSON(of row: Int) -> String {
        raw.fieldsJSON(ofRecord: row, columnNames: columnNames, rows: rows)
    }

    /// Keeps the rows at `order` (indexes of rows), in that order, with their positions and records as read.
    mutating func reorder(_ order: [Int]) {
        rows.reorder(order)
        if !positions.isEmpty { positions = order.map { position(of: $0) } }
        raw.reorder(order)
    }
}

/// Helpers the two writers share.
enum ChunkWriters {
    /// Takes the rows in `refused` out of `chunk` and returns them as rejects, their records as read.
    static func remove(_ refused: [Int: String], from chunk: inout Chunk) -> [RejectedRecord] {
        var kept: [Int] = []
        var rejects: [RejectedRecord] = []
        for row in 0..<chunk.rows.count {
            guard let reason = refused[row] else {
                kept.append(row)
                continue
            }
            rejects.append(
                RejectedRecord(
                    file: chunk.inputPath, position: chunk.position(of: row), reason: reason,
                    fieldsJSON: chunk.fieldsJSON(of: row)))
        }
        chunk.reorder(kept)
        return rejects.sorted { $0.position.record < $1.position.record }
    }
}

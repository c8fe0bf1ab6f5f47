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
    /// Commits `chunk` with `companion(outcome)` in the same transaction, where `outcome` is what committing the
    /// chunk does: all its counts (rows inserted, updated and unchanged as the transaction writes them) and all
    /// its refused records. The ledger's counts after a crash are then exactly those of the committed chunks.
    ///
    /// - Throws: ``PipelineError`` `.conflict` for a collision the merge policy does not resolve; ``StoreError``.
    func commit(_ chunk: Chunk, companion: @escaping @Sendable (_ outcome: ChunkOutcome) -> TransactionCompanion)
        async throws -> ChunkOutcome
}

/// Helpers the two writers share.
enum ChunkWriters {
    /// Commits `companion` in a transaction of its own: a chunk with no row to write still moves the checkpoint.
    static func commitAlone(_ companion: @escaping TransactionCompanion, in store: PersistentStore) async throws {
        try await store.writer.run { connection in try connection.transaction(.immediate) { try companion(connection) }
        }
    }

    /// Takes the rows in `refused` out of `chunk` and returns them as rejects, with their values as converted
    /// (the record as read is gone by now) under their input column names.
    static func remove(_ refused: [Int: String], from chunk: inout Chunk, plan: ImportPlan) -> [RejectedRecord] {
        var kept = PackedRows(columns: chunk.rows.columns)
        var positions: [RecordPosition] = []
        var rejects: [RejectedRecord] = []
        for row in 0..<chunk.rows.count {
            let position =
                row < chunk.positions.count ? chunk.positions[row] : RecordPosition(record: 0, line: 0, byteOffset: 0)
            if let reason = refused[row] {
                rejects.append(
                    RejectedRecord(
                        file: chunk.inputPath, position: position, reason: reason,
                        fieldsJSON: fieldsJSON(of: chunk.rows, row: row, plan: plan)))
                continue
            }
            for column in 0..<chunk.rows.columns.count {
                let cell = chunk.rows.cell(row: row, column: column)
                switch cell {
                case .absent: kept.appendAbsent()
                case .null: kept.appendNull()
                case .integer(let value): kept.appendInteger(value)
                case .real(let value): kept.appendReal(value)
                case .text: chunk.rows.withBytes(of: cell) { kept.appendText($0) }
                case .blob: chunk.rows.withBytes(of: cell) { kept.appendBlob($0) }
                }
            }
            kept.endRow()
            positions.append(position)
        }
        chunk.rows = kept
        chunk.positions = positions
        return rejects.sorted { $0.position.record < $1.position.record }
    }

    /// A packed row's values as reject fields, named by their input columns.
    static func fieldsJSON(of rows: PackedRows, row: Int, plan: ImportPlan) -> String {
        var fields: [[Any]] = []
        for (index, column) in plan.columns.enumerated() {
            let name: String
            switch column.source {
            case .field(let source, _, _), .relationshipKey(let source, _), .blobPath(let source): name = source
            case .constant: continue
            }
            let cell = rows.cell(row: row, column: index)
            switch cell {
            case .absent: continue
            case .null: fields.append([name, Int(FieldKind.null.rawValue), ""])
            case .integer(let value): fields.append([name, Int(FieldKind.number.rawValue), String(value)])
            case .real(let value): fields.append([name, Int(FieldKind.number.rawValue), String(value)])
            case .text:
                fields.append([
                    name, Int(FieldKind.string.rawValue),
                    rows.withBytes(of: cell) { String(decoding: $0, as: UTF8.self) },
                ])
            case .blob: fields.append([name, Int(FieldKind.null.rawValue), ""])
            }
        }
        let data = (try? JSONSerialization.data(withJSONObject: fields)) ?? Data("[]".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}

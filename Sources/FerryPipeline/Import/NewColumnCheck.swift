import FerryIO

/// Judges each record's new columns (input columns the entity lacks, see ``SchemaContract``) as the step's
/// contract says, while the record is packed: the reason a record that gives one a value is rejected, or `nil`.
///
/// - `discard-rows`: a record with a value (neither null nor empty) in a new column is rejected.
/// - `freeze` and `evolve`: the inputs were examined before the import (see ``SchemaDrift``), so a CSV input with
///   new columns never gets this far, but for standard input, which cannot be examined: it fails as its header is
///   read, before its first record. A JSON field that first appears after the sample rejects its record.
/// - `discard-columns`: nothing is judged; the report lists the columns nothing read.
///
/// For CSV the new columns are known by index from the header; for JSON only a record with a field that no column
/// read (a bit count, as for ``UnreadFieldNames``) has its field names compared with the known ones.
struct NewColumnCheck {
    private let contract: SchemaContract
    private let entity: String
    /// CSV: each new column's field index and name. `nil` for JSON.
    private let newFields: [(index: Int, name: String)]?
    /// JSON: the names a field may have without being new, as UTF-8.
    private let knownNames: [[UInt8]]

    /// The check of `plan`'s contract for an input whose header is `columnNames` (`nil` for JSON); `nil` when the
    /// contract judges no record.
    ///
    /// - Throws: ``PipelineError`` `.schemaViolation` for a CSV input with new columns under `freeze` or `evolve`
    ///   (standard input, which was not examined before the import).
    init?(plan: ImportPlan, inputPath: String, columnNames: [String]?) throws {
        contract = plan.spec.schema
        guard contract != .discardColumns else { return nil }
        entity = plan.spec.entity
        let known = plan.knownNames
        knownNames = known.map { Array($0.utf8) }
        guard let columnNames else {
            newFields = nil
            return
        }
        let fields = columnNames.enumerated().filter { ImportPlan.isNew($0.element, known: known) }
            .map { ($0.offset, $0.element) }
        guard !fields.isEmpty else { return nil }
        if contract != .discardRows {
            // A file was examined before the import (see SchemaDrift), which failed or evolved for its new columns.
            guard inputPath == "-" else { return nil }
            let names = fields.map { "'\($0.1)'" }.joined(separator: ", ")
            let outcome =
                contract == .evolve
                ? "they cannot be added (import from a file to add them)" : "they fail the import here"
            throw PipelineError(
                .schemaViolation,
                "schema: \(contract.rawValue): standard input has columns that \(entity) lacks (\(names)); standard "
                    + "input is not examined before the import, so \(outcome), and nothing of it was written. "
                    + "--schema discard-columns ignores them; discard-rows rejects the records that give them a value")
        }
        newFields = fields
    }

    /// Why `record` is rejected, or `nil`. `readFields` marks the fields (among the first 64) a column read (JSON).
    func reason(for record: Record, readFields: UInt64) -> String? {
        if let newFields {
            for (index, name) in newFields where index < record.count && record[index].hasValue {
                return reason(name)
            }
            return nil
        }
        guard record.count > readFields.nonzeroBitCount else { return nil }
        for index in 0..<record.count where index >= UInt64.bitWidth || readFields & (1 << UInt64(index)) == 0 {
            let field = record[index]
            guard field.hasValue else { continue }
            let isNew = field.withUnsafeNameBytes { name in
                name.first != UInt8(ascii: "_") && !knownNames.contains { name.elementsEqual($0) }
            }
            if isNew { return reason(field.withUnsafeNameBytes { String(decoding: $0, as: UTF8.self) }) }
        }
        return nil
    }

    private func reason(_ column: String) -> String {
        switch contract {
        case .evolve:
            "column '\(column)' is new to \(entity) and first appears after the records sampled to evolve its model "
                + "(schema: evolve); importing this record again adds it"
        case .freeze:
            "column '\(column)' is new to \(entity), whose attributes are frozen (schema: freeze)"
        case .discardRows, .discardColumns:
            "column '\(column)' is new to \(entity) (schema: discard-rows rejects a record that gives a new column "
                + "a value)"
        }
    }
}

extension Field {
    /// Whether the field holds a value: neither null nor empty.
    var hasValue: Bool { !isNull && withUnsafeBytes { !$0.isEmpty } }
}

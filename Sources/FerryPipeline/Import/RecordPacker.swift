import FerryIO
import FerryStore
import Foundation

/// Turns records of one input into packed rows for the plan's columns: the importer's hot path. A field converts
/// straight from the reader's borrowed bytes into the row's cells, where its attribute's rules (ranges, lengths,
/// patterns) are checked on its stored form.
///
/// A record that does not fit leaves no cell behind and comes back as the reason, naming the column and what
/// was expected.
///
/// A class, so that the per-record calls never copy its arrays: each copy of a struct would retain every one.
final class RecordPacker {
    let plan: ImportPlan
    /// The plan's columns, unretained (``plan`` holds them): walking them for each record then costs no reference
    /// counting.
    private let columns: [Unmanaged<ImportPlan.Column>]
    /// For CSV: the field index of each column's source, `nil` when the input lacks it. `nil` for JSON, whose
    /// fields are found by name in each record.
    private let fieldIndexes: [Int?]?
    /// For JSON: the UTF-8 of each plan column's source field name, in ``sourceNameBytes``, `nil` for constants.
    private let sourceNameRanges: [Range<Int>?]
    /// The source field names' UTF-8, one after the other, in memory the packer owns: finding a field by name then
    /// borrows no array (a closure over the record would copy it, and retain its buffer, for every field).
    private let sourceNameBytes: UnsafeMutablePointer<UInt8>
    /// The converters of the columns that read a field, with their attributes' rules, each in an object of its own,
    /// used unretained (``fieldConverterObjects`` holds them): a class's `let` is used in place, where taking a
    /// converter out of its column's `source`, or out of memory the packer owned, copied it, and retained and released
    /// what it holds, for every field. ``fieldConverterIndexes`` says which column uses which (-1: none).
    private let fieldConverters: [Unmanaged<FieldColumnConverter>]
    private let fieldConverterObjects: [FieldColumnConverter]
    private let fieldConverterIndexes: [Int]
    /// What the step's schema contract says of the input's new columns, record by record; `nil` when it says nothing.
    private let newColumnCheck: NewColumnCheck?
    /// Reads blob files, from the allowed folders only.
    private let blobFiles: BlobFileReader
    /// Whether every packed row can be refused after packing (see ``keepsRecordAsRead(_:)``).
    private let everyRowMayBeRefusedLater: Bool
    /// The number of fields a CSV record needs to give every column a value (0 for JSON).
    private let fieldsNeeded: Int
    /// The columns a new row cannot go without (mandatory, with no default): a JSON record that lacks one of their
    /// fields packs, and the insert refuses its row.
    private let columnsNeedingAField: [Int]
    /// For CSV: for each field, the column that stores its text as read (a string attribute's field; -1 for none),
    /// so that a record kept as read need not copy that text again (see ``RawRecords``). `nil` for JSON.
    private(set) var textColumnOfField: [Int16]?

    /// A packer for records of `inputPath`, whose header (CSV) is `columnNames`.
    ///
    /// - Throws: ``PipelineError`` `.invalidSpec` when a CSV input lacks a column the plan reads; `.schemaViolation`
    ///   when its new columns break the step's contract (see ``NewColumnCheck``).
    init(plan: ImportPlan, inputPath: String, columnNames: [String]?) throws {
        self.plan = plan
        newColumnCheck = try NewColumnCheck(plan: plan, inputPath: inputPath, columnNames: columnNames)
        columns = plan.columns.map { Unmanaged.passUnretained($0) }
        blobFiles = BlobFileReader(
            inputFolder: URL(fileURLWithPath: inputPath == "-" ? "." : inputPath).deletingLastPathComponent(),
            roots: plan.spec.blobRoots)
        let sourceNames: [String?] = plan.columns.map { column in
            switch column.source {
            case .field(let name, _, _), .relationshipKey(let name, _), .blobPath(let name): name
            case .constant: nil
            }
        }
        var nameBytes: [UInt8] = []
        sourceNameRanges = sourceNames.map { name in
            guard let name else { return nil }
            let start = nameBytes.count
            nameBytes.append(contentsOf: name.utf8)
            return start..<nameBytes.count
        }
        sourceNameBytes = .allocate(capacity: max(nameBytes.count, 1))
        sourceNameBytes.initialize(from: nameBytes, count: nameBytes.count)
        var converters: [FieldColumnConverter] = []
        fieldConverterIndexes = plan.columns.map { column in
            guard case .field(_, let converter, _) = column.source else { return -1 }
            converters.append(
                FieldColumnConverter(converter: converter, storesText: column.type == .string, rules: column.rules))
            return converters.count - 1
        }
        fieldConverterObjects = converters
        fieldConverters = converters.map { Unmanaged.passUnretained($0) }
        let resolvesLater = plan.columns.contains {
            if case .relationshipKey = $0.source { return true } else { return false }
        }
        everyRowMayBeRefusedLater = plan.spec.mode == .context || resolvesLater || plan.omitsMandatoryAttribute
        columnsNeedingAField = plan.columns.indices.filter { offset in
            let column = plan.columns[offset]
            switch column.source {
            case .constant: return false
            case .field(_, _, let defaultValue): return column.isMandatory && defaultValue == nil
            case .relationshipKey, .blobPath: return column.isMandatory
            }
        }
        guard let columnNames else {
            fieldIndexes = nil
            fieldsNeeded = 0
            return
        }
        var indexes: [Int?] = []
        for (offset, name) in sourceNames.enumerated() {
            guard let name else {
                indexes.append(nil)
                continue
            }
            guard let index = columnNames.firstIndex(of: name) else {
                let column = plan.columns[offset]
                // A missing optional column is a mapping mistake too: every mapped column must exist.
                throw PipelineError(
                    .invalidSpec,
                    "\(inputPath) has no column '\(name)' (for '\(column.name)'); its columns are "
                        + columnNames.joined(separator: ", "))
            }
            indexes.append(index)
        }
        fieldIndexes = indexes
        fieldsNeeded = (indexes.compactMap { $0 }.max() ?? -1) + 1
        var textColumns = [Int16](repeating: -1, count: columnNames.count)
        for (offset, column) in plan.columns.enumerated() where column.type == .string && offset < Int(Int16.max) {
            guard case .field = column.source, let index = indexes[offset], textColumns[index] < 0 else { continue }
            textColumns[index] = Int16(offset)
        }
        textColumnOfField = textColumns
    }

    deinit {
        sourceNameBytes.deallocate()
    }

    /// Whether the row packed from `record` can still be refused once packed, so that the record as read must be
    /// kept to reject it as read: always in context mode (the save validates) or when a relationship key is
    /// resolved after packing; in batch mode otherwise only when the insert may refuse the row as a new row without
    /// a required value (a required attribute without a column, a CSV record too short, or a JSON record without
    /// the field of a required attribute that has no default). Keeping no copy of the others keeps the fast path's
    /// memory as it was.
    func keepsRecordAsRead(_ record: Record) -> Bool {
        if everyRowMayBeRefusedLater { return true }
        if fieldIndexes != nil { return record.count < fieldsNeeded }
        var ignored: UInt64 = 0
        for column in columnsNeedingAField where fieldIndex(column, of: record, readFields: &ignored) == nil {
            return true
        }
        return false
    }

    /// Appends `record` as one row of `rows`, or returns why it cannot be (leaving `rows` as it was). For a JSON
    /// record, `readFields` gets the bit of each field (among the first 64) that a column read: what
    /// ``UnreadFieldNames`` needs to tell, at the cost of a bit, whether the record has a field nothing reads.
    func pack(_ record: Record, into rows: inout PackedRows, readFields: inout UInt64) -> String? {
        for offset in columns.indices {
            let reason = columns[offset]._withUnsafeGuaranteedRef { column in
                append(column, at: offset, of: record, to: &rows, readFields: &readFields)
            }
            if let reason {
                rows.discardOpenRow()
                return reason
            }
        }
        if let newColumnCheck, let reason = newColumnCheck.reason(for: record, readFields: readFields) {
            rows.discardOpenRow()
            return reason
        }
        rows.endRow()
        return nil
    }

    /// The key text of packed row `row` (``StoredValueCodec``'s, the text full sync compares with the stored keys'
    /// `ferry_key_text`), or `nil` when a key value is null: such a key matches no stored row.
    func keyText(ofRow row: Int, in rows: PackedRows) -> String? {
        rows.keyText(row: row, columns: plan.keyColumnIndexes)
    }

    /// The key text of a record that did not pack, so that a refused record's row survives a full sync: each key
    /// field converted to its stored form when it converts, else its text as read (trimmed); `nil` when a key field
    /// is missing or null.
    func rawKeyText(of record: Record) -> String? {
        var text = ""
        var ignored: UInt64 = 0
        for (offset, column) in plan.keyColumnIndexes.enumerated() {
            guard let field = field(column, of: record, readFields: &ignored), !field.isNull else { return nil }
            if offset > 0 { text.append(StoredValueCodec.keyPartSeparator) }
            if case .field(_, let converter, _) = plan.columns[column].source {
                var scratch = PackedRows(columns: [plan.columns[column].name])
                if converter.append(field, to: &scratch) == nil {
                    scratch.endRow()
                    guard scratch.appendKeyText(ofCell: scratch.cell(row: 0, column: 0), to: &text) else { return nil }
                    continue
                }
            }
            text += field.withTrimmedBytes { String(decoding: $0, as: UTF8.self) }
        }
        return text
    }

    /// Whether fields are found by name in each record (JSON), rather than by the header's index (CSV).
    var readsFieldsByName: Bool { fieldIndexes == nil }

    /// The field column `offset` reads from `record`; a JSON field found by name sets its bit in `readFields`.
    private func field(_ offset: Int, of record: Record, readFields: inout UInt64) -> Field? {
        fieldIndex(offset, of: record, readFields: &readFields).map { record[$0] }
    }

    /// The index in `record` of the field column `offset` reads, as ``field(_:of:readFields:)`` finds it.
    @inline(__always)
    private func fieldIndex(_ offset: Int, of record: Record, readFields: inout UInt64) -> Int? {
        if let fieldIndexes {
            guard let index = fieldIndexes[offset], index < record.count else { return nil }
            return index
        }
        guard let range = sourceNameRanges[offset],
            let index = record.index(
                ofFieldNamed: UnsafeBufferPointer(start: sourceNameBytes + range.lowerBound, count: range.count))
        else { return nil }
        if index < UInt64.bitWidth { readFields |= 1 << UInt64(index) }
        return index
    }

    private func append(
        _ column: ImportPlan.Column, at offset: Int, of record: Record, to rows: inout PackedRows,
        readFields: inout UInt64
    ) -> String? {
        // A field's column: its source is not looked at (which would copy it) unless the field is null or blank.
        let converterIndex = fieldConverterIndexes[offset]
        if converterIndex < 0, case .constant(let value) = column.source {
            rows.append(value, as: column.type)
            return nil
        }
        guard let index = fieldIndex(offset, of: record, readFields: &readFields) else {
            // A key missing from a JSON record (or a short CSV row) gives no value: a new row takes the default,
            // a stored one keeps its value.
            rows.appendAbsent()
            return nil
        }
        if converterIndex >= 0 {
            // Read in place: no Field, no copy of the converter (and no reference counting) per value.
            let (bytes, kind) = record.bytesAndKind(ofField: index)
            let outcome = fieldConverters[converterIndex]._withUnsafeGuaranteedRef { field -> FieldOutcome in
                guard kind != .null && (field.storesText || !bytes.isBlank) else { return .blank }
                if let failure = field.converter.append(bytes: bytes, kind: kind, to: &rows) { return .failed(failure) }
                // Checked in place: binding the rules would copy them (and retain what they hold) for every value.
                guard let cell = rows.openRowLastCell, let broken = field.rules?.checkStored(cell, in: rows) else {
                    return .appended
                }
                return .broke(broken)
            }
            if case .appended = outcome { return nil }
            return complete(column, after: outcome, to: &rows)
        }
        let field = record[index]
        switch column.source {
        case .constant, .field:
            // Both are done above: a constant without reading the record, a field by its column's converter.
            return nil
        case .relationshipKey(let name, _):
            guard !field.isBlank(for: .integer64) else { return appendNull(column, from: name, to: &rows) }
            field.withTrimmedBytes { rows.appendText($0) }
            return nil
        case .blobPath(let name):
            guard !field.isBlank(for: .binary) else { return appendNull(column, from: name, to: &rows) }
            let path = field.withTrimmedBytes { String(decoding: $0, as: UTF8.self) }
            switch blobFiles.contents(of: path) {
            case .success(let data):
                data.withUnsafeBytes { rows.appendBlob($0) }
                return nil
            case .failure(let refusal):
                return "column '\(name)': \(refusal.message)"
            }
        }
    }

    /// What a field's column whose field was not appended gives: the reason it failed or broke a rule, or, for a
    /// null or blank field, the column's default or null (`nil`), or the reason the column needs a value.
    private func complete(_ column: ImportPlan.Column, after outcome: FieldOutcome, to rows: inout PackedRows)
        -> String?
    {
        guard case .field(let name, _, let defaultValue) = column.source else { return nil }
        switch outcome {
        case .appended:
            return nil
        case .failed(let failure):
            return "column '\(name)': \(failure.message)"
        case .broke(let rule):
            return "column '\(name)' → '\(column.name)': \(rule.message)"
        case .blank:
            guard let defaultValue else { return appendNull(column, from: name, to: &rows) }
            rows.append(defaultValue, as: column.type)
            return nil
        }
    }

    /// A field column's converter, whether the column stores text (blank text is then a value, not a null), and the
    /// attribute's rules when it has any (checked on the value's stored form).
    final class FieldColumnConverter {
        let converter: FieldConverter
        let storesText: Bool
        let rules: AttributeRules?

        init(converter: FieldConverter, storesText: Bool, rules: AttributeRules?) {
            self.converter = converter
            self.storesText = storesText
            self.rules = rules
        }
    }

    /// What a field's column did with its field.
    private enum FieldOutcome {
        /// The value's cell was appended.
        case appended
        /// The field does not convert.
        case failed(ConversionFailure)
        /// The value breaks a rule of the attribute.
        case broke(ValidationError)
        /// Null or blank: the column's default or null applies.
        case blank
    }

    private func appendNull(_ column: ImportPlan.Column, from name: String, to rows: inout PackedRows) -> String? {
        guard !column.isMandatory else {
            return "column '\(name)': a value is required for '\(column.name)', and the field is empty"
        }
        rows.appendNull()
        return nil
    }
}

extension Field {
    /// Whether the field holds no value for an attribute of `type`: null, or (except for strings) only spaces.
    func isBlank(for type: AttributeType) -> Bool {
        if isNull { return true }
        if type == .string { return false }
        return withUnsafeBytes { $0.isBlank }
    }

    /// Calls `body` with the value's bytes without leading and trailing spaces and tabs.
    func withTrimmedBytes<Result>(_ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        withUnsafeBytes { bytes in
            var start = 0
            var end = bytes.count
            while start < end, bytes[start] == 0x20 || bytes[start] == 0x09 { start += 1 }
            while end > start, bytes[end - 1] == 0x20 || bytes[end - 1] == 0x09 { end -= 1 }
            return body(UnsafeRawBufferPointer(rebasing: bytes[start..<end]))
        }
    }
}

extension UnsafeRawBufferPointer {
    /// Whether every byte is a space or a tab (true when empty): a field that holds no value but for a string.
    @inline(__always)
    var isBlank: Bool { allSatisfy { $0 == 0x20 || $0 == 0x09 } }
}

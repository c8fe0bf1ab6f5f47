import FerryIO
import FerryStore
import Foundation

/// Writes snapshot rows to a ``ParquetWriter``, typed from the model, from SQLite's buffers or from a ``RowBatch``.
///
/// Attribute types map to Parquet exactly:
///
/// | attribute | Parquet |
/// |---|---|
/// | string, URI | BYTE_ARRAY, STRING |
/// | integer16, integer32 | INT32, INTEGER(16 or 32, signed) |
/// | integer64 | INT64 |
/// | double, float | DOUBLE, FLOAT |
/// | boolean | BOOLEAN |
/// | date | INT64, TIMESTAMP(MICROS, adjusted to UTC) |
/// | UUID | FIXED_LEN_BYTE_ARRAY(16), UUID; STRING of its text with ``ParquetWriter/Options/writesUUIDsAsText`` |
/// | binary, transformable | BYTE_ARRAY (externally stored values read from their files) |
/// | decimal with `precision` (and `scale`) in the model | DECIMAL(precision, scale), exactly; more digits fail |
/// | decimal without | BYTE_ARRAY, STRING: its exact stored text |
///
/// A key path through relationships (`category.name`) takes the type of the attribute at its end. A column is
/// required (no definition levels) when its attribute is a non-optional attribute of the exported entity itself;
/// optional attributes, and every key path through a relationship (whose destination may be missing), are optional.
final class ParquetFieldWriter {
    /// How one column's stored value is written.
    enum Encoding {
        case integer, real, boolean, date, uuid, text, binary
        /// Text written as a DECIMAL column's unscaled number.
        case decimal
    }

    private var encodings: [Encoding]
    private let keys: [String]
    /// The indices of the snapshot columns written, in order (all but a partitioned export's partition keys).
    private let written: [Int]
    private let blobFolder: String
    /// A UUID's 16 bytes, parsed from its stored text.
    private let uuidBytes: UnsafeMutableRawBufferPointer

    /// A writer for `columns` (those at `written` only, when given), reading blob files from `blobFolder`.
    init(columns: [SnapshotRows.Column], written: [Int]? = nil, blobFolder: String) {
        encodings = columns.map { Self.encoding(of: $0.type) }
        keys = columns.map(\.key)
        self.written = written ?? Array(columns.indices)
        // Decimal columns with a declared precision are written as numbers, set by `useDecimalColumns`.
        self.blobFolder = blobFolder
        uuidBytes = .allocate(byteCount: 16, alignment: 8)
    }

    deinit {
        uuidBytes.deallocate()
    }

    /// The Parquet columns for `columns` of `entity`'s rows, in order.
    static func parquetColumns(
        for columns: [SnapshotRows.Column], entity: String, model: ManagedObjectModel
    ) -> [ParquetColumn] {
        let attributes = model.allAttributes(of: entity)
        return columns.map { column in
            let isOptional =
                column.key.contains(".") || (attributes.first { $0.name == column.key }?.isOptional ?? true)
            var type = valueType(of: column.type)
            if column.type == .decimal, let attribute = attribute(at: column.key, of: entity, in: model),
                let precision = attribute.decimalPrecision
            {
                type = .decimal(precision: precision, scale: attribute.decimalScale ?? 0)
            }
            return ParquetColumn(name: column.key, type: type, isOptional: isOptional)
        }
    }

    /// The attribute a key path ends at (`category.name`: Category's `name`), through to-one relationships.
    static func attribute(at keyPath: String, of entity: String, in model: ManagedObjectModel) -> AttributeDescription? {
        var current = entity
        let parts = keyPath.split(separator: ".").map(String.init)
        for relationship in parts.dropLast() {
            guard let next = model.allRelationships(of: current).first(where: { $0.name == relationship }) else {
                return nil
            }
            current = next.destinationEntity
        }
        return parts.last.flatMap { last in model.allAttributes(of: current).first { $0.name == last } }
    }

    static func valueType(of type: AttributeType) -> ParquetValueType {
        switch type {
        case .string, .uri, .decimal: .string
        case .integer16: .int16
        case .integer32: .int32
        case .integer64: .int64
        case .double: .double
        case .float: .float
        case .boolean: .boolean
        case .date: .timestampMicros
        case .uuid: .uuid
        case .binary, .transformable: .binary
        }
    }

    /// Writes the decimal columns that `parquetColumns` (in written order) declares DECIMAL as numbers rather
    /// than text.
    func useDecimalColumns(_ parquetColumns: [ParquetColumn]) {
        for (column, index) in written.enumerated() {
            if case .decimal = parquetColumns[column].type { encodings[index] = .decimal }
        }
    }

    static func encoding(of type: AttributeType) -> Encoding {
        switch type {
        case .integer16, .integer32, .integer64: .integer
        case .double, .float: .real
        case .boolean: .boolean
        case .date: .date
        case .uuid: .uuid
        case .string, .uri, .decimal: .text
        case .binary, .transformable: .binary
        }
    }

    /// Writes `row` (the current row of a statement, or a row of a ``RowBatch``) as one row.
    ///
    /// - Throws: ``FerryIOError`` when writing fails or a value does not fit its column; ``PipelineError``
    ///   `.invalidExport` for a stored value of another type than its attribute's; ``StoreError`` when a blob file is
    ///   missing or unreadable.
    func writeRow<Row: ExportRow>(_ row: Row, to writer: ParquetWriter) throws {
        try writer.writeRows(1) { column, _, values in
            let index = written[column]
            try writeField(row, index, encodings[index], into: &values)
        }
    }

    /// Writes every row of `batch`, column by column (see ``ParquetWriter/writeRows(_:_:)``): the same file as
    /// ``writeRow(_:to:)`` row by row, for less work per value.
    ///
    /// - Throws: as ``writeRow(_:to:)``.
    func writeBatch(_ batch: RowBatch, to writer: ParquetWriter) throws {
        try writer.writeRows(batch.rowCount) { column, rows, values in
            let index = written[column]
            let encoding = encodings[index]
            for row in rows {
                try writeField(batch.row(at: row), index, encoding, into: &values)
            }
        }
    }

    @inline(__always)
    private func writeField<Row: ExportRow>(
        _ row: Row, _ index: Int, _ encoding: Encoding, into values: inout ParquetColumnValues
    ) throws {
        switch (row.storageClass(at: index), encoding) {
        case (nil, _):
            try values.appendNull()
        case (.integer?, .integer):
            try values.append(integer: row.int64(at: index))
        case (.integer?, .boolean):
            try values.append(boolean: row.int64(at: index) != 0)
        case (.integer?, .real), (.real?, .real):
            try values.append(real: row.double(at: index))
        case (.integer?, .date), (.real?, .date):
            let seconds = row.double(at: index)
            let micros = (seconds * 1_000_000).rounded()
            guard micros.isFinite, abs(micros) < 9.2e18 else {
                throw mismatch(index, values, "a date Parquet's microsecond timestamps cannot hold")
            }
            try values.append(integer: Int64(micros))
        case (.text?, .uuid):
            try row.withTextBytes(at: index) { text in
                guard Self.parseUUID(text, into: uuidBytes) else {
                    throw mismatch(index, values, "text that is not a UUID")
                }
                try values.append(bytes: UnsafeRawBufferPointer(uuidBytes))
            }
        case (.blob?, .uuid) where row.withBlobBytes(at: index, { $0.count }) == 16:
            try row.withBlobBytes(at: index) { try values.append(bytes: $0) }
        case (.text?, .decimal):
            try row.withTextBytes(at: index) { try values.append(decimalText: $0) }
        case (.integer?, .decimal), (.real?, .decimal):
            // SQLite may keep a decimal's text as a number; its shortest text is exact for what it holds.
            var text = row.storageClass(at: index) == .integer
                ? String(row.int64(at: index)) : String(row.double(at: index))
            try text.withUTF8 { try values.append(decimalText: UnsafeRawBufferPointer($0)) }
        case (.text?, .text):
            try row.withTextBytes(at: index) { try values.append(bytes: $0) }
        case (.text?, .binary):
            try row.withTextBytes(at: index) { bytes in
                if let relative = ReadSnapshot.blobRelativePath(ofReference: bytes) {
                    try SnapshotRows.blobFileBytes(relative, in: blobFolder).withUnsafeBytes {
                        try values.append(bytes: $0)
                    }
                } else {
                    try values.append(bytes: bytes)
                }
            }
        case (.blob?, .binary), (.blob?, .text):
            try row.withBlobBytes(at: index) { try values.append(bytes: $0) }
        case (let storage, _):
            throw mismatch(index, values, "a stored \(storage.map { "\($0)" } ?? "NULL") value")
        }
    }

    private func mismatch(_ index: Int, _ values: ParquetColumnValues, _ what: String) -> PipelineError {
        PipelineError(
            .invalidExport,
            "row \(values.record) of the export holds \(what) in \(keys[index]), whose Parquet column is "
                + "\(values.column.type)")
    }

    /// Parses `8-4-4-4-12` hex text into 16 bytes; `false` when it is not a UUID.
    static func parseUUID(_ text: UnsafeRawBufferPointer, into bytes: UnsafeMutableRawBufferPointer) -> Bool {
        guard text.count == 36 else { return false }
        var position = 0
        var byte = 0
        while position < 36 {
            if position == 8 || position == 13 || position == 18 || position == 23 {
                guard text[position] == 0x2D else { return false }
                position += 1
                continue
            }
            guard let high = hexValue(text[position]), let low = hexValue(text[position + 1]) else { return false }
            bytes[byte] = high << 4 | low
            byte += 1
            position += 2
        }
        return byte == 16
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: byte - 0x30
        case 0x41...0x46: byte - 0x41 + 10
        case 0x61...0x66: byte - 0x61 + 10
        default: nil
        }
    }
}

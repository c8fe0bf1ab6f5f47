/// What a Parquet file's footer records about each column chunk.
struct ParquetChunkMetadata {
    var encodings: [Int32]
    var valueCount: Int64
    var uncompressedSize: Int64
    var compressedSize: Int64
    var dataPageOffset: Int64
    var dictionaryPageOffset: Int64?
    var nullCount: Int64
    var range: (min: [UInt8], max: [UInt8])?
}

/// What a Parquet file's footer records about each row group.
struct ParquetRowGroupMetadata {
    var columns: [ParquetChunkMetadata]
    var rows: Int64
    var fileOffset: Int64
}

/// The format's numbers used in page headers and the footer (from its Thrift definition).
enum ParquetFormat {
    static let magic: [UInt8] = Array("PAR1".utf8)
    static let plainEncoding: Int32 = 0
    static let rleEncoding: Int32 = 3
    static let rleDictionaryEncoding: Int32 = 8
    static let dataPage: Int32 = 0
    static let dictionaryPage: Int32 = 2
}

extension ThriftCompactWriter {
    /// A data page (v1) header: values (nulls included), their encoding, definition levels as RLE.
    mutating func writeDataPageHeader(
        uncompressedSize: Int, compressedSize: Int, valueCount: Int, encoding: Int32
    ) {
        writeI32(field: 1, ParquetFormat.dataPage)
        writeI32(field: 2, Int32(uncompressedSize))
        writeI32(field: 3, Int32(compressedSize))
        beginStruct(field: 5)
        writeI32(field: 1, Int32(valueCount))
        writeI32(field: 2, encoding)
        writeI32(field: 3, ParquetFormat.rleEncoding)
        writeI32(field: 4, ParquetFormat.rleEncoding)
        endStruct()
        writeStop()
    }

    /// A dictionary page header: `entryCount` PLAIN values.
    mutating func writeDictionaryPageHeader(uncompressedSize: Int, compressedSize: Int, entryCount: Int) {
        writeI32(field: 1, ParquetFormat.dictionaryPage)
        writeI32(field: 2, Int32(uncompressedSize))
        writeI32(field: 3, Int32(compressedSize))
        beginStruct(field: 7)
        writeI32(field: 1, Int32(entryCount))
        writeI32(field: 2, ParquetFormat.plainEncoding)
        endStruct()
        writeStop()
    }

    /// The footer's FileMetaData: the schema, the row groups with their column chunks, and the column orders.
    mutating func writeFileMetadata(
        columns: [ParquetColumn], rowGroups: [ParquetRowGroupMetadata], codec: Int32, createdBy: String
    ) {
        writeI32(field: 1, 2)
        beginList(field: 2, of: .structure, count: columns.count + 1)
        beginListElementStruct()
        writeString(field: 4, "schema")
        writeI32(field: 5, Int32(columns.count))
        endStruct()
        for column in columns { writeSchemaElement(column) }
        writeI64(field: 3, rowGroups.reduce(0) { $0 + $1.rows })
        beginList(field: 4, of: .structure, count: rowGroups.count)
        for (ordinal, group) in rowGroups.enumerated() {
            writeRowGroup(group, ordinal: ordinal, columns: columns, codec: codec)
        }
        writeString(field: 6, createdBy)
        // Every column's statistics follow its type's order (TypeDefinedOrder).
        beginList(field: 7, of: .structure, count: columns.count)
        for _ in columns {
            beginListElementStruct()
            beginStruct(field: 1)
            endStruct()
            endStruct()
        }
        writeStop()
    }

    private mutating func writeSchemaElement(_ column: ParquetColumn) {
        let type = column.type
        beginListElementStruct()
        writeI32(field: 1, type.physical.rawValue)
        if type.fixedLength > 0 { writeI32(field: 2, Int32(type.fixedLength)) }
        writeI32(field: 3, column.isOptional ? 1 : 0)
        writeString(field: 4, column.name)
        // The converted type (field 6) for readers that predate logical types.
        switch type {
        case .string: writeI32(field: 6, 0)
        case .int16: writeI32(field: 6, 16)
        case .int32: writeI32(field: 6, 17)
        case .timestampMicros: writeI32(field: 6, 10)
        case .decimal(let precision, let scale):
            writeI32(field: 6, 5)
            writeI32(field: 7, Int32(scale))
            writeI32(field: 8, Int32(precision))
        default: break
        }
        switch type {
        case .string:
            beginStruct(field: 10)
            beginStruct(field: 1)
            endStruct()
            endStruct()
        case .int16, .int32:
            beginStruct(field: 10)
            beginStruct(field: 10)
            writeI8(field: 1, type == .int16 ? 16 : 32)
            writeBool(field: 2, true)
            endStruct()
            endStruct()
        case .timestampMicros:
            beginStruct(field: 10)
            beginStruct(field: 8)
            writeBool(field: 1, true)
            beginStruct(field: 2)
            beginStruct(field: 2)
            endStruct()
            endStruct()
            endStruct()
            endStruct()
        case .uuid:
            beginStruct(field: 10)
            beginStruct(field: 14)
            endStruct()
            endStruct()
        case .decimal(let precision, let scale):
            beginStruct(field: 10)
            beginStruct(field: 5)
            writeI32(field: 1, Int32(scale))
            writeI32(field: 2, Int32(precision))
            endStruct()
            endStruct()
        case .binary, .int64, .float, .double, .boolean:
            break
        }
        endStruct()
    }

    private mutating func writeRowGroup(
        _ group: ParquetRowGroupMetadata, ordinal: Int, columns: [ParquetColumn], codec: Int32
    ) {
        beginListElementStruct()
        beginList(field: 1, of: .structure, count: group.columns.count)
        var uncompressed: Int64 = 0
        var compressed: Int64 = 0
        for (chunk, column) in zip(group.columns, columns) {
            uncompressed += chunk.uncompressedSize
            compressed += chunk.compressedSize
            beginListElementStruct()
            writeI64(field: 2, chunk.dictionaryPageOffset ?? chunk.dataPageOffset)
            beginStruct(field: 3)
            writeI32(field: 1, column.type.physical.rawValue)
            beginList(field: 2, of: .i32, count: chunk.encodings.count)
            for encoding in chunk.encodings { writeListElement(encoding) }
            beginList(field: 3, of: .binary, count: 1)
            writeListElement(column.name)
            writeI32(field: 4, codec)
            writeI64(field: 5, chunk.valueCount)
            writeI64(field: 6, chunk.uncompressedSize)
            writeI64(field: 7, chunk.compressedSize)
            writeI64(field: 9, chunk.dataPageOffset)
            if let dictionary = chunk.dictionaryPageOffset { writeI64(field: 11, dictionary) }
            beginStruct(field: 12)
            writeI64(field: 3, chunk.nullCount)
            if let range = chunk.range {
                writeBinary(field: 5, range.max)
                writeBinary(field: 6, range.min)
            }
            endStruct()
            endStruct()
            endStruct()
        }
        writeI64(field: 2, uncompressed)
        writeI64(field: 3, group.rows)
        writeI64(field: 5, group.fileOffset)
        writeI64(field: 6, compressed)
        writeI16(field: 7, Int16(truncatingIfNeeded: ordinal))
        endStruct()
    }
}

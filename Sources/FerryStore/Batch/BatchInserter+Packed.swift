import FerrySQLite

extension BatchInserter {
    /// Inserts ``PackedRows``: one shape for every row, each cell bound straight from the packed buffers.
    ///
    /// - Throws: ``StoreError`` `.invalidBatchRequest` when a cell's storage class does not fit its attribute,
    ///   `.missingMandatoryProperty` for NULL in a non-optional attribute; ``SQLiteError``.
    mutating func insert(packed rows: PackedRows) throws {
        let shape = try shape(for: rows.columns)
        let storage = shape.types.map(PackedStorage.init)
        let width = rows.columns.count
        try rows.bytes.withUnsafeBytes { bytes in
            for row in 0..<rows.count {
                rowNumber += 1
                let first = row * width
                for column in 0..<width {
                    try bind(rows.cells[first + column], bytes: bytes, in: shape, at: column, storage: storage[column])
                }
                try write(shape)
            }
        }
    }

    private func bind(
        _ cell: PackedRows.Cell, bytes: UnsafeRawBufferPointer, in shape: Shape, at offset: Int,
        storage: PackedStorage
    ) throws {
        let statement = shape.statement
        let index = offset + 1
        switch (cell, storage) {
        case (.null, _):
            guard shape.optional[offset] else {
                throw StoreError(
                    .missingMandatoryProperty,
                    "batch insert into \(mapping.entity): row \(rowNumber) gives nil for the non-optional attribute "
                        + "'\(shape.names[offset])'")
            }
            try statement.bindNull(at: index)
        case (.integer(let value), .integer):
            if let range = shape.types[offset].integerRange, !range.contains(value) {
                throw StoreError(
                    .invalidBatchRequest,
                    "batch insert into \(mapping.entity): row \(rowNumber) gives \(value) for '\(shape.names[offset])', "
                        + "outside the range of \(shape.types[offset].attributeDescription)")
            }
            try statement.bind(value, at: index)
        case (.real(let value), .real):
            try statement.bind(value, at: index)
        case (.text(let start, let count), .text):
            try statement.bindText(UnsafeRawBufferPointer(rebasing: bytes[start..<start + count]), at: index)
        case (.blob(let start, let count), .blob):
            try bindBlob(UnsafeRawBufferPointer(rebasing: bytes[start..<start + count]), in: shape, at: offset)
        default:
            throw StoreError(
                .invalidBatchRequest,
                "batch insert into \(mapping.entity): row \(rowNumber) gives a value stored as \(cell.storageName) "
                    + "for '\(shape.names[offset])', which is \(shape.types[offset].attributeDescription) (stored as "
                    + "\(storage))")
        }
    }
}

/// The storage class a packed cell must have for an attribute type (``StoredValueEncoder``'s encoding).
private enum PackedStorage: CustomStringConvertible {
    case integer, real, text, blob

    init(_ type: AttributeType) {
        switch type {
        case .integer16, .integer32, .integer64, .boolean: self = .integer
        case .double, .float, .date: self = .real
        case .decimal, .string, .uuid, .uri: self = .text
        case .binary, .transformable: self = .blob
        }
    }

    var description: String {
        switch self {
        case .integer: "INTEGER"
        case .real: "REAL"
        case .text: "TEXT"
        case .blob: "BLOB"
        }
    }
}

extension PackedRows.Cell {
    /// The storage class, for messages.
    fileprivate var storageName: String {
        switch self {
        case .null: "NULL"
        case .integer: "INTEGER"
        case .real: "REAL"
        case .text: "TEXT"
        case .blob: "BLOB"
        }
    }
}

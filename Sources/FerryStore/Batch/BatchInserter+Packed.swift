import FerrySQLite

extension BatchInserter {
    /// Inserts ``PackedRows``: each cell bound straight from the packed buffers. A column may name a to-one
    /// relationship, whose integer cells are the destination's primary keys.
    ///
    /// A row with ``PackedRows/Cell/absent`` cells uses the shape of the columns it gives (so an upsert leaves the
    /// others alone). When ``refusedRows`` is set, a row whose shape leaves a mandatory attribute without default
    /// is first probed by its key: stored, it is updated; not stored, it is skipped and listed there.
    ///
    /// - Throws: ``StoreError`` `.invalidBatchRequest` when a cell's storage class does not fit its attribute,
    ///   `.missingMandatoryProperty` for NULL in a non-optional attribute; ``SQLiteError``.
    mutating func insert(packed rows: PackedRows) throws {
        let full = try shape(for: rows.columns, settingForeignKeys: true)
        if upsertsInTableOrder(full) { return try upsertInTableOrder(rows, full: full) }
        let storage = full.types.map(StoredValueCodec.StorageClass.init)
        var present: [Int] = []
        for row in 0..<rows.count {
            rowNumber += 1
            let shape = try packedShape(of: rows, row: row, full: full, present: &present)
            if refusedRows != nil, let missing = shape.omittedMandatory.first,
                try !isStored(rows, row: row, present: present)
            {
                refusedRows?.append(RefusedRow(row: row, reason: Self.refusal(missing, of: mapping.entity)))
                continue
            }
            try write(packed: rows, row: row, present: present, shape: shape, storage: storage)
        }
        if !ignoredRows.isEmpty { try countKept(rows, ignored: ignoredRows, full: full, storage: storage) }
    }

    /// The shape of packed row `row`: `full` when it gives every column, otherwise the shape of the columns it gives.
    /// `present` receives the indexes of those columns.
    mutating func packedShape(of rows: PackedRows, row: Int, full: Shape, present: inout [Int]) throws -> Shape {
        let width = rows.columns.count
        present.removeAll(keepingCapacity: true)
        for column in 0..<width {
            if case .absent = rows.cells[row * width + column] { continue }
            present.append(column)
        }
        return present.count == width
            ? full : try shape(for: present.map { rows.columns[$0] }, settingForeignKeys: true)
    }

    /// Binds packed row `row`'s given cells (at `present`) to `shape`'s statement and writes the row with it.
    mutating func write(
        packed rows: PackedRows, row: Int, present: [Int], shape: Shape, storage: [StoredValueCodec.StorageClass]
    )
        throws
    {
        if history != nil && action == .update {
            pendingHistoryProperties = try changedProperties(
                rows, row: row, present: present, shape: shape, storage: storage)
        }
        defer { pendingHistoryProperties = nil }
        // Text is bound in place (no copy per value): the row's bytes stay put until its step is over, so binding
        // and stepping share one borrow of them.
        try rows.bytes.withUnsafeBytes { bytes in
            try bindPacked(
                rows, bytes: bytes, row: row, present: present, in: shape, storage: storage, borrowsText: true)
            // Only a shape with a key probe binds keys: for the others no closure is made, since an optional closure
            // escapes, and forming one allocated a context (retaining the rows) for every row.
            guard shape.keyProbe != nil else { return try write(shape) }
            // The loop mutates the inserter; closures that capture it would copy the whole inserter per row.
            try write(shape) { probe, offsets in
                try Self.bindKey(of: rows, row: row, present: present, at: offsets, to: probe)
            }
        }
        if countsKeptRows && action == .ignore && lastRowWasIgnored { ignoredRows.append(row) }
    }

    /// Binds packed row `row`'s key cells to a key probe's parameters 1…: `offsets` are the probe's, into the given
    /// columns `present`.
    static func bindKey(of rows: PackedRows, row: Int, present: [Int], at offsets: [Int], to probe: Statement) throws {
        let first = row * rows.columns.count
        try rows.bytes.withUnsafeBytes { bytes in
            for (parameter, offset) in offsets.enumerated() {
                try bindKey(rows.cells[first + present[offset]], bytes: bytes, to: probe, at: parameter + 1)
            }
        }
    }

    /// Binds packed row `row`'s given cells (at `present`) to `shape`'s statement, parameters 1… in order.
    func bindPacked(
        _ rows: PackedRows, row: Int, present: [Int], in shape: Shape, storage: [StoredValueCodec.StorageClass]
    ) throws {
        try rows.bytes.withUnsafeBytes { bytes in
            try bindPacked(
                rows, bytes: bytes, row: row, present: present, in: shape, storage: storage, borrowsText: false)
        }
    }

    /// ``bindPacked(_:row:present:in:storage:)`` from `bytes`, the rows' byte buffer. With `borrowsText`, text is
    /// bound without a copy, so `bytes` must outlive the statement's next step.
    func bindPacked(
        _ rows: PackedRows, bytes: UnsafeRawBufferPointer, row: Int, present: [Int], in shape: Shape,
        storage: [StoredValueCodec.StorageClass], borrowsText: Bool
    ) throws {
        let first = row * rows.columns.count
        for (offset, column) in present.enumerated() {
            try bind(
                rows.cells[first + column], bytes: bytes, in: shape, at: offset, storage: storage[column],
                borrowsText: borrowsText)
        }
    }

    /// Why a new row that leaves out the mandatory attribute `missing` is refused.
    static func refusal(_ missing: String, of entity: String) -> String {
        "no value for '\(missing)', which is required, and no stored \(entity) has this key"
    }

    /// Whether a stored row has the key of packed row `row`, by the first uniqueness constraint whose attributes
    /// the row gives (no such constraint: it cannot match a stored row).
    private func isStored(_ rows: PackedRows, row: Int, present: [Int]) throws -> Bool {
        guard let constraint = constraint(givenBy: present.map { rows.columns[$0] }) else { return false }
        let conditions = constraint.map { SQL.identifier($0) + " IS ?" }.joined(separator: " AND ")
        let ids = mapping.hierarchyIDs.map(String.init).joined(separator: ", ")
        let probe = try connection.cachedStatement(
            "SELECT 1 FROM \(SQL.identifier(mapping.table)) WHERE \(conditions) AND \"_ent\" IN (\(ids)) LIMIT 1")
        defer { probe.reset() }
        for (offset, name) in constraint.enumerated() {
            guard let column = rows.columns.firstIndex(of: name) else { return false }
            let cell = rows.cell(row: row, column: column)
            switch cell {
            case .absent, .null: try probe.bindNull(at: offset + 1)
            case .integer(let value): try probe.bind(value, at: offset + 1)
            case .real(let value): try probe.bind(value, at: offset + 1)
            case .text: try rows.withBytes(of: cell) { try probe.bindText($0, at: offset + 1) }
            case .blob: try rows.withBytes(of: cell) { try probe.bindBlob($0, at: offset + 1) }
            }
        }
        return try probe.step()
    }

    /// Binds a key cell to a key probe's parameter `index`.
    static func bindKey(
        _ cell: PackedRows.Cell, bytes: UnsafeRawBufferPointer, to probe: Statement, at index: Int
    )
        throws
    {
        switch cell {
        case .absent, .null: try probe.bindNull(at: index)
        case .integer(let value): try probe.bind(value, at: index)
        case .real(let value): try probe.bind(value, at: index)
        case .text(let start, let count):
            try probe.bindText(UnsafeRawBufferPointer(rebasing: bytes[start..<start + count]), at: index)
        case .blob(let start, let count):
            try probe.bindBlob(UnsafeRawBufferPointer(rebasing: bytes[start..<start + count]), at: index)
        }
    }

    private func bind(
        _ cell: PackedRows.Cell, bytes: UnsafeRawBufferPointer, in shape: Shape, at offset: Int,
        storage: StoredValueCodec.StorageClass, borrowsText: Bool
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
            let text = UnsafeRawBufferPointer(rebasing: bytes[start..<start + count])
            if borrowsText {
                try statement.bindText(borrowing: text, at: index)
            } else {
                try statement.bindText(text, at: index)
            }
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

extension PackedRows.Cell {
    /// The storage class, for messages.
    fileprivate var storageName: String {
        switch self {
        case .absent: "no value"
        case .null: "NULL"
        case .integer: "INTEGER"
        case .real: "REAL"
        case .text: "TEXT"
        case .blob: "BLOB"
        }
    }
}

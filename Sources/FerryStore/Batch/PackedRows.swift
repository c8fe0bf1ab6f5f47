/// Rows of values already in their stored form, packed into two flat buffers: the importer's hot path into a
/// ``BatchInsertRequest``, with no `String`, `Data` or ``AttributeValue`` per field.
///
/// Cells are appended row by row, one per column, in column order. Text and blob cells copy their bytes into one
/// shared byte buffer, which SQLite binds in place. Each cell must hold the storage class of its attribute
/// (see <doc:SQLiteLayout>): integers and booleans ``Cell/integer(_:)``, doubles, floats and dates (seconds since
/// 1970) ``Cell/real(_:)``, strings, decimals (exact text), UUIDs (lower-case text) and URIs
/// ``Cell/text(offset:count:)``, binary values ``Cell/blob(offset:count:)``. The batch insert checks this and refuses
/// a mismatch.
///
/// ```swift
/// var rows = PackedRows(columns: ["sku", "price"])
/// rows.appendText("SKU-1")           // from a StaticString or a buffer of UTF-8 bytes
/// rows.appendText("9.5")             // decimals are exact text
/// rows.endRow()
/// let request = BatchInsertRequest(entityName: "Product", packedRows: rows)
/// ```
///
/// A row that turns out to be bad halfway can be dropped with ``discardOpenRow()``; buffers are reused after
/// ``removeAll()``.
public struct PackedRows: Sendable {
    /// One value: its storage class, and its payload or where its bytes are.
    public enum Cell: Sendable, Hashable {
        /// No value given: a new row takes the attribute's default, an updated row keeps its stored value (a key
        /// missing from a JSON record).
        case absent
        /// NULL.
        case null
        /// An integer, or a boolean as 0 or 1.
        case integer(Int64)
        /// A double, a float, or a date as seconds since 1970.
        case real(Double)
        /// UTF-8 bytes at `offset..<offset+count` of the byte buffer.
        case text(offset: Int, count: Int)
        /// Bytes at `offset..<offset+count` of the byte buffer.
        case blob(offset: Int, count: Int)
    }

    /// The attribute each cell of a row sets, in order.
    public let columns: [String]
    /// Every complete row's cells, row after row, then the open row's.
    public private(set) var cells = Cells()
    /// The bytes of text and blob cells.
    public private(set) var bytes: [UInt8] = []
    /// The number of complete rows.
    public private(set) var count = 0

    /// Empty rows for `columns` (attribute names).
    public init(columns: [String]) {
        precondition(!columns.isEmpty, "packed rows need at least one column")
        self.columns = columns
    }

    /// Whether there is no complete row.
    public var isEmpty: Bool { count == 0 }

    /// The number of cells the open (incomplete) row has so far.
    public var openRowCellCount: Int { cells.count - count * columns.count }

    /// The open row's last cell so far, `nil` when it has none.
    public var openRowLastCell: Cell? { openRowCellCount > 0 ? cells.last : nil }

    /// The cell of `column` in complete row `row` (both from 0).
    public func cell(row: Int, column: Int) -> Cell {
        precondition(row < count && column < columns.count, "cell (\(row), \(column)) out of range")
        return cells[row * columns.count + column]
    }

    /// Calls `body` with the bytes of a text or blob cell (empty for other cells), without copying them.
    public func withBytes<Result>(of cell: Cell, _ body: (UnsafeRawBufferPointer) throws -> Result) rethrows
        -> Result
    {
        switch cell {
        case .text(let offset, let count), .blob(let offset, let count):
            return try bytes.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[offset..<offset + count])) }
        default:
            return try body(UnsafeRawBufferPointer(start: nil, count: 0))
        }
    }

    // MARK: Appending

    /// Appends a NULL cell.
    public mutating func appendNull() { cells.append(.null) }

    /// Appends a cell that gives no value (see ``Cell/absent``).
    public mutating func appendAbsent() { cells.append(.absent) }

    /// Appends an integer cell (integers and booleans).
    public mutating func appendInteger(_ value: Int64) { cells.append(.integer(value)) }

    /// Appends a real cell (doubles, floats, dates as seconds since 1970).
    public mutating func appendReal(_ value: Double) { cells.append(.real(value)) }

    /// Appends a text cell holding a copy of `utf8`.
    public mutating func appendText(_ utf8: UnsafeRawBufferPointer) {
        cells.append(.text(offset: bytes.count, count: utf8.count))
        bytes.append(contentsOf: utf8)
    }

    /// Appends a text cell holding `text`.
    public mutating func appendText(_ text: StaticString) {
        appendText(UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Appends a text cell whose bytes `write` produces: it gets room for `capacity` bytes and returns how many it
    /// wrote (at most `capacity`). No intermediate buffer.
    public mutating func appendText(capacity: Int, _ write: (UnsafeMutableRawBufferPointer) -> Int) {
        let start = bytes.count
        bytes.append(contentsOf: repeatElement(0, count: capacity))
        let written = bytes.withUnsafeMutableBytes { write(UnsafeMutableRawBufferPointer(rebasing: $0[start...])) }
        precondition(written >= 0 && written <= capacity, "wrote \(written) bytes into room for \(capacity)")
        bytes.removeLast(capacity - written)
        cells.append(.text(offset: start, count: written))
    }

    /// Appends a blob cell holding a copy of `data`.
    public mutating func appendBlob(_ data: UnsafeRawBufferPointer) {
        cells.append(.blob(offset: bytes.count, count: data.count))
        bytes.append(contentsOf: data)
    }

    /// Closes the open row, which must have one cell per column.
    public mutating func endRow() {
        precondition(
            openRowCellCount == columns.count, "a row has \(openRowCellCount) cells for \(columns.count) columns")
        count += 1
    }

    /// Drops the open row's cells (and their bytes), as if it had never been started.
    public mutating func discardOpenRow() {
        let first = count * columns.count
        guard first < cells.count else { return }
        for cell in cells[first...] {
            if case .text(let offset, _) = cell { return truncate(cellsTo: first, bytesTo: offset) }
            if case .blob(let offset, _) = cell { return truncate(cellsTo: first, bytesTo: offset) }
        }
        cells.removeSubrange(from: first)
    }

    /// Replaces the cell of `column` in complete row `row` with an integer or NULL cell (the importer fills in
    /// primary keys it resolved after packing the row).
    public mutating func replaceCell(row: Int, column: Int, with cell: Cell) {
        precondition(row < count && column < columns.count, "cell (\(row), \(column)) out of range")
        switch cell {
        case .absent, .null, .integer, .real: cells.set(cell, at: row * columns.count + column)
        case .text, .blob: preconditionFailure("only integer, real or NULL cells can replace a cell")
        }
    }

    /// Keeps the complete rows at `order` (distinct row indexes), in that order. Only the cells move, in place:
    /// text and blob cells keep pointing into the same bytes (a dropped row's bytes stay until ``removeAll()``), so
    /// reordering a chunk holds no second copy of it.
    public mutating func reorder(_ order: [Int]) {
        precondition(openRowCellCount == 0, "reorder with a row open")
        // Rows left out go after the kept ones, making a permutation of every row, which is applied cycle by cycle
        // (row `i` receives row `permutation[i]`); the rows left out are then cut off.
        var placed = [Bool](repeating: false, count: count)
        var permutation = order
        permutation.reserveCapacity(count)
        for row in order {
            precondition(row >= 0 && row < count && !placed[row], "row \(row) is out of range or given twice")
            placed[row] = true
        }
        for row in 0..<count where !placed[row] { permutation.append(row) }
        let width = columns.count
        var held: [Cells.Slot] = []
        held.reserveCapacity(width)
        var done = [Bool](repeating: false, count: count)
        let rowCount = count
        cells.slots.withUnsafeMutableBufferPointer { cells in
            for start in 0..<rowCount where !done[start] && permutation[start] != start {
                held.removeAll(keepingCapacity: true)
                held.append(contentsOf: cells[start * width..<(start + 1) * width])
                var target = start
                while true {
                    done[target] = true
                    let source = permutation[target]
                    if source == start {
                        for column in 0..<width { cells[target * width + column] = held[column] }
                        break
                    }
                    for column in 0..<width { cells[target * width + column] = cells[source * width + column] }
                    target = source
                }
            }
        }
        cells.removeSubrange(order.count * width..<count * width)
        count = order.count
    }

    /// Reserves room for `rows` rows holding `bytes` bytes of text and blobs in all.
    ///
    /// The byte room is a total, not a size per row: a caller sizes it by the bytes it has seen (the last chunk's),
    /// so one large record never makes every row of the next chunk as large. Beyond it, the buffer grows as an array
    /// does (doubling), so appending stays amortized constant time.
    public mutating func reserveCapacity(rows: Int, bytes byteCount: Int) {
        cells.reserveCapacity(rows * columns.count)
        bytes.reserveCapacity(byteCount)
    }

    /// Removes every row, keeping the buffers' capacity.
    public mutating func removeAll() {
        cells.removeAll(keepingCapacity: true)
        bytes.removeAll(keepingCapacity: true)
        count = 0
    }

    private mutating func truncate(cellsTo cellCount: Int, bytesTo byteCount: Int) {
        cells.removeSubrange(from: cellCount)
        bytes.removeSubrange(byteCount...)
    }
}

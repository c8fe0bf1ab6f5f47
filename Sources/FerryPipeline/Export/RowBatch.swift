import FerryStore

/// Rows copied out of SQLite's buffers into one block of memory, so that one thread can step the statement while
/// another formats the rows read before (see ``RowBatchPipe``).
///
/// A row is laid out as its size in bytes (8 bytes), then one 16-byte slot per column (the value, or where its
/// bytes start counted from the row's start, 8 bytes; the length of text or a blob, 4 bytes; the storage class,
/// 1 byte), then the text and blob bytes; each row starts on an 8-byte boundary. Filling a batch copies bytes and
/// allocates nothing, except for a row larger than the whole block, which grows it.
final class RowBatch {
    /// The column count of every row.
    let columnCount: Int
    /// The rows' memory.
    private var base: UnsafeMutableRawPointer
    private var capacity: Int
    /// Where each row starts, counted from `base`: room for as many rows as the smallest rows fill the memory with.
    private var starts: UnsafeMutablePointer<Int>
    /// Bytes taken by the rows so far.
    private var used = 0
    /// The rows held.
    private(set) var rowCount = 0
    /// Whether the rows end with this batch (set by the reading thread).
    var isLast = false

    private static let headerBytes = 8
    private static let slotBytes = 16

    /// An empty batch of `byteCount` bytes (at least room for one row of `columnCount` columns without text).
    init(columnCount: Int, byteCount: Int) {
        self.columnCount = columnCount
        capacity = Self.rounded(max(byteCount, Self.headerBytes + columnCount * Self.slotBytes))
        base = .allocate(byteCount: capacity, alignment: 8)
        starts = .allocate(capacity: Self.maxRows(capacity, columnCount))
    }

    deinit {
        base.deallocate()
        starts.deallocate()
    }

    /// The most rows `capacity` bytes hold (rows without text or blobs).
    private static func maxRows(_ capacity: Int, _ columnCount: Int) -> Int {
        capacity / rounded(headerBytes + columnCount * slotBytes) + 1
    }

    /// Drops every row, keeping the memory.
    func removeAll() {
        used = 0
        rowCount = 0
        isLast = false
    }

    /// Copies the current row of `rows` in; `false` (and nothing kept of it) when it does not fit in the room left.
    @inline(__always)
    func append(_ rows: SnapshotRows) -> Bool {
        let row = base + used
        var end = used + Self.headerBytes + columnCount * Self.slotBytes
        guard end <= capacity else { return false }
        for index in 0..<columnCount {
            let slot = row + Self.headerBytes + index &* Self.slotBytes
            switch rows.cell(at: index) {
            case .null:
                slot.storeBytes(of: Tag.null.rawValue, toByteOffset: 12, as: UInt8.self)
            case .integer(let value):
                slot.storeBytes(of: value, as: Int64.self)
                slot.storeBytes(of: Tag.integer.rawValue, toByteOffset: 12, as: UInt8.self)
            case .real(let value):
                slot.storeBytes(of: value.bitPattern, as: UInt64.self)
                slot.storeBytes(of: Tag.real.rawValue, toByteOffset: 12, as: UInt8.self)
            case .text(let bytes):
                guard copy(bytes, to: slot, tag: .text, rowStart: row, end: &end) else { return false }
            case .blob(let bytes):
                guard copy(bytes, to: slot, tag: .blob, rowStart: row, end: &end) else { return false }
            }
        }
        let size = Self.rounded(end - used)
        row.storeBytes(of: size, as: Int.self)
        starts[rowCount] = used
        used += size
        rowCount += 1
        return true
    }

    /// Makes room for the current row of `rows` in an empty batch, however large it is.
    func reserveRoom(for rows: SnapshotRows) {
        precondition(rowCount == 0, "a batch grows only while empty")
        var needed = Self.headerBytes + columnCount * Self.slotBytes
        for index in 0..<columnCount {
            switch rows.cell(at: index) {
            case .text(let bytes), .blob(let bytes): needed += bytes.count
            default: break
            }
        }
        grow(toHold: needed)
    }

    /// Replaces the memory of an empty batch with `byteCount` bytes when it has less.
    private func grow(toHold byteCount: Int) {
        guard byteCount > capacity else { return }
        base.deallocate()
        starts.deallocate()
        capacity = Self.rounded(byteCount)
        base = .allocate(byteCount: capacity, alignment: 8)
        starts = .allocate(capacity: Self.maxRows(capacity, columnCount))
    }

    /// Replaces the rows with `byteCount` bytes of whole rows laid out as ``append(_:)`` lays them out (rows a
    /// batch held, set aside and read back), which `fill` writes into the batch's memory, grown when needed.
    func replaceRows(byteCount: Int, fill: (UnsafeMutableRawBufferPointer) throws -> Void) rethrows {
        removeAll()
        grow(toHold: byteCount)
        try fill(UnsafeMutableRawBufferPointer(start: base, count: byteCount))
        while used < byteCount {
            starts[rowCount] = used
            used += base.load(fromByteOffset: used, as: Int.self)
            rowCount += 1
        }
        precondition(used == byteCount, "bytes that do not end with a whole row")
    }

    /// Row `index` (below ``rowCount``).
    @inline(__always)
    func row(at index: Int) -> Row {
        Row(start: UnsafeRawPointer(base + starts[index]))
    }

    /// Calls `body` with each row, in order.
    @inline(__always)
    func forEachRow(_ body: (Row) throws -> Void) rethrows {
        var row = UnsafeRawPointer(base)
        for _ in 0..<rowCount {
            try body(Row(start: row))
            row += row.load(as: Int.self)
        }
    }

    @inline(__always)
    private func copy(
        _ bytes: UnsafeRawBufferPointer, to slot: UnsafeMutableRawPointer, tag: Tag, rowStart: UnsafeMutableRawPointer,
        end: inout Int
    ) -> Bool {
        guard bytes.count <= capacity - end else { return false }
        let target = base + end
        if let source = bytes.baseAddress { target.copyMemory(from: source, byteCount: bytes.count) }
        slot.storeBytes(of: Int64(target - rowStart), as: Int64.self)
        slot.storeBytes(of: UInt32(truncatingIfNeeded: bytes.count), toByteOffset: 8, as: UInt32.self)
        slot.storeBytes(of: tag.rawValue, toByteOffset: 12, as: UInt8.self)
        end += bytes.count
        return true
    }

    private static func rounded(_ count: Int) -> Int { (count + 7) & ~7 }

    /// A slot's storage class.
    enum Tag: UInt8 {
        case null, integer, real, text, blob
    }

    /// One row of a batch, valid while the batch holds it.
    struct Row: ExportRow {
        let start: UnsafeRawPointer

        /// The row's bytes, as ``RowBatch/replaceRows(byteCount:fill:)`` takes them back.
        var bytes: UnsafeRawBufferPointer {
            UnsafeRawBufferPointer(start: start, count: start.load(as: Int.self))
        }

        @inline(__always)
        private func slot(_ index: Int) -> UnsafeRawPointer {
            start + RowBatch.headerBytes + index &* RowBatch.slotBytes
        }

        @inline(__always)
        private func tag(_ index: Int) -> Tag {
            Tag(rawValue: slot(index).load(fromByteOffset: 12, as: UInt8.self)) ?? .null
        }

        func storageClass(at index: Int) -> StoredValueCodec.StorageClass? {
            switch tag(index) {
            case .null: nil
            case .integer: .integer
            case .real: .real
            case .text: .text
            case .blob: .blob
            }
        }

        func int64(at index: Int) -> Int64 {
            switch tag(index) {
            case .integer: return slot(index).load(as: Int64.self)
            case .real:
                // SQLite's conversion: towards zero, clamped to the integer range.
                let value = Double(bitPattern: slot(index).load(as: UInt64.self))
                guard !value.isNaN else { return 0 }
                return value >= 0x1p63 ? .max : value < -0x1p63 ? .min : Int64(value)
            default: return 0
            }
        }

        func double(at index: Int) -> Double {
            switch tag(index) {
            case .integer: Double(slot(index).load(as: Int64.self))
            case .real: Double(bitPattern: slot(index).load(as: UInt64.self))
            default: 0
            }
        }

        func withTextBytes<Result>(at index: Int, _ body: (UnsafeRawBufferPointer) throws -> Result) rethrows
            -> Result
        {
            try body(bytes(index))
        }

        func withBlobBytes<Result>(at index: Int, _ body: (UnsafeRawBufferPointer) throws -> Result) rethrows
            -> Result
        {
            try body(bytes(index))
        }

        /// The bytes of a text or blob column; empty for the others.
        @inline(__always)
        private func bytes(_ index: Int) -> UnsafeRawBufferPointer {
            let slot = slot(index)
            switch tag(index) {
            case .text, .blob:
                return UnsafeRawBufferPointer(
                    start: start + Int(slot.load(as: Int64.self)),
                    count: Int(slot.load(fromByteOffset: 8, as: UInt32.self)))
            default:
                return UnsafeRawBufferPointer(start: nil, count: 0)
            }
        }
    }
}

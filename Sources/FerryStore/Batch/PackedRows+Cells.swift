extension PackedRows {
    /// The cells of packed rows, 16 bytes each: a ``Cell`` as an enum takes 24 (a 16-byte payload, a tag byte and
    /// its padding), and cells are most of a chunk's memory (ten columns of 50,000 rows are 500,000 cells).
    ///
    /// Reading a cell gives the ``Cell`` it holds; cells are appended and changed only through ``PackedRows``.
    public struct Cells: RandomAccessCollection, Sendable {
        /// One cell: the integer, the bits of the double, or the offset of the bytes; their count; the kind.
        struct Slot: Sendable {
            var payload: UInt64
            var count: UInt32
            var kind: Kind

            enum Kind: UInt8, Sendable {
                case absent, null, integer, real, text, blob
            }

            init(_ cell: Cell) {
                switch cell {
                case .absent: self.init(payload: 0, count: 0, kind: .absent)
                case .null: self.init(payload: 0, count: 0, kind: .null)
                case .integer(let value): self.init(payload: UInt64(bitPattern: value), count: 0, kind: .integer)
                case .real(let value): self.init(payload: value.bitPattern, count: 0, kind: .real)
                case .text(let offset, let count): self.init(bytesAt: offset, count: count, kind: .text)
                case .blob(let offset, let count): self.init(bytesAt: offset, count: count, kind: .blob)
                }
            }

            init(payload: UInt64, count: UInt32, kind: Kind) {
                self.payload = payload
                self.count = count
                self.kind = kind
            }

            private init(bytesAt offset: Int, count: Int, kind: Kind) {
                precondition(offset >= 0 && count >= 0 && count <= Int(UInt32.max), "a value of \(count) bytes")
                self.init(payload: UInt64(offset), count: UInt32(count), kind: kind)
            }

            var cell: Cell {
                switch kind {
                case .absent: .absent
                case .null: .null
                case .integer: .integer(Int64(bitPattern: payload))
                case .real: .real(Double(bitPattern: payload))
                case .text: .text(offset: Int(payload), count: Int(count))
                case .blob: .blob(offset: Int(payload), count: Int(count))
                }
            }
        }

        var slots: [Slot] = []

        /// The first cell's index (0).
        public var startIndex: Int { 0 }
        /// One past the last cell's index.
        public var endIndex: Int { slots.count }

        /// The cell at `position`.
        public subscript(position: Int) -> Cell { slots[position].cell }

        mutating func append(_ cell: Cell) { slots.append(Slot(cell)) }

        mutating func set(_ cell: Cell, at position: Int) { slots[position] = Slot(cell) }

        mutating func reserveCapacity(_ count: Int) { slots.reserveCapacity(count) }

        mutating func removeAll(keepingCapacity: Bool) { slots.removeAll(keepingCapacity: keepingCapacity) }

        mutating func removeSubrange(from start: Int) { slots.removeSubrange(start...) }

        mutating func removeSubrange(_ range: Range<Int>) { slots.removeSubrange(range) }
    }
}

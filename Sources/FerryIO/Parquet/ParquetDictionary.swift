#if canImport(Glibc)
    import Glibc
#else
    import Darwin
#endif

/// The distinct values of one column chunk, kept as the PLAIN encoding of its dictionary page, with an
/// open-addressing hash table from a value's bytes to its index.
///
/// Values are looked up by their raw bytes (a number's little-endian bytes, a string's UTF-8), so one table serves
/// every physical type and a lookup allocates nothing; the buffers grow only when a new value does not fit.
struct ParquetDictionary {
    /// The dictionary page's body: each entry's PLAIN encoding, in index order.
    private var plain: [UInt8] = []
    /// Where each entry's value bytes start in ``plain`` (after a byte array's length prefix), and how long: side by
    /// side, so that a probe reads both from one cache line.
    private var entries: [Entry] = []
    /// Entry index + 1 for each slot; 0 is empty.
    private var slots: [Int32]
    private var mask: Int
    /// Whether entries carry PLAIN's 4-byte length prefix (byte arrays) or not (fixed-width values).
    let isLengthPrefixed: Bool

    /// The number of entries.
    var count: Int { entries.count }
    /// The size of the dictionary page's body.
    var plainCount: Int { plain.count }

    /// Hands the dictionary page's body (valid only during the call) to `body`.
    func withPlainBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try plain.withUnsafeBytes(body)
    }

    /// An empty dictionary for byte arrays (`isLengthPrefixed`) or fixed-width values. Entries are stored as
    /// 32-bit offsets: a chunk's dictionary stays far below 2 GiB since it stops at the writer's dictionary limit.
    init(isLengthPrefixed: Bool) {
        self.isLengthPrefixed = isLengthPrefixed
        slots = [Int32](repeating: 0, count: 1024)
        mask = 1023
    }

    /// Empties the dictionary for the next column chunk, keeping its buffers.
    mutating func reset() {
        plain.removeAll(keepingCapacity: true)
        entries.removeAll(keepingCapacity: true)
        for index in slots.indices { slots[index] = 0 }
    }

    /// The index of `value`, added when new; `isNew` says whether it was.
    @inline(__always)
    mutating func index(of value: UnsafeRawBufferPointer) -> (index: UInt32, isNew: Bool) {
        var slot = Int(truncatingIfNeeded: Self.hash(value)) & mask
        while true {
            let entry = Int(slots[slot])
            if entry == 0 { break }
            if Int(entries[entry - 1].length) == value.count && matches(entry - 1, value) {
                return (UInt32(entry - 1), false)
            }
            slot = (slot + 1) & mask
        }
        let index = entries.count
        if isLengthPrefixed {
            withUnsafeBytes(of: UInt32(value.count).littleEndian) { plain.append(contentsOf: $0) }
        }
        entries.append(Entry(start: Int32(plain.count), length: Int32(value.count)))
        plain.append(contentsOf: value)
        slots[slot] = Int32(index + 1)
        if entries.count * 2 > slots.count { grow() }
        return (UInt32(index), true)
    }

    private func matches(_ entry: Int, _ value: UnsafeRawBufferPointer) -> Bool {
        guard let source = value.baseAddress else { return true }
        let start = Int(entries[entry].start)
        return plain.withUnsafeBytes { stored in
            memcmp(stored.baseAddress.unsafelyUnwrapped + start, source, value.count) == 0
        }
    }

    private mutating func grow() {
        var slots = [Int32](repeating: 0, count: self.slots.count * 2)
        let mask = slots.count - 1
        plain.withUnsafeBytes { stored in
            for entry in entries.indices {
                let start = Int(entries[entry].start)
                let value = UnsafeRawBufferPointer(rebasing: stored[start..<(start + Int(entries[entry].length))])
                var slot = Int(truncatingIfNeeded: Self.hash(value)) & mask
                while slots[slot] != 0 { slot = (slot + 1) & mask }
                slots[slot] = Int32(entry + 1)
            }
        }
        self.slots = slots
        self.mask = mask
    }

    /// Where an entry's value bytes are in ``plain``.
    private struct Entry {
        var start: Int32
        var length: Int32
    }

    /// A 64-bit hash of `bytes`, eight at a time.
    @inline(__always)
    static func hash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var hash: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ UInt64(bytes.count)
        var offset = 0
        while offset + 8 <= bytes.count {
            hash = mix(hash ^ bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            offset += 8
        }
        if offset < bytes.count {
            var tail: UInt64 = 0
            for position in offset..<bytes.count {
                tail = tail << 8 | UInt64(bytes[position])
            }
            hash = mix(hash ^ tail)
        }
        return mix(hash)
    }

    @inline(__always)
    private static func mix(_ value: UInt64) -> UInt64 {
        var value = value &* 0xBF58_476D_1CE4_E5B9
        value ^= value >> 31
        value = value &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 29)
    }
}

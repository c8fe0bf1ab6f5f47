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
final class ParquetDictionary {
    /// The dictionary page's body: each entry's PLAIN encoding, in index order.
    private(set) var plain: [UInt8] = []
    /// Where each entry's value bytes start in ``plain`` (after a byte array's length prefix), and how long.
    private var starts: [Int] = []
    private var lengths: [Int] = []
    /// Entry index + 1 for each slot; 0 is empty.
    private var slots: [Int32]
    private var mask: Int
    /// Whether entries carry PLAIN's 4-byte length prefix (byte arrays) or not (fixed-width values).
    let isLengthPrefixed: Bool

    /// The number of entries.
    var count: Int { starts.count }

    /// An empty dictionary for byte arrays (`isLengthPrefixed`) or fixed-width values.
    init(isLengthPrefixed: Bool) {
        self.isLengthPrefixed = isLengthPrefixed
        slots = [Int32](repeating: 0, count: 1024)
        mask = 1023
    }

    /// Empties the dictionary for the next column chunk, keeping its buffers.
    func reset() {
        plain.removeAll(keepingCapacity: true)
        starts.removeAll(keepingCapacity: true)
        lengths.removeAll(keepingCapacity: true)
        for index in slots.indices { slots[index] = 0 }
    }

    /// The index of `value`, added when new; `isNew` says whether it was.
    @inline(__always)
    func index(of value: UnsafeRawBufferPointer) -> (index: UInt32, isNew: Bool) {
        var slot = Int(truncatingIfNeeded: Self.hash(value)) & mask
        while true {
            let entry = Int(slots[slot])
            if entry == 0 { break }
            if lengths[entry - 1] == value.count && matches(entry - 1, value) {
                return (UInt32(entry - 1), false)
            }
            slot = (slot + 1) & mask
        }
        let index = starts.count
        if isLengthPrefixed {
            withUnsafeBytes(of: UInt32(value.count).littleEndian) { plain.append(contentsOf: $0) }
        }
        starts.append(plain.count)
        lengths.append(value.count)
        plain.append(contentsOf: value)
        slots[slot] = Int32(index + 1)
        if starts.count * 2 > slots.count { grow() }
        return (UInt32(index), true)
    }

    private func matches(_ entry: Int, _ value: UnsafeRawBufferPointer) -> Bool {
        guard let source = value.baseAddress else { return true }
        let start = starts[entry]
        return plain.withUnsafeBytes { stored in
            memcmp(stored.baseAddress.unsafelyUnwrapped + start, source, value.count) == 0
        }
    }

    private func grow() {
        slots = [Int32](repeating: 0, count: slots.count * 2)
        mask = slots.count - 1
        plain.withUnsafeBytes { stored in
            for entry in starts.indices {
                let value = UnsafeRawBufferPointer(rebasing: stored[starts[entry]..<(starts[entry] + lengths[entry])])
                var slot = Int(truncatingIfNeeded: Self.hash(value)) & mask
                while slots[slot] != 0 { slot = (slot + 1) & mask }
                slots[slot] = Int32(entry + 1)
            }
        }
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

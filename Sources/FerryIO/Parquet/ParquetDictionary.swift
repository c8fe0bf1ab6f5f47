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
///
/// Each slot of the table holds everything a probe compares: 32 bits of the value's hash, its index, and either the
/// value itself (a number of up to 8 bytes) or where its bytes are in the dictionary page (anything longer, and every
/// byte array). A probe for a number therefore reads one slot and nothing else, and a probe for a byte array reads
/// the stored bytes only when the hashes agree, so that a lookup touches one or two cache lines instead of three.
struct ParquetDictionary {
    /// The dictionary page's body: each entry's PLAIN encoding, in index order.
    private var plain: [UInt8] = []
    private var slots: [Slot]
    private var mask: Int
    /// The number of entries.
    private(set) var count = 0
    /// Whether entries carry PLAIN's 4-byte length prefix (byte arrays) or not (fixed-width values).
    let isLengthPrefixed: Bool
    /// The dictionary page size past which the table grows only when three quarters full: the column writer stops
    /// adding values there.
    private let plainLimit: Int

    /// The size of the dictionary page's body.
    var plainCount: Int { plain.count }

    /// Hands the dictionary page's body (valid only during the call) to `body`.
    func withPlainBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try plain.withUnsafeBytes(body)
    }

    /// An empty dictionary for byte arrays (`isLengthPrefixed`) or fixed-width values, used until its page passes
    /// `plainLimit` bytes. Entries are kept as 32-bit offsets: a chunk's dictionary stays far below 2 GiB since it
    /// stops at the writer's dictionary limit.
    init(isLengthPrefixed: Bool, plainLimit: Int = .max) {
        self.isLengthPrefixed = isLengthPrefixed
        self.plainLimit = plainLimit
        slots = [Slot](repeating: Slot(), count: 1024)
        mask = 1023
    }

    /// Empties the dictionary for the next column chunk, keeping its buffers.
    mutating func reset() {
        plain.removeAll(keepingCapacity: true)
        count = 0
        slots.withUnsafeMutableBufferPointer { slots in
            for index in slots.indices { slots[index] = Slot() }
        }
    }

    /// The index of `value`, added when new; `isNew` says whether it was.
    @inline(__always)
    mutating func index(of value: UnsafeRawBufferPointer) -> (index: UInt32, isNew: Bool) {
        let inline = !isLengthPrefixed && value.count <= 8
        let key = inline ? Self.word(value) : 0
        let hash = inline ? UInt32(truncatingIfNeeded: Self.mix(key ^ 0x9E37_79B9_7F4A_7C15) >> 32) : Self.hash(value)
        var slot = Int(hash) & mask
        let found: UInt32? = slots.withUnsafeBufferPointer { slots in
            while true {
                let candidate = slots[slot]
                if candidate.entry == 0 { return nil }
                if candidate.hash == hash {
                    if inline {
                        if candidate.payload == key { return candidate.entry - 1 }
                    } else if matches(candidate.payload, value) {
                        return candidate.entry - 1
                    }
                }
                slot = (slot + 1) & mask
            }
        }
        if let found { return (found, false) }
        let index = count
        if isLengthPrefixed {
            withUnsafeBytes(of: UInt32(value.count).littleEndian) { plain.append(contentsOf: $0) }
        }
        let payload = inline ? key : UInt64(UInt32(plain.count)) | UInt64(UInt32(value.count)) << 32
        plain.append(contentsOf: value)
        slots[slot] = Slot(hash: hash, entry: UInt32(index + 1), payload: payload)
        count += 1
        // Half full at most while the dictionary is in use; past its limit (where the writer stops adding), three
        // quarters, so that the table does not double for the one entry that ends the dictionary.
        if count * 2 > slots.count && (plain.count <= plainLimit || count * 4 > slots.count * 3) { grow() }
        return (UInt32(index), true)
    }

    /// Whether the entry stored at `payload` (its start and length) holds `value`'s bytes.
    @inline(__always)
    private func matches(_ payload: UInt64, _ value: UnsafeRawBufferPointer) -> Bool {
        guard Int(payload >> 32) == value.count else { return false }
        guard let source = value.baseAddress else { return true }
        let start = Int(UInt32(truncatingIfNeeded: payload))
        return plain.withUnsafeBytes { stored in
            memcmp(stored.baseAddress.unsafelyUnwrapped + start, source, value.count) == 0
        }
    }

    /// Doubles the table, placing each entry by the hash its slot keeps.
    private mutating func grow() {
        var grown = [Slot](repeating: Slot(), count: slots.count * 2)
        let mask = grown.count - 1
        grown.withUnsafeMutableBufferPointer { grown in
            for old in slots where old.entry != 0 {
                var slot = Int(old.hash) & mask
                while grown[slot].entry != 0 { slot = (slot + 1) & mask }
                grown[slot] = old
            }
        }
        slots = grown
        self.mask = mask
    }

    /// One place in the table: empty when `entry` is 0.
    private struct Slot {
        /// 32 bits of the value's hash.
        var hash: UInt32 = 0
        /// The entry's index + 1; 0 for an empty slot.
        var entry: UInt32 = 0
        /// A number's bytes (up to 8, little-endian, zero-padded), or for longer values and byte arrays where the
        /// value's bytes start in the page (low 32 bits) and their length (high 32 bits).
        var payload: UInt64 = 0
    }

    /// Up to 8 bytes as one zero-padded word.
    @inline(__always)
    private static func word(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        if bytes.count == 8 { return bytes.loadUnaligned(as: UInt64.self) }
        if bytes.count == 4 { return UInt64(bytes.loadUnaligned(as: UInt32.self)) }
        var word: UInt64 = 0
        for position in 0..<bytes.count { word |= UInt64(bytes[position]) << (8 * UInt64(position)) }
        return word
    }

    /// A 32-bit hash of `bytes`, eight at a time.
    @inline(__always)
    static func hash(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
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
        return UInt32(truncatingIfNeeded: mix(hash) >> 32)
    }

    @inline(__always)
    private static func mix(_ value: UInt64) -> UInt64 {
        var value = value &* 0xBF58_476D_1CE4_E5B9
        value ^= value >> 31
        value = value &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 29)
    }
}

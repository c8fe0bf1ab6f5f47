#if canImport(Glibc)
    import Glibc
#else
    import Darwin
#endif

/// The minimum, maximum and null count of one column chunk, kept as values arrive.
///
/// Integers (and booleans, as 0 and 1) compare as signed numbers; floating-point values by value, NaN left out (as
/// the format asks), with −0 as the minimum and +0 as the maximum when zero is an extreme; strings, binaries and
/// UUIDs by unsigned bytes; decimals stored as fixed-length bytes by two's complement. A byte value longer than
/// ``maxBytesLength`` leaves the chunk without a minimum and maximum (its null count stays): writing it out in the
/// footer would make the footer as large as the data.
struct ParquetStatistics {
    /// Byte values longer than this give no minimum and maximum.
    static let maxBytesLength = 4096

    let order: ParquetSortOrder
    private(set) var nullCount: Int64 = 0
    private(set) var hasRange = false
    private var minInteger: Int64 = 0
    private var maxInteger: Int64 = 0
    private var minReal: Double = 0
    private var maxReal: Double = 0
    private var minBytes: [UInt8] = []
    private var maxBytes: [UInt8] = []
    /// The first 8 bytes of ``minBytes`` and ``maxBytes`` as big-endian words, zero-padded: a value whose own first
    /// word differs from one of them compares to it without reading the stored bytes.
    private var minPrefix: UInt64 = 0
    private var maxPrefix: UInt64 = 0
    private var bytesTooLong = false

    init(order: ParquetSortOrder) {
        self.order = order
    }

    /// Forgets everything, for the next chunk, keeping buffers.
    mutating func reset() {
        nullCount = 0
        hasRange = false
        bytesTooLong = false
        minBytes.removeAll(keepingCapacity: true)
        maxBytes.removeAll(keepingCapacity: true)
    }

    mutating func addNull() { nullCount += 1 }

    @inline(__always)
    mutating func add(integer value: Int64) {
        if !hasRange {
            (minInteger, maxInteger, hasRange) = (value, value, true)
        } else if value < minInteger {
            minInteger = value
        } else if value > maxInteger {
            maxInteger = value
        }
    }

    @inline(__always)
    mutating func add(real value: Double) {
        guard !value.isNaN else { return }
        if !hasRange {
            (minReal, maxReal, hasRange) = (value, value, true)
        } else {
            if value < minReal || (value == 0 && minReal == 0 && value.sign == .minus) { minReal = value }
            if value > maxReal || (value == 0 && maxReal == 0 && value.sign == .plus) { maxReal = value }
        }
    }

    @inline(__always)
    mutating func add(bytes value: UnsafeRawBufferPointer) {
        guard !bytesTooLong else { return }
        guard value.count <= Self.maxBytesLength else {
            bytesTooLong = true
            return
        }
        let prefix = Self.prefix(value)
        if !hasRange {
            minBytes.replaceSubrange(minBytes.indices, with: value)
            maxBytes.replaceSubrange(maxBytes.indices, with: value)
            (minPrefix, maxPrefix, hasRange) = (prefix, prefix, true)
            return
        }
        if order == .signedBytes {
            if compare(value, minBytes) < 0 {
                minBytes.replaceSubrange(minBytes.indices, with: value)
            } else if compare(value, maxBytes) > 0 {
                maxBytes.replaceSubrange(maxBytes.indices, with: value)
            }
            return
        }
        // Unsigned bytes: the zero-padded first words order the values unless they are equal.
        if prefix < minPrefix || (prefix == minPrefix && compare(value, minBytes) < 0) {
            minBytes.replaceSubrange(minBytes.indices, with: value)
            minPrefix = prefix
        } else if prefix > maxPrefix || (prefix == maxPrefix && compare(value, maxBytes) > 0) {
            maxBytes.replaceSubrange(maxBytes.indices, with: value)
            maxPrefix = prefix
        }
    }

    /// The first 8 bytes of `value` as a big-endian word, zero-padded: when two values' words differ, they order
    /// the values as their bytes do (a shorter value's padding is below any byte but a zero one, which the longer
    /// value then has at the same place, making the words equal).
    @inline(__always)
    private static func prefix(_ value: UnsafeRawBufferPointer) -> UInt64 {
        if value.count >= 8 { return UInt64(bigEndian: value.loadUnaligned(as: UInt64.self)) }
        var word: UInt64 = 0
        for position in 0..<value.count { word |= UInt64(value[position]) << (56 - 8 * UInt64(position)) }
        return word
    }

    /// The minimum and maximum as the footer's `min_value` and `max_value` for `physical`; `nil` when there are
    /// none (only nulls, only NaN, or a byte value too long).
    func encodedRange(_ physical: ParquetPhysicalType) -> (min: [UInt8], max: [UInt8])? {
        guard hasRange, !bytesTooLong else { return nil }
        switch physical {
        case .boolean: return ([UInt8(minInteger)], [UInt8(maxInteger)])
        case .int32: return (Self.bytes(of: Int32(truncatingIfNeeded: minInteger)), Self.bytes(of: Int32(truncatingIfNeeded: maxInteger)))
        case .int64: return (Self.bytes(of: minInteger), Self.bytes(of: maxInteger))
        case .float: return (Self.bytes(of: Float(minReal).bitPattern), Self.bytes(of: Float(maxReal).bitPattern))
        case .double: return (Self.bytes(of: minReal.bitPattern), Self.bytes(of: maxReal.bitPattern))
        case .byteArray, .fixedLenByteArray: return (minBytes, maxBytes)
        }
    }

    private static func bytes<Value: FixedWidthInteger>(of value: Value) -> [UInt8] {
        withUnsafeBytes(of: value.littleEndian) { Array($0) }
    }

    /// Compares by unsigned bytes, or, for ``ParquetSortOrder/signedBytes``, as big-endian two's complement of
    /// equal length.
    private func compare(_ value: UnsafeRawBufferPointer, _ stored: [UInt8]) -> Int {
        stored.withUnsafeBytes { stored in
            if order == .signedBytes, let first = value.first, let storedFirst = stored.first {
                let (left, right) = (Int8(bitPattern: first), Int8(bitPattern: storedFirst))
                if left != right { return left < right ? -1 : 1 }
            }
            let common = min(value.count, stored.count)
            if common > 0, let left = value.baseAddress, let right = stored.baseAddress {
                let result = memcmp(left, right, common)
                if result != 0 { return Int(result) }
            }
            return value.count == stored.count ? 0 : value.count < stored.count ? -1 : 1
        }
    }
}

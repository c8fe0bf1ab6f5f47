/// A growable run of fixed-width values (bytes, levels, dictionary indices) in memory of its own, for a column
/// writer's open page.
///
/// Appending checks the capacity and nothing else: an array's append also checks that its storage is not shared
/// (copy on write), once per value, which the column writers paid millions of times per file. The buffer is a value
/// whose memory is released only by ``deallocate()``: its owner (a column writer, kept in memory of the
/// ``ParquetWriter``'s own) calls it once, and never copies the buffer.
struct ParquetBuffer<Element: FixedWidthInteger> {
    /// The first element.
    private(set) var base: UnsafeMutablePointer<Element>
    /// The number of elements held.
    private(set) var count = 0
    /// The elements the memory holds before the buffer grows.
    private(set) var capacity: Int

    /// An empty buffer with room for `capacity` elements before it grows.
    init(capacity: Int) {
        self.capacity = max(capacity, 16)
        base = .allocate(capacity: self.capacity)
    }

    /// Releases the memory; the buffer must not be used after.
    func deallocate() {
        base.deallocate()
    }

    /// Drops every element, keeping the memory.
    @inline(__always)
    mutating func removeAll() {
        count = 0
    }

    /// The elements, valid until the next change.
    var elements: UnsafeBufferPointer<Element> { UnsafeBufferPointer(start: base, count: count) }

    /// Adds `element` at the end.
    @inline(__always)
    mutating func append(_ element: Element) {
        if count == capacity { grow(toHold: count + 1) }
        (base + count).initialize(to: element)
        count += 1
    }

    /// Makes room for at least `needed` elements, doubling.
    @inline(never)
    private mutating func grow(toHold needed: Int) {
        let grown = max(capacity * 2, needed)
        let moved = UnsafeMutablePointer<Element>.allocate(capacity: grown)
        moved.initialize(from: base, count: count)
        base.deallocate()
        base = moved
        capacity = grown
    }
}

extension ParquetBuffer where Element == UInt8 {
    /// The bytes, valid until the next change.
    var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base, count: count) }

    /// Adds a copy of `bytes` at the end.
    @inline(__always)
    mutating func append(contentsOf bytes: UnsafeRawBufferPointer) {
        let length = bytes.count
        if length > capacity - count { grow(toHoldBytes: count + length) }
        if let source = bytes.baseAddress {
            UnsafeMutableRawPointer(base + count).copyMemory(from: source, byteCount: length)
        }
        count += length
    }

    /// Appends `value`'s bytes, little-endian.
    @inline(__always)
    mutating func append<Value: FixedWidthInteger>(littleEndian value: Value) {
        let length = MemoryLayout<Value>.size
        if length > capacity - count { grow(toHoldBytes: count + length) }
        UnsafeMutableRawPointer(base + count).storeBytes(of: value.littleEndian, as: Value.self)
        count += length
    }

    /// Sets `bits` in the last byte.
    @inline(__always)
    mutating func setBits(ofLastByte bits: UInt8) {
        base[count - 1] |= bits
    }

    @inline(never)
    private mutating func grow(toHoldBytes needed: Int) {
        grow(toHold: needed)
    }
}

/// The memory behind the records a reader hands out: one growable byte region for field values and names,
/// and one growable array of field slots pointing into it.
///
/// A reader appends fields as it parses and hands out ``Record`` views into this storage. It reuses the
/// same memory for the next records, so a view is valid only until the reader's next call to `next()`;
/// debug builds check that through ``generation``. Growth is geometric and the storage is never shrunk,
/// so a steady stream of records of bounded size parses without allocating.
package final class RecordBuffer {
    /// One field: where its value (and, for JSON, its name) lives in ``bytes``.
    package struct Slot {
        package var start: Int
        package var count: Int
        package var nameStart: Int
        package var nameCount: Int
        package var kind: FieldKind
        package var isQuoted: Bool
    }

    package private(set) var bytes: UnsafeMutableRawPointer
    package private(set) var byteCount = 0
    private var byteCapacity: Int
    package private(set) var slots: UnsafeMutablePointer<Slot>
    package private(set) var slotCount = 0
    private var slotCapacity: Int
    /// Whether slots carry field names (JSON readers); CSV fields are named by the reader's header instead.
    package var fieldsHaveNames = false
    /// Changes whenever stored bytes move or are dropped, which invalidates every handed-out view.
    package private(set) var generation = 0

    package init(byteCapacity: Int = 64 * 1024, slotCapacity: Int = 256) {
        self.byteCapacity = max(byteCapacity, 16)
        self.slotCapacity = max(slotCapacity, 4)
        bytes = .allocate(byteCount: self.byteCapacity, alignment: 8)
        slots = .allocate(capacity: self.slotCapacity)
    }

    deinit {
        bytes.deallocate()
        slots.deallocate()
    }

    /// Makes room for `extra` more bytes and returns where they go. Earlier pointers may be invalid after.
    @inline(__always)
    package func reserveBytes(_ extra: Int) -> UnsafeMutableRawPointer {
        if byteCount + extra > byteCapacity { growBytes(to: byteCount + extra) }
        return bytes + byteCount
    }

    /// Counts `count` bytes written after ``reserveBytes(_:)`` as stored; returns where they start.
    @inline(__always)
    @discardableResult
    package func commitBytes(_ count: Int) -> Int {
        let start = byteCount
        byteCount += count
        return start
    }

    /// Copies bytes into the storage and returns where they start.
    @inline(__always)
    package func appendBytes(_ source: UnsafeRawPointer?, count: Int) -> Int {
        let start = byteCount
        if count > 0, let source {
            reserveBytes(count).copyMemory(from: source, byteCount: count)
            byteCount += count
        }
        return start
    }

    /// Appends a field slot whose bytes are already stored.
    @inline(__always)
    package func appendSlot(
        start: Int, count: Int, nameStart: Int = 0, nameCount: Int = 0, kind: FieldKind, isQuoted: Bool = false
    ) {
        if slotCount == slotCapacity { growSlots() }
        slots[slotCount] = Slot(
            start: start, count: count, nameStart: nameStart, nameCount: nameCount, kind: kind, isQuoted: isQuoted)
        slotCount += 1
    }

    /// Appends a nameless field, copying its bytes.
    @inline(__always)
    package func appendField(_ source: UnsafeRawPointer?, count: Int, kind: FieldKind, isQuoted: Bool) {
        let start = appendBytes(source, count: count)
        appendSlot(start: start, count: count, kind: kind, isQuoted: isQuoted)
    }

    /// Drops the slots before `slot` and the bytes before `byte`, moving what follows to the front.
    ///
    /// Readers call this once every finished record has been handed out, keeping the record in progress.
    package func discard(beforeSlot slot: Int, beforeByte byte: Int) {
        precondition(slot <= slotCount && byte <= byteCount, "discarding past the end of the record buffer")
        generation &+= 1
        let keptSlots = slotCount - slot
        if keptSlots > 0 {
            for index in 0..<keptSlots {
                var moved = slots[slot + index]
                moved.start -= byte
                moved.nameStart = max(moved.nameStart - byte, 0)
                slots[index] = moved
            }
        }
        slotCount = keptSlots
        let keptBytes = byteCount - byte
        if keptBytes > 0 && byte > 0 { bytes.copyMemory(from: bytes + byte, byteCount: keptBytes) }
        byteCount = keptBytes
    }

    /// Drops the last slots, back to `slotCount`, and the bytes back to `byteCount`.
    package func truncate(slotCount newSlotCount: Int, byteCount newByteCount: Int) {
        slotCount = newSlotCount
        byteCount = newByteCount
    }

    /// Empties the storage, keeping its capacity.
    package func removeAll() {
        generation &+= 1
        slotCount = 0
        byteCount = 0
    }

    private func growBytes(to needed: Int) {
        var capacity = byteCapacity
        while capacity < needed { capacity *= 2 }
        let grown = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 8)
        grown.copyMemory(from: bytes, byteCount: byteCount)
        bytes.deallocate()
        bytes = grown
        byteCapacity = capacity
    }

    private func growSlots() {
        let capacity = slotCapacity * 2
        let grown = UnsafeMutablePointer<Slot>.allocate(capacity: capacity)
        grown.moveInitialize(from: slots, count: slotCount)
        slots.deallocate()
        slots = grown
        slotCapacity = capacity
    }
}

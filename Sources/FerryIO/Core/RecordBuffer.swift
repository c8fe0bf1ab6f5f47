/// The memory behind the records a reader hands out: one growable byte region for field values and names,
/// and one growable array of field slots pointing into it.
///
/// A reader appends fields as it parses and hands out ``Record`` views into this storage. It reuses the
/// same memory for the next records, so a view is valid only until the reader's next call to `next()`;
/// debug builds check that through ``generation``. Growth is geometric and the storage is never shrunk,
/// so a steady stream of records of bounded size parses without allocating.
///
/// The state lives behind a stable pointer rather than in stored properties: the parser callbacks touch it
/// for every field, and plain memory spares them Swift's dynamic exclusivity checks on class properties.
package final class RecordBuffer {
    /// One field: where its value (and, for JSON, its name) lives in ``bytes``.
    ///
    /// Offsets are stored in 32 bits, so a slot takes 20 bytes instead of 40: parsers write one per field, and the
    /// storage only ever holds a chunk of records plus one record of at most the readers' 16 MiB limit.
    package struct Slot {
        private var storedStart: Int32
        private var storedCount: Int32
        private var storedNameStart: Int32
        private var storedNameCount: Int32
        package var kind: FieldKind
        package var isQuoted: Bool

        @inline(__always)
        init(start: Int, count: Int, nameStart: Int, nameCount: Int, kind: FieldKind, isQuoted: Bool) {
            storedStart = Int32(truncatingIfNeeded: start)
            storedCount = Int32(truncatingIfNeeded: count)
            storedNameStart = Int32(truncatingIfNeeded: nameStart)
            storedNameCount = Int32(truncatingIfNeeded: nameCount)
            self.kind = kind
            self.isQuoted = isQuoted
        }

        package var start: Int {
            get { Int(storedStart) }
            set { storedStart = Int32(newValue) }
        }
        package var count: Int { Int(storedCount) }
        package var nameStart: Int {
            get { Int(storedNameStart) }
            set { storedNameStart = Int32(newValue) }
        }
        package var nameCount: Int { Int(storedNameCount) }
    }

    /// The buffer's state; see the type's discussion for why it is not stored properties.
    package struct Storage {
        package var bytes: UnsafeMutableRawPointer
        package var byteCount = 0
        var byteCapacity: Int
        package var slots: UnsafeMutablePointer<Slot>
        package var slotCount = 0
        var slotCapacity: Int
        package var generation = 0
        package var fieldsHaveNames = false

        /// Makes room for `extra` more bytes and returns where they go. Earlier pointers may be invalid after.
        @inline(__always)
        package mutating func reserveBytes(_ extra: Int) -> UnsafeMutableRawPointer {
            if byteCount + extra > byteCapacity { growBytes(to: byteCount + extra) }
            return bytes + byteCount
        }

        /// Copies bytes into the storage and returns where they start.
        @inline(__always)
        package mutating func appendBytes(_ source: UnsafeRawPointer?, count: Int) -> Int {
            let start = byteCount
            if count > 0, let source {
                reserveBytes(count).copyMemory(from: source, byteCount: count)
                byteCount += count
            }
            return start
        }

        /// Appends a field slot whose bytes are already stored.
        @inline(__always)
        package mutating func appendSlot(
            start: Int, count: Int, nameStart: Int = 0, nameCount: Int = 0, kind: FieldKind, isQuoted: Bool = false
        ) {
            if slotCount == slotCapacity { growSlots() }
            (slots + slotCount).initialize(
                to: Slot(
                    start: start, count: count, nameStart: nameStart, nameCount: nameCount, kind: kind,
                    isQuoted: isQuoted))
            slotCount += 1
        }

        mutating func growBytes(to needed: Int) {
            var capacity = byteCapacity
            while capacity < needed { capacity *= 2 }
            let grown = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 8)
            grown.copyMemory(from: bytes, byteCount: byteCount)
            bytes.deallocate()
            bytes = grown
            byteCapacity = capacity
        }

        mutating func growSlots() {
            let capacity = slotCapacity * 2
            let grown = UnsafeMutablePointer<Slot>.allocate(capacity: capacity)
            grown.moveInitialize(from: slots, count: slotCount)
            slots.deallocate()
            slots = grown
            slotCapacity = capacity
        }
    }

    /// The state, for hot loops that hold the pointer instead of going through the class.
    package let storage: UnsafeMutablePointer<Storage>

    package init(byteCapacity: Int = 64 * 1024, slotCapacity: Int = 256) {
        let byteCapacity = max(byteCapacity, 16)
        let slotCapacity = max(slotCapacity, 4)
        storage = .allocate(capacity: 1)
        storage.initialize(
            to: Storage(
                bytes: .allocate(byteCount: byteCapacity, alignment: 8), byteCapacity: byteCapacity,
                slots: .allocate(capacity: slotCapacity), slotCapacity: slotCapacity))
    }

    deinit {
        storage.pointee.bytes.deallocate()
        storage.pointee.slots.deallocate()
        storage.deinitialize(count: 1)
        storage.deallocate()
    }

    package var bytes: UnsafeMutableRawPointer { storage.pointee.bytes }
    package var byteCount: Int { storage.pointee.byteCount }
    package var slots: UnsafeMutablePointer<Slot> { storage.pointee.slots }
    package var slotCount: Int { storage.pointee.slotCount }
    /// Changes whenever stored bytes move or are dropped, which invalidates every handed-out view.
    package var generation: Int { storage.pointee.generation }
    /// Whether slots carry field names (JSON readers); CSV fields are named by the reader's header instead.
    package var fieldsHaveNames: Bool {
        get { storage.pointee.fieldsHaveNames }
        set { storage.pointee.fieldsHaveNames = newValue }
    }

    /// Makes room for `extra` more bytes and returns where they go. Earlier pointers may be invalid after.
    @inline(__always)
    package func reserveBytes(_ extra: Int) -> UnsafeMutableRawPointer {
        storage.pointee.reserveBytes(extra)
    }

    /// Counts `count` bytes written after ``reserveBytes(_:)`` as stored; returns where they start.
    @inline(__always)
    @discardableResult
    package func commitBytes(_ count: Int) -> Int {
        let start = storage.pointee.byteCount
        storage.pointee.byteCount += count
        return start
    }

    /// Copies bytes into the storage and returns where they start.
    @inline(__always)
    package func appendBytes(_ source: UnsafeRawPointer?, count: Int) -> Int {
        storage.pointee.appendBytes(source, count: count)
    }

    /// Appends a field slot whose bytes are already stored.
    @inline(__always)
    package func appendSlot(
        start: Int, count: Int, nameStart: Int = 0, nameCount: Int = 0, kind: FieldKind, isQuoted: Bool = false
    ) {
        storage.pointee.appendSlot(
            start: start, count: count, nameStart: nameStart, nameCount: nameCount, kind: kind, isQuoted: isQuoted)
    }

    /// Appends a nameless field, copying its bytes.
    @inline(__always)
    package func appendField(_ source: UnsafeRawPointer?, count: Int, kind: FieldKind, isQuoted: Bool) {
        let start = storage.pointee.appendBytes(source, count: count)
        storage.pointee.appendSlot(start: start, count: count, kind: kind, isQuoted: isQuoted)
    }

    /// Drops the slots before `slot` and the bytes before `byte`, moving what follows to the front.
    ///
    /// Readers call this once every finished record has been handed out, keeping the record in progress.
    package func discard(beforeSlot slot: Int, beforeByte byte: Int) {
        let state = storage
        precondition(
            slot <= state.pointee.slotCount && byte <= state.pointee.byteCount,
            "discarding past the end of the record buffer")
        state.pointee.generation &+= 1
        let keptSlots = state.pointee.slotCount - slot
        let slots = state.pointee.slots
        for index in 0..<keptSlots {
            var moved = slots[slot + index]
            moved.start -= byte
            moved.nameStart = max(moved.nameStart - byte, 0)
            slots[index] = moved
        }
        state.pointee.slotCount = keptSlots
        let keptBytes = state.pointee.byteCount - byte
        if keptBytes > 0 && byte > 0 {
            state.pointee.bytes.copyMemory(from: state.pointee.bytes + byte, byteCount: keptBytes)
        }
        state.pointee.byteCount = keptBytes
    }

    /// Drops the last slots, back to `slotCount`, and the bytes back to `byteCount`.
    package func truncate(slotCount newSlotCount: Int, byteCount newByteCount: Int) {
        precondition(newSlotCount <= slotCount && newByteCount <= byteCount, "truncating beyond the end")
        storage.pointee.slotCount = newSlotCount
        storage.pointee.byteCount = newByteCount
    }

    /// Empties the storage, keeping its capacity.
    package func removeAll() {
        storage.pointee.generation &+= 1
        storage.pointee.slotCount = 0
        storage.pointee.byteCount = 0
    }
}

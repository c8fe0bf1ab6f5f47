#if canImport(Glibc)
    import Glibc
#else
    import Darwin
#endif

/// One record read from a file: a borrowed view of its fields.
///
/// A record points into its reader's reused storage, so it is valid only until the reader's next call to
/// `next()`. Copy what you need to keep (``Field/string``, ``Record/strings``) before reading on. Debug
/// builds trap on a stale record.
///
/// ```swift
/// while let record = try reader.next() {
///     let sku = record[0].string          // allocates: for when a String is wanted
///     record[3].withUnsafeBytes { bytes in /* no allocation */ }
/// }
/// ```
public struct Record {
    package let buffer: RecordBuffer
    package let firstSlot: Int
    package let generation: Int
    /// The number of fields.
    public let count: Int
    /// Where the record starts in its input.
    public let position: RecordPosition

    package init(buffer: RecordBuffer, firstSlot: Int, count: Int, position: RecordPosition) {
        self.buffer = buffer
        self.firstSlot = firstSlot
        self.count = count
        self.position = position
        self.generation = buffer.generation
    }

    /// The field at `index`, from 0.
    @inline(__always)
    public subscript(index: Int) -> Field {
        precondition(index >= 0 && index < count, "field index \(index) out of range 0..<\(count)")
        assert(buffer.generation == generation, "a Record was used after its reader moved on")
        return Field(buffer: buffer, slot: firstSlot + index)
    }

    /// The first field whose name is `name` (JSON records), or `nil`.
    public func field(named name: String) -> Field? {
        index(ofFieldNamed: name).map { self[$0] }
    }

    /// The index of the first field whose name is `name` (JSON records), or `nil`.
    public func index(ofFieldNamed name: String) -> Int? {
        var name = name
        return name.withUTF8 { index(ofFieldNamed: $0) }
    }

    /// The index of the first field whose name's UTF-8 is `wanted`, or `nil`. For hot loops: it reads the slots
    /// in place, comparing lengths before bytes, and makes no ``Field`` (each of which holds on to the buffer).
    package func index(ofFieldNamed wanted: UnsafeBufferPointer<UInt8>) -> Int? {
        assert(buffer.generation == generation, "a Record was used after its reader moved on")
        let storage = buffer.storage.pointee
        let slots = storage.slots + firstSlot
        for index in 0..<count where slots[index].nameCount == wanted.count {
            guard let wantedBytes = wanted.baseAddress else { return index }
            if memcmp(storage.bytes + slots[index].nameStart, wantedBytes, wanted.count) == 0 { return index }
        }
        return nil
    }

    /// The value's bytes and the kind of the field at `index`, read in place. For hot loops: it makes no ``Field``
    /// (each of which holds on to the buffer), so it costs no reference counting. The bytes are valid as long as the
    /// record.
    @inline(__always)
    package func bytesAndKind(ofField index: Int) -> (bytes: UnsafeRawBufferPointer, kind: FieldKind) {
        precondition(index >= 0 && index < count, "field index \(index) out of range 0..<\(count)")
        assert(buffer.generation == generation, "a Record was used after its reader moved on")
        let storage = buffer.storage.pointee
        let slot = storage.slots[firstSlot + index]
        return (UnsafeRawBufferPointer(start: storage.bytes + slot.start, count: slot.count), slot.kind)
    }

    /// Every field's value as a `String`, `nil` for null. Allocates; meant for tests and small tools.
    public var strings: [String?] { (0..<count).map { self[$0].isNull ? nil : self[$0].string } }

    /// Every field's name (JSON records), `nil` where a field has none.
    public var names: [String?] { (0..<count).map { self[$0].name } }

    /// The name of the field at `index` (from 0) of a record without names, such as a CSV file without a header:
    /// `column1`, `column2`, …
    public static func positionalName(ofField index: Int) -> String {
        "column\(index + 1)"
    }
}

/// One field of a ``Record``: its bytes, kind and, for JSON, its name. Valid as long as its record.
public struct Field {
    let buffer: RecordBuffer
    let slot: Int

    init(buffer: RecordBuffer, slot: Int) {
        self.buffer = buffer
        self.slot = slot
    }

    /// What the bytes hold.
    public var kind: FieldKind { buffer.slots[slot].kind }
    /// Whether the field has no value.
    public var isNull: Bool { buffer.slots[slot].kind == .null }
    /// Whether the CSV field was written in quotes. (Only empty fields report this reliably; see `CSVDialect`.)
    public var isQuoted: Bool { buffer.slots[slot].isQuoted }
    /// The number of bytes in the value.
    public var byteCount: Int { buffer.slots[slot].count }

    /// Calls `body` with the value's UTF-8 bytes, without copying them.
    public func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        let entry = buffer.slots[slot]
        return try body(UnsafeRawBufferPointer(start: buffer.bytes + entry.start, count: entry.count))
    }

    /// Calls `body` with the name's UTF-8 bytes (empty when the field has no name).
    public func withUnsafeNameBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        let entry = buffer.slots[slot]
        return try body(UnsafeRawBufferPointer(start: buffer.bytes + entry.nameStart, count: entry.nameCount))
    }

    /// The value as a `String` (empty for null). Allocates.
    public var string: String {
        withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
    }

    /// The field's name (JSON records), or `nil`.
    public var name: String? {
        guard buffer.fieldsHaveNames else { return nil }
        return withUnsafeNameBytes { String(decoding: $0, as: UTF8.self) }
    }

    /// Whether the value's bytes equal `text`'s UTF-8, without allocating.
    public func equals(_ text: StaticString) -> Bool {
        withUnsafeBytes { bytes in
            bytes.count == text.utf8CodeUnitCount
                && (bytes.count == 0 || memoryEquals(bytes.baseAddress, text.utf8Start, bytes.count))
        }
    }

    package func nameEquals(_ wanted: UnsafeBufferPointer<UInt8>) -> Bool {
        withUnsafeNameBytes { name in
            name.count == wanted.count
                && (name.count == 0 || memoryEquals(name.baseAddress, wanted.baseAddress, name.count))
        }
    }
}

@inline(__always)
private func memoryEquals(_ lhs: UnsafeRawPointer?, _ rhs: UnsafeRawPointer?, _ count: Int) -> Bool {
    guard let lhs, let rhs else { return count == 0 }
    return memcmp(lhs, rhs, count) == 0
}

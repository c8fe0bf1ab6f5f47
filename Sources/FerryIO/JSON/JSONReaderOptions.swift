/// How a ``JSONReader`` turns JSON objects into records, and the limits that keep a broken file from exhausting
/// memory or stack.
///
/// ```swift
/// var options = JSONReaderOptions()
/// options.flattensNestedObjects = true     // {"address": {"city": "Lyon"}} → field "address.city"
/// let reader = try JSONReader(path: "orders.json", layout: .array, options: options)
/// ```
public struct JSONReaderOptions: Sendable, Hashable {
    /// Whether a nested object's members become fields named by key path (`address.city`).
    ///
    /// When `false` (the default), a nested object is one field holding its compact JSON text, kind
    /// ``FieldKind/json``. When `true`, an empty nested object is a field holding `{}` under its key path. Arrays
    /// always stay one ``FieldKind/json`` field. Keys are joined with `.` as they are, so a key that itself holds a
    /// dot gives a path that reads the same as a deeper one.
    public var flattensNestedObjects: Bool
    /// The most arrays and objects open at once, counting the array or object around the records.
    ///
    /// Deeper input fails with ``FerryIOError/Code/depthExceeded``. Parsing never recurses on nesting, so the limit
    /// guards memory and sanity rather than the stack.
    public var maxDepth: Int
    /// The largest record accepted, in bytes of input from its first byte to its closing `}` (for
    /// `.objectMembers`, from its key). This bounds every field too, and the memory the reader needs: about twice
    /// this plus one read. A larger record fails with ``FerryIOError/Code/fieldTooLarge`` at its start, whatever
    /// the read-buffer size.
    public var maxValueBytes: Int

    /// Creates options; the defaults keep nested objects as JSON text, allow 64 levels and 16 MiB records.
    public init(flattensNestedObjects: Bool = false, maxDepth: Int = 64, maxValueBytes: Int = 16 * 1024 * 1024) {
        precondition(maxDepth >= 1, "maxDepth must be at least 1")
        precondition(maxValueBytes >= 1, "maxValueBytes must be positive")
        self.flattensNestedObjects = flattensNestedObjects
        self.maxDepth = maxDepth
        self.maxValueBytes = maxValueBytes
    }
}

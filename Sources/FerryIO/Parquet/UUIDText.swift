/// A UUID's 16 bytes as the lower-case `8-4-4-4-12` text Ferry stores and exports UUIDs as, for Parquet columns
/// written as text (``ParquetWriter/Options/writesUUIDsAsText``). The text orders as the bytes do, so a column's
/// minimum and maximum are the same UUIDs either way.
enum UUIDText {
    /// Calls `body` with the 36 bytes of `uuid`'s text (`uuid` holds exactly 16 bytes), without allocating.
    @inline(__always)
    static func withLowercaseText<Result>(
        of uuid: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) throws -> Result
    ) rethrows -> Result {
        precondition(uuid.count == 16, "a UUID is 16 bytes")
        return try withUnsafeTemporaryAllocation(byteCount: 36, alignment: 1) { text in
            var position = 0
            for (index, byte) in uuid.enumerated() {
                if index == 4 || index == 6 || index == 8 || index == 10 {
                    text[position] = UInt8(ascii: "-")
                    position += 1
                }
                text[position] = digit(byte >> 4)
                text[position + 1] = digit(byte & 0x0F)
                position += 2
            }
            return try body(UnsafeRawBufferPointer(text))
        }
    }

    @inline(__always)
    private static func digit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }
}

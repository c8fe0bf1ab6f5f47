/// Folder names of a hive-partitioned dataset: `name=value`, escaped as Hive escapes them, so that any value is one
/// safe path segment that DuckDB, Spark and Trino read back as the partition's value.
///
/// Bytes below 0x20, DEL, and `"` `#` `%` `'` `*` `/` `:` `=` `?` `\` `{` `[` `]` `^` become `%XX` (uppercase hex);
/// everything else, UTF-8 included, is kept. A null or empty value is Hive's default partition,
/// `__HIVE_DEFAULT_PARTITION__`, which the readers read as null.
enum HivePartitionPath {
    /// Hive's name for the partition of null (and empty) values.
    static let defaultPartition = Array("__HIVE_DEFAULT_PARTITION__".utf8)

    /// The longest folder name file systems take.
    static let maxSegmentBytes = 255

    /// Appends `bytes` to `output`, escaped.
    static func appendEscaped(_ bytes: UnsafeRawBufferPointer, to output: inout [UInt8]) {
        for byte in bytes {
            if needsEscape(byte) {
                output.append(0x25)
                output.append(hexDigit(byte >> 4))
                output.append(hexDigit(byte & 0xF))
            } else {
                output.append(byte)
            }
        }
    }

    /// Appends `name=` (the name escaped) to `output`.
    static func appendName(_ name: String, to output: inout [UInt8]) {
        var name = name
        name.withUTF8 { appendEscaped(UnsafeRawBufferPointer($0), to: &output) }
        output.append(0x3D)
    }

    @inline(__always)
    static func needsEscape(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x00..<0x20, 0x7F, 0x22, 0x23, 0x25, 0x27, 0x2A, 0x2F, 0x3A, 0x3D, 0x3F, 0x5C, 0x7B, 0x5B, 0x5D, 0x5E:
            true
        default: false
        }
    }

    private static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? 0x30 + value : 0x41 + value - 10
    }
}

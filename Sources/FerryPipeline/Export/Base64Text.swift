/// Base64 (RFC 4648, standard alphabet, with padding), into caller-owned memory.
enum Base64Text {
    private static let alphabet: StaticString = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

    /// The length of the encoding of `count` bytes.
    static func encodedCount(_ count: Int) -> Int { (count + 2) / 3 * 4 }

    /// Encodes `bytes` at the start of `output`, which holds at least ``encodedCount(_:)`` bytes.
    static func encode(_ bytes: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) {
        let table = alphabet.utf8Start
        var out = 0
        var index = 0
        while index + 3 <= bytes.count {
            let value = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
            output[out] = table[Int(value >> 18 & 63)]
            output[out + 1] = table[Int(value >> 12 & 63)]
            output[out + 2] = table[Int(value >> 6 & 63)]
            output[out + 3] = table[Int(value & 63)]
            out += 4
            index += 3
        }
        let rest = bytes.count - index
        guard rest > 0 else { return }
        let value = UInt32(bytes[index]) << 16 | (rest == 2 ? UInt32(bytes[index + 1]) << 8 : 0)
        output[out] = table[Int(value >> 18 & 63)]
        output[out + 1] = table[Int(value >> 12 & 63)]
        output[out + 2] = rest == 2 ? table[Int(value >> 6 & 63)] : 0x3D
        output[out + 3] = 0x3D
    }
}

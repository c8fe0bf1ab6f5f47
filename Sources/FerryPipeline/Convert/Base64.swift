import FerryStore
import Foundation

/// Base64 (RFC 4648 standard alphabet, `=` padding optional) from borrowed bytes. No whitespace inside.
enum Base64 {
    /// The number of bytes `text` decodes to, or `nil` when it is not base64.
    static func decodedCount(_ text: UnsafeRawBufferPointer) -> Int? {
        var length = text.count
        var padding = 0
        while length > 0, padding < 2, text[length - 1] == UInt8(ascii: "=") {
            length -= 1
            padding += 1
        }
        guard length % 4 != 1, padding == 0 || (length + padding) % 4 == 0 else { return nil }
        for index in 0..<length where sextet(text[index]) == nil { return nil }
        return length / 4 * 3 + max(0, length % 4 - 1)
    }

    /// Decodes `text` (already checked by ``decodedCount(_:)``) into `output`, which has room for its bytes.
    static func decode(_ text: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) {
        var bits: UInt32 = 0
        var bitCount = 0
        var out = 0
        for byte in text {
            guard let value = sextet(byte) else { break }  // padding
            bits = bits << 6 | UInt32(value)
            bitCount += 6
            if bitCount >= 8 {
                bitCount -= 8
                output[out] = UInt8(truncatingIfNeeded: bits >> UInt32(bitCount))
                out += 1
            }
        }
    }

    /// Appends the bytes `text` decodes to as a blob cell; `false` (nothing appended) when it is not base64.
    static func appendDecoded(_ text: UnsafeRawBufferPointer, to rows: inout PackedRows) -> Bool {
        guard let count = decodedCount(text) else { return false }
        withUnsafeTemporaryAllocation(byteCount: max(count, 1), alignment: 1) { buffer in
            decode(text, into: buffer)
            rows.appendBlob(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
        }
        return true
    }

    /// The bytes `text` decodes to, or `nil` when it is not base64.
    static func data(_ text: UnsafeRawBufferPointer) -> Data? {
        guard let count = decodedCount(text) else { return nil }
        var data = Data(count: count)
        data.withUnsafeMutableBytes { decode(text, into: $0) }
        return data
    }

    private static func sextet(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): byte - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): byte - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0") + 52
        case UInt8(ascii: "+"): 62
        case UInt8(ascii: "/"): 63
        default: nil
        }
    }
}

#if canImport(Glibc)
    import Glibc
#else
    import Darwin
#endif

/// Checks UTF-8 incrementally over buffers that may split a character, and rejects NUL bytes.
///
/// NUL bytes are found with `memchr`, ASCII runs are skipped 32 bytes at a time, and only non-ASCII bytes go
/// through the state machine.
package struct UTF8Validator {
    /// What the validator found wrong.
    package enum Problem {
        case invalidUTF8
        case nulByte
    }

    /// Continuation bytes still expected by the character in progress.
    private var pending = 0
    /// Bytes of the character in progress seen so far (its lead byte and continuation bytes).
    package private(set) var incompleteByteCount = 0
    /// Allowed range of the next continuation byte (narrowed after E0, ED, F0, F4 lead bytes).
    private var lower: UInt8 = 0x80
    private var upper: UInt8 = 0xBF

    package init() {}

    /// Whether the input so far ends on a character boundary.
    package var isComplete: Bool { pending == 0 }

    /// Validates `bytes`, continuing any character split at the previous buffer's end.
    ///
    /// When a continuation byte is wrong, ``incompleteByteCount`` still counts the bytes of the broken character
    /// before it, so `index - incompleteByteCount` is where that character starts (possibly in an earlier buffer).
    ///
    /// - Returns: the index of the first offending byte and what is wrong with it, or `nil` when all is well.
    package mutating func validate(_ bytes: UnsafeRawBufferPointer) -> (index: Int, problem: Problem)? {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return nil }
        // NUL bytes are found by memchr (vectorised in libc); the UTF-8 check then runs up to the first one.
        guard let nul = memchr(base, 0, bytes.count) else { return validateUTF8(base, count: bytes.count) }
        let nulIndex = base.distance(to: UnsafeRawPointer(nul))
        if let problem = validateUTF8(base, count: nulIndex) { return problem }
        // A NUL where a continuation byte was due breaks the character; otherwise it is a NUL of its own.
        return (nulIndex, pending > 0 ? .invalidUTF8 : .nulByte)
    }

    private mutating func validateUTF8(_ base: UnsafeRawPointer, count: Int) -> (index: Int, problem: Problem)? {
        var index = 0
        while index < count {
            if pending == 0 {
                // Fast path: ASCII, 32 bytes at a time, then 8 at a time.
                while index + 32 <= count {
                    let first = base.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                    let second = base.loadUnaligned(fromByteOffset: index + 8, as: UInt64.self)
                    let third = base.loadUnaligned(fromByteOffset: index + 16, as: UInt64.self)
                    let fourth = base.loadUnaligned(fromByteOffset: index + 24, as: UInt64.self)
                    if (first | second | third | fourth) & 0x8080_8080_8080_8080 != 0 { break }
                    index += 32
                }
                while index + 8 <= count {
                    let word = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: index, as: UInt64.self))
                    let high = word & 0x8080_8080_8080_8080
                    if high != 0 {
                        // Straight to the first non-ASCII byte (the lowest set bit, read little-endian).
                        index += high.trailingZeroBitCount >> 3
                        break
                    }
                    index += 8
                }
                guard index < count else { break }
                let byte = base.load(fromByteOffset: index, as: UInt8.self)
                if byte < 0x80 {
                    index += 1
                    continue
                }
                switch byte {
                case 0xC2...0xDF: pending = 1; lower = 0x80; upper = 0xBF
                case 0xE0: pending = 2; lower = 0xA0; upper = 0xBF
                case 0xE1...0xEC, 0xEE...0xEF: pending = 2; lower = 0x80; upper = 0xBF
                case 0xED: pending = 2; lower = 0x80; upper = 0x9F
                case 0xF0: pending = 3; lower = 0x90; upper = 0xBF
                case 0xF1...0xF3: pending = 3; lower = 0x80; upper = 0xBF
                case 0xF4: pending = 3; lower = 0x80; upper = 0x8F
                default: return (index, .invalidUTF8)
                }
                incompleteByteCount = 1
                index += 1
            } else {
                let byte = base.load(fromByteOffset: index, as: UInt8.self)
                guard byte >= lower && byte <= upper else { return (index, .invalidUTF8) }
                lower = 0x80
                upper = 0xBF
                pending -= 1
                incompleteByteCount = pending == 0 ? 0 : incompleteByteCount + 1
                index += 1
            }
        }
        return nil
    }
}

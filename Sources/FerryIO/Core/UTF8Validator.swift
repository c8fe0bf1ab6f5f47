/// Checks UTF-8 incrementally over buffers that may split a character, and rejects NUL bytes.
///
/// ASCII runs are checked eight bytes at a time; only non-ASCII bytes go through the state machine.
package struct UTF8Validator {
    /// What the validator found wrong.
    package enum Problem {
        case invalidUTF8
        case nulByte
    }

    /// Continuation bytes still expected by the character in progress.
    private var pending = 0
    /// Allowed range of the next continuation byte (narrowed after E0, ED, F0, F4 lead bytes).
    private var lower: UInt8 = 0x80
    private var upper: UInt8 = 0xBF

    package init() {}

    /// Whether the input so far ends on a character boundary.
    package var isComplete: Bool { pending == 0 }

    /// Validates `bytes`, continuing any character split at the previous buffer's end.
    ///
    /// - Returns: the index of the first offending byte and what is wrong with it, or `nil` when all is well.
    package mutating func validate(_ bytes: UnsafeRawBufferPointer) -> (index: Int, problem: Problem)? {
        guard let base = bytes.baseAddress else { return nil }
        let count = bytes.count
        var index = 0
        while index < count {
            if pending == 0 {
                // Fast path: whole words of ASCII without a NUL byte.
                while index + 8 <= count {
                    let word = base.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                    let hasHighBit = word & 0x8080_8080_8080_8080 != 0
                    let hasZero = (word &- 0x0101_0101_0101_0101) & ~word & 0x8080_8080_8080_8080 != 0
                    if hasHighBit || hasZero { break }
                    index += 8
                }
                guard index < count else { break }
                let byte = base.load(fromByteOffset: index, as: UInt8.self)
                if byte < 0x80 {
                    if byte == 0 { return (index, .nulByte) }
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
                index += 1
            } else {
                let byte = base.load(fromByteOffset: index, as: UInt8.self)
                guard byte >= lower && byte <= upper else { return (index, .invalidUTF8) }
                lower = 0x80
                upper = 0xBF
                pending -= 1
                index += 1
            }
        }
        return nil
    }
}

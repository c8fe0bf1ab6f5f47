/// The text of a double with few decimals (`9403.07`, `100.968`, `12.0`), written without going through `String`:
/// the same text as Swift's `description`, for the values it takes; the others are left to `description`.
///
/// A value taken is one with `1 ≤ |value| < 10¹¹` that equals `n / 10ᵏ` for an integer `n` and `k` from 1 to 4
/// (checked by dividing back, which rounds exactly as reading the text `n / 10ᵏ` does). Its digits then number at
/// most 15, and two different decimals of at most 15 significant digits never read as the same double, so no shorter
/// text reads back as the value: these digits, trailing zeros dropped (one fractional digit kept), are the shortest
/// round-trip text `description` writes, and at these magnitudes it writes them without an exponent.
enum ShortDoubleText {
    private static let powers: (Double, Double, Double, Double) = (10, 100, 1000, 10000)

    /// Writes `value`'s text at `buffer` (at least 24 bytes) and returns its length, or returns `nil` when the value
    /// is not one this takes.
    @inline(__always)
    static func write(_ value: Double, into buffer: UnsafeMutableRawBufferPointer) -> Int? {
        let magnitude = value.magnitude
        guard magnitude >= 1, magnitude < 1e11, buffer.count >= 24, let base = buffer.baseAddress else { return nil }
        for decimals in 1...4 {
            let power =
                switch decimals {
                case 1: powers.0
                case 2: powers.1
                case 3: powers.2
                default: powers.3
                }
            let scaled = (magnitude * power).rounded()
            guard scaled / power == magnitude else { continue }
            return writeDigits(UInt64(scaled), decimals: decimals, negative: value < 0, into: base)
        }
        return nil
    }

    /// Writes `digits` with a decimal point before its last `decimals` digits, trailing fractional zeros dropped
    /// down to one.
    @inline(__always)
    private static func writeDigits(
        _ digits: UInt64, decimals: Int, negative: Bool, into buffer: UnsafeMutableRawPointer
    ) -> Int {
        var divisor: UInt64 = 1
        for _ in 0..<decimals { divisor &*= 10 }
        var integer = digits / divisor
        var fraction = digits % divisor
        var fractionDigits = decimals
        while fractionDigits > 1 && fraction % 10 == 0 {
            fraction /= 10
            fractionDigits -= 1
        }
        var length = negative ? 1 : 0
        if negative { buffer.storeBytes(of: 0x2D, as: UInt8.self) }
        var integerDigits = 1
        var probe = integer
        while probe >= 10 {
            probe /= 10
            integerDigits += 1
        }
        var position = length + integerDigits
        repeat {
            position -= 1
            buffer.storeBytes(
                of: UInt8(truncatingIfNeeded: integer % 10) &+ 0x30, toByteOffset: position, as: UInt8.self)
            integer /= 10
        } while integer > 0
        length += integerDigits
        buffer.storeBytes(of: 0x2E, toByteOffset: length, as: UInt8.self)
        length += 1
        position = length + fractionDigits
        for _ in 0..<fractionDigits {
            position -= 1
            buffer.storeBytes(
                of: UInt8(truncatingIfNeeded: fraction % 10) &+ 0x30, toByteOffset: position, as: UInt8.self)
            fraction /= 10
        }
        return length + fractionDigits
    }
}

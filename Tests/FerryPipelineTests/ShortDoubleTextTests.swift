import Testing

@testable import FerryPipeline

/// The doubles ``ShortDoubleText`` writes itself must read exactly as Swift's `description` writes them.
struct ShortDoubleTextTests {
    /// SplitMix64: the same values on every run.
    struct Numbers {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var mixed = state
            mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
            mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
            return mixed ^ (mixed >> 31)
        }
    }

    /// The text written for `value`, or `nil` when it is left to `description`.
    static func text(_ value: Double) -> String? {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64, alignment: 8)
        defer { buffer.deallocate() }
        return ShortDoubleText.write(value, into: buffer).map {
            String(decoding: UnsafeRawBufferPointer(rebasing: buffer[0..<$0]), as: UTF8.self)
        }
    }

    @Test(arguments: [
        1.0, -1.0, 12.0, 9403.07, 100.968, 0.1 + 0.2 + 1, 1.5, 99_999_999_999.9999, 10_000_000_000.5, 1e11, 1e11 - 1,
        123_456.789_1, 2.675, 1.0005, 9.999_95, 4.35, 0.99, 0.5, -0.0, 0.0, .pi, .nan, .infinity, 1e16, 2e-5,
    ])
    func aChosenValueIsWrittenAsItsDescriptionOrLeftToIt(value: Double) {
        if let text = Self.text(value) { #expect(text == value.description) }
    }

    @Test func decimalsOfEveryMagnitudeAreWrittenAsTheirDescriptionAndMostAreTaken() {
        var numbers = Numbers(state: 24)
        var taken = 0
        for _ in 0..<200_000 {
            let decimals = Int(numbers.next() % 5)
            let digits = Int(numbers.next() % 15) + 1
            var limit: UInt64 = 1
            for _ in 0..<digits { limit *= 10 }
            let scaled = Double(numbers.next() % limit)
            var power = 1.0
            for _ in 0..<decimals { power *= 10 }
            let value = (numbers.next() & 1 == 0 ? 1 : -1) * scaled / power
            if let text = Self.text(value) {
                taken += 1
                #expect(text == value.description, "\(value)")
            }
        }
        // Most values in range (1 ≤ |value| < 1e11, four decimals at most) take the fast path.
        #expect(taken > 100_000)
    }

    @Test func arbitraryDoublesAreWrittenAsTheirDescriptionWhenTaken() {
        var numbers = Numbers(state: 7)
        for _ in 0..<200_000 {
            let value = Double(bitPattern: numbers.next())
            if let text = Self.text(value) { #expect(text == value.description, "\(value)") }
            // Magnitudes this path is for, with arbitrary low bits.
            let scaled = Double(numbers.next() % 100_000_000_000_000) / 1000
            if let text = Self.text(scaled) { #expect(text == scaled.description, "\(scaled)") }
        }
    }
}

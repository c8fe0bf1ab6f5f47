import Foundation
import Testing

@testable import FerryStore

/// A decimal's declared precision and scale, checked on a `Decimal` (context mode, batch updates) and on its stored
/// text (imports): both ways refuse the same values with the same error.
struct DecimalDigitsRuleTests {
    static let texts = [
        "0", "-0", "0.00", "000.0100", "12.5", "12.50", "-12.345", "9999.99", "-9999.99", "10000", "-10000", "99999.9",
        "0.001", "0.125", "0.999", "1", "-1", "99", "100", "1.5", "1e3", "1e4", "100e-2", "-0.010", "123456789012",
        "0.000000000000000000000000000001", "1e30", "98765432109876543210.123456789",
    ]

    @Test(
        "The stored text's digits are refused exactly when the Decimal's are, with the same code and message",
        arguments: [(6, 2), (3, 3), (2, 0), (12, 3), (38, 10), (1, 0)])
    func storedTextAgreesWithTheDecimal(precision: Int, scale: Int) throws {
        let rule = DecimalDigitsRule(precision: precision, scale: scale)
        for text in Self.texts {
            let parsed = try text.utf8CString.withUnsafeBytes { bytes in
                try DecimalText.parse(UnsafeRawBufferPointer(rebasing: bytes.dropLast())).get()
            }
            let stored = text.utf8CString.withUnsafeBytes { bytes in
                let source = UnsafeRawBufferPointer(rebasing: bytes.dropLast())
                var buffer = [UInt8](repeating: 0, count: parsed.textCount)
                let count = buffer.withUnsafeMutableBytes { parsed.write(from: source, into: $0) }
                return Array(buffer[..<count])
            }
            let decimal = try #require(Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")))
            let byDecimal = rule.check(decimal, approximately: NSDecimalNumber(decimal: decimal).doubleValue)
            let byText = stored.withUnsafeBytes { rule.check(storedText: $0) }
            let shown = String(decoding: stored, as: UTF8.self)
            #expect(byText?.code == byDecimal?.code, "\(text) stored as \(shown), (\(precision), \(scale))")
            #expect(byText?.message == byDecimal?.message, "\(text) stored as \(shown), (\(precision), \(scale))")
        }
        // Both ways refuse some of the values and take others.
        let refused = Self.texts.filter { text in
            let decimal = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) ?? 0
            return rule.check(decimal, approximately: NSDecimalNumber(decimal: decimal).doubleValue) != nil
        }
        #expect(!refused.isEmpty && refused.count < Self.texts.count, "\(refused)")
    }
}

import Foundation
import Testing

@testable import FerryStore

/// An attribute's rules checked on a value's stored form, as an import appends it, find what checking the value
/// finds: the same first error, or none.
struct StoredFormRulesTests {
    static func date(_ seconds: Double) -> AttributeValue { .date(Date(timeIntervalSince1970: seconds)) }

    static func decimal(_ text: String) -> AttributeValue {
        .decimal(Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) ?? 0)
    }

    static let cases: [(AttributeDescription, [AttributeValue])] = [
        (
            AttributeDescription(name: "count", type: .integer16),
            [.integer(32_767), .integer(32_768), .integer(-32_768), .integer(-32_769), .integer(0)]
        ),
        (
            AttributeDescription(name: "quantity", type: .integer32, minValue: 0, maxValue: 1000),
            [.integer(-1), .integer(0), .integer(1000), .integer(1001), .integer(2_147_483_648)]
        ),
        (
            AttributeDescription(name: "level", type: .integer64, minValue: 0.5, maxValue: 9.5),
            [.integer(0), .integer(1), .integer(9), .integer(10), .integer(.min), .integer(.max)]
        ),
        (
            AttributeDescription(name: "ratio", type: .double, minValue: -1, maxValue: 0.1),
            [.double(-1), .double(-1.000001), .double(0.1), .double(0.1000001), .double(0), .double(.infinity)]
        ),
        (
            AttributeDescription(name: "weight", type: .float, minValue: 0),
            [.double(-0.5), .double(0), .double(3.25)]
        ),
        (
            AttributeDescription(name: "when", type: .date, minValue: 0, maxValue: 86_400),
            [date(-1), date(0), date(86_400), date(86_400.5), date(1_000)]
        ),
        (
            AttributeDescription(name: "price", type: .decimal, decimalPrecision: 6, decimalScale: 2),
            [decimal("9999.99"), decimal("10000"), decimal("-10000"), decimal("0.125"), decimal("12.50"), decimal("0")]
        ),
        (
            AttributeDescription(name: "amount", type: .decimal, minValue: 0.1, maxValue: 99.5),
            [
                decimal("0.1"), decimal("0.09"), decimal("0.099999"), decimal("0.10001"), decimal("99.5"),
                decimal("99.50001"), decimal("100"), decimal("-1"), decimal("0"), decimal("12.25"), decimal("9.6"),
            ]
        ),
        (
            AttributeDescription(name: "delta", type: .decimal, minValue: -20.25, maxValue: -0.5, decimalPrecision: 4),
            [
                decimal("-20.25"), decimal("-20.26"), decimal("-21"), decimal("-0.5"), decimal("-0.49"),
                decimal("0"), decimal("3"), decimal("-5"), decimal("-2.125"), decimal("-100000"),
            ]
        ),
        (
            AttributeDescription(name: "code", type: .string, minLength: 2, maxLength: 4),
            [
                .string(""), .string("a"), .string("ab"), .string("abcd"), .string("abcde"), .string("é"),
                .string("éé"), .string("😀"), .string("😀😀"), .string("😀😀a"), .string("日本語"),
            ]
        ),
        (
            AttributeDescription(name: "sku", type: .string, regularExpression: "SKU-[0-9]{3}|é+"),
            [
                .string("SKU-123"), .string("SKU-12"), .string("SKU-1234"), .string("xSKU-123"), .string(""),
                .string("é"), .string("éé"), .string("e\u{301}"), .string("SKU-123\n"),
            ]
        ),
        (
            AttributeDescription(name: "tag", type: .string, maxLength: 3, regularExpression: "[a-z]+"),
            [.string("abc"), .string("abcd"), .string("ABCD"), .string("AB"), .string("a😀")]
        ),
        (AttributeDescription(name: "flag", type: .boolean, minValue: 1), [.boolean(false), .boolean(true)]),
    ]

    @Test("Checking the stored form finds the value's first broken rule", arguments: cases)
    func storedFormAgreesWithTheValue(attribute: AttributeDescription, values: [AttributeValue]) throws {
        let rules = try AttributeRules(attribute, of: "Item")
        var broken = 0
        for value in values {
            var rows = PackedRows(columns: [attribute.name])
            rows.append(value, as: attribute.type)
            let cell = try #require(rows.openRowLastCell)
            let byValue = rules.check(value).first
            let byStoredForm = rules.checkStored(cell, in: rows)
            #expect(byStoredForm?.code == byValue?.code, "\(attribute.name) \(value)")
            #expect(byStoredForm?.message == byValue?.message, "\(attribute.name) \(value)")
            if byValue != nil { broken += 1 }
        }
        // Each attribute's values break its rules and keep them.
        #expect(attribute.type == .boolean || (broken > 0 && broken < values.count), "\(attribute.name)")
    }

    @Test func canonicalDecimalTextsOrderAsTheirValues() {
        let texts = [
            "-1000", "-999.99", "-10", "-9.5", "-1", "-0.5", "-0.05", "0", "0.001", "0.01", "0.1", "0.15", "1",
            "1.5", "9", "10", "10.01", "99", "100",
        ]
        for (i, a) in texts.enumerated() {
            for (j, b) in texts.enumerated() {
                let order = Array(a.utf8).withUnsafeBytes { a in
                    Array(b.utf8).withUnsafeBytes { DecimalText.compareCanonical(a, $0) }
                }
                #expect(order == (i < j ? -1 : i > j ? 1 : 0), "\(a) against \(b)")
            }
        }
    }
}

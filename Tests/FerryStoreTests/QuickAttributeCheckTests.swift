import Foundation
import Testing

@testable import FerryStore

/// The save's shortcut past an attribute's full rules (``QuickAttributeCheck``) agrees with those rules.
struct QuickAttributeCheckTests {
    /// One value of every kind, and nil.
    static let values: [AttributeValue?] = [
        nil, .integer(40_000), .integer(-3), .double(2.5), .decimal(Decimal(string: "0.1") ?? 0), .string(""),
        .string("a longer string"), .boolean(true), .date(Date(timeIntervalSince1970: 86_400)),
        .binary(Data([1, 2])), .uuid(UUID()), .uri(URL(fileURLWithPath: "/tmp/x")), .transformable(Data([3])),
    ]

    /// Every type, optional or not, with and without value rules.
    static let attributes: [AttributeDescription] = {
        let types: [AttributeType] = [
            .integer16, .integer32, .integer64, .double, .float, .decimal, .string, .boolean, .date, .binary, .uuid,
            .uri, .transformable(transformer: "NSSecureUnarchiveFromData"),
        ]
        var attributes: [AttributeDescription] = []
        for type in types {
            for isOptional in [true, false] {
                attributes.append(AttributeDescription(name: "plain", type: type, isOptional: isOptional))
                attributes.append(
                    AttributeDescription(
                        name: "bounded", type: type, isOptional: isOptional, minValue: 0, maxValue: 10, minLength: 2,
                        maxLength: 5))
            }
        }
        return attributes
    }()

    @Test func aValueTheShortcutPassesBreaksNoneOfTheAttributesRules() throws {
        var passed = 0
        for attribute in Self.attributes {
            let rules = try AttributeRules(attribute, of: "Thing")
            let quick = QuickAttributeCheck(rules)
            for value in Self.values where quick.passes(value) {
                #expect(
                    rules.check(value).isEmpty,
                    "\(attribute.type) \(attribute.name) passed \(String(describing: value))")
                passed += 1
            }
        }
        // Nil for each optional attribute and the value of its own kind for each plain 64-bit one, at least.
        #expect(passed > Self.attributes.count / 2)
    }

    @Test func aValueOfItsOwnKindPassesAnAttributeWithoutValueRules() throws {
        for attribute in Self.attributes
        where attribute.name == "plain" && attribute.type != .integer16
            && attribute.type != .integer32
        {
            let quick = QuickAttributeCheck(try AttributeRules(attribute, of: "Thing"))
            let fitting = Self.values.compactMap { $0 }.filter { ModelValidator.value($0, fits: attribute.type) }
            #expect(!fitting.isEmpty)
            for value in fitting { #expect(quick.passes(value), "\(attribute.type) refused \(value)") }
            #expect(quick.passes(nil) == attribute.isOptional)
        }
    }

    @Test func valuesOfAnotherKindOrNeedingTheirBoundsAreLeftToTheFullRules() throws {
        let narrow = QuickAttributeCheck(
            try AttributeRules(AttributeDescription(name: "n", type: .integer16), of: "Thing"))
        #expect(!narrow.passes(.integer(1)))
        let text = QuickAttributeCheck(try AttributeRules(AttributeDescription(name: "t", type: .string), of: "Thing"))
        #expect(!text.passes(.integer(1)))
        #expect(text.passes(.string("x")))
        let required = QuickAttributeCheck(
            try AttributeRules(AttributeDescription(name: "r", type: .string, isOptional: false), of: "Thing"))
        #expect(!required.passes(nil))
    }
}

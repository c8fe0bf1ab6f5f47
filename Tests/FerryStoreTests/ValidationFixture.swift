import Foundation

@testable import FerryStore

/// A model with one rule of each kind, and a valid Book that tests break one property at a time.
enum ValidationFixture {
    /// 2000-01-01T00:00:00Z, the latest allowed publication date.
    static let latestPublication = 946_684_800.0

    static let model = ManagedObjectModel(entities: [
        EntityDescription(
            name: "Book",
            attributes: [
                AttributeDescription(name: "title", type: .string, isOptional: false, maxLength: 4),
                AttributeDescription(name: "isbn", type: .string, minLength: 2),
                AttributeDescription(name: "slug", type: .string, regularExpression: "[a-z]+(-[a-z]+)*"),
                AttributeDescription(name: "pages", type: .integer16, minValue: 1, maxValue: 1000),
                AttributeDescription(name: "rating", type: .double, minValue: 0, maxValue: 5),
                AttributeDescription(name: "price", type: .decimal, minValue: 0.1, maxValue: 99.99),
                AttributeDescription(name: "published", type: .date, minValue: 0, maxValue: latestPublication),
                AttributeDescription(name: "cover", type: .binary),
                AttributeDescription(name: "scratch", type: .string, isTransient: true, maxLength: 3),
                AttributeDescription(
                    name: "chapterCount", type: .integer64, isOptional: false, derivation: "chapters.@count"),
            ],
            relationships: [
                RelationshipDescription(
                    name: "author", destinationEntity: "Author", inverseName: "books", isOptional: false),
                RelationshipDescription(
                    name: "tags", destinationEntity: "Tag", isToMany: true, minCount: 2, maxCount: 3),
                RelationshipDescription(
                    name: "chapters", destinationEntity: "Chapter", isToMany: true, deleteRule: .cascade,
                    isOptional: false),
                RelationshipDescription(
                    name: "reviews", destinationEntity: "Review", isToMany: true, deleteRule: .deny),
                RelationshipDescription(name: "publisher", destinationEntity: "Publisher", deleteRule: .deny),
                RelationshipDescription(name: "readers", destinationEntity: "Reader", isToMany: true),
            ]),
        EntityDescription(
            name: "Novel", parentEntity: "Book",
            attributes: [AttributeDescription(name: "genre", type: .string, isOptional: false)],
            relationships: [
                RelationshipDescription(name: "series", destinationEntity: "Series", isOptional: false)
            ]),
        EntityDescription(
            name: "Author",
            relationships: [
                RelationshipDescription(
                    name: "books", destinationEntity: "Book", inverseName: "author", isToMany: true)
            ]),
    ])

    /// A Book that passes every rule.
    static let validAttributes: [String: AttributeValue?] = [
        "title": .string("Dune"), "isbn": .string("978"), "slug": .string("dune"), "pages": .integer(412),
        "rating": .double(4.5), "price": .decimal(9.99), "published": .date(Date(timeIntervalSince1970: 0)),
        "cover": .binary(Data([1, 2])), "scratch": .string("ok"),
    ]

    /// The relationship counts of a valid Book.
    static let validCounts = ["author": 1, "tags": 2, "chapters": 1, "reviews": 0, "publisher": 0]

    /// A validator for ``model``.
    static func validator() throws -> ObjectValidator {
        try ObjectValidator(model: model)
    }

    /// The errors of a Book whose valid values are overridden by `attributes` and `counts`.
    static func bookErrors(
        _ attributes: [String: AttributeValue?] = [:], counts: [String: Int] = [:],
        validator: ObjectValidator? = nil, entity: String = "Book"
    ) throws -> [ValidationError] {
        let validator = try validator ?? Self.validator()
        return validator.validateForInsertOrUpdate(
            entity: entity, attributes: validAttributes.merging(attributes) { _, new in new },
            relationshipCounts: validCounts.merging(counts) { _, new in new }, objectDescription: "Book/p7")
    }

    /// A decimal from its text, exactly.
    static func decimal(_ text: String) -> AttributeValue {
        .decimal(Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) ?? .nan)
    }
}

extension Array where Element == ValidationError {
    /// `code key` for each error, for compact expectations: `["1570 title", "1580 tags"]`.
    var summary: [String] {
        map { "\($0.code.rawValue) \($0.key ?? "-")" }
    }
}

import Foundation

@testable import FerryStore

/// Models for the writer tests: one with every setting the format has, one with a default of every type and
/// awkward edge values, and texts that YAML would misread unless quoted and escaped.
enum WriterFixture {
    /// Abstract and sub-entities, every attribute setting, every relationship setting and delete rule, compound
    /// constraints, indexes on attributes and a to-one relationship, an entity with nothing, fetch request templates.
    static let everySetting = ManagedObjectModel(
        entities: [
            EntityDescription(
                name: "Party", isAbstract: true,
                attributes: [
                    AttributeDescription(
                        name: "name", type: .string, isOptional: false, minLength: 1, maxLength: 80,
                        regularExpression: "[A-Z].*"),
                    AttributeDescription(name: "searchName", type: .string, derivation: "canonical:(name)"),
                ],
                indexes: [["name"]]),
            EntityDescription(
                name: "Customer", parentEntity: "Party",
                attributes: [
                    AttributeDescription(name: "email", type: .string, isIndexed: true),
                    AttributeDescription(name: "settings", type: .transformable(transformer: "JSON")),
                    AttributeDescription(name: "avatar", type: .binary, allowsExternalStorage: true),
                    AttributeDescription(name: "scratch", type: .string, isTransient: true, maxLength: 3),
                    AttributeDescription(
                        name: "orderCount", type: .integer64, defaultValue: .integer(0), derivation: "@count orders"),
                ],
                relationships: [
                    RelationshipDescription(
                        name: "orders", destinationEntity: "Order", inverseName: "customer", isToMany: true,
                        deleteRule: .deny),
                    RelationshipDescription(name: "favorite", destinationEntity: "Product", deleteRule: .noAction),
                ],
                uniquenessConstraints: [["email"]]),
            EntityDescription(
                name: "Order",
                attributes: [
                    AttributeDescription(
                        name: "number", type: .integer32, isOptional: false, minValue: 1, maxValue: 99_999_999),
                    AttributeDescription(
                        name: "placed", type: .date, isOptional: false, isIndexed: true, minValue: 946_684_800,
                        maxValue: 4_102_444_800.5),
                    AttributeDescription(name: "total", type: .decimal, minValue: 0, maxValue: 1e12),
                    AttributeDescription(name: "discount", type: .float, minValue: -0.5, maxValue: 0.75),
                    AttributeDescription(name: "weight", type: .double, minValue: 1e-9, maxValue: 1e300),
                ],
                relationships: [
                    RelationshipDescription(
                        name: "customer", destinationEntity: "Customer", inverseName: "orders", isOptional: false),
                    RelationshipDescription(
                        name: "lines", destinationEntity: "Line", inverseName: "order", isToMany: true,
                        isOrdered: true, deleteRule: .cascade, isOptional: false, minCount: 1, maxCount: 50),
                ],
                uniquenessConstraints: [["number"], ["placed", "number"]],
                indexes: [["customer", "placed"], ["total"]]),
            EntityDescription(
                name: "Line", attributes: [AttributeDescription(name: "quantity", type: .integer16, minValue: 1)],
                relationships: [
                    RelationshipDescription(name: "order", destinationEntity: "Order", inverseName: "lines"),
                    RelationshipDescription(name: "product", destinationEntity: "Product", inverseName: "lines"),
                ]),
            EntityDescription(
                name: "Product", attributes: [AttributeDescription(name: "sku", type: .string)],
                relationships: [
                    RelationshipDescription(
                        name: "lines", destinationEntity: "Line", inverseName: "product", isToMany: true)
                ]),
            EntityDescription(name: "Empty"),
        ],
        fetchRequestTemplates: [
            "bigOrders": FetchRequestTemplate(entity: "Order", predicate: "total > $MIN"),
            "allLines": FetchRequestTemplate(entity: "Line", predicate: "TRUEPREDICATE"),
            "byEmail": FetchRequestTemplate(entity: "Customer", predicate: "email ==[c] $EMAIL"),
        ])

    /// A default of every type, with the edge values of each: extreme integers, doubles that need their exact
    /// spelling (-0.0, subnormals), long and negative decimals, dates before 1970 and between seconds, empty binary,
    /// URIs with escapes, a transformable's encoded bytes, strings YAML would misread.
    static let everyDefault = ManagedObjectModel(entities: [
        EntityDescription(
            name: "Thing",
            attributes: [
                AttributeDescription(name: "small", type: .integer16, defaultValue: .integer(-32768)),
                AttributeDescription(name: "medium", type: .integer32, defaultValue: .integer(2_147_483_647)),
                AttributeDescription(name: "large", type: .integer64, defaultValue: .integer(Int64.min)),
                AttributeDescription(name: "tenth", type: .double, defaultValue: .double(0.1)),
                AttributeDescription(name: "negativeZero", type: .double, defaultValue: .double(-0.0)),
                AttributeDescription(name: "tiny", type: .double, defaultValue: .double(1e-7)),
                AttributeDescription(name: "huge", type: .double, defaultValue: .double(.greatestFiniteMagnitude)),
                AttributeDescription(name: "subnormal", type: .double, defaultValue: .double(.leastNonzeroMagnitude)),
                AttributeDescription(name: "ratio", type: .float, defaultValue: .double(1.5)),
                AttributeDescription(
                    name: "price", type: .decimal, defaultValue: decimal("12345678901234567890.123456789")),
                AttributeDescription(name: "refund", type: .decimal, defaultValue: decimal("-0.10")),
                AttributeDescription(name: "zero", type: .decimal, defaultValue: decimal("0")),
                AttributeDescription(name: "minute", type: .decimal, defaultValue: decimal("1e-20")),
                AttributeDescription(name: "empty", type: .string, defaultValue: .string("")),
                AttributeDescription(name: "nullWord", type: .string, defaultValue: .string("null")),
                AttributeDescription(name: "colon", type: .string, defaultValue: .string(" a: b # c ")),
                AttributeDescription(name: "digits", type: .string, defaultValue: .string("01234")),
                AttributeDescription(name: "yes", type: .boolean, defaultValue: .boolean(true)),
                AttributeDescription(name: "no", type: .boolean, defaultValue: .boolean(false)),
                AttributeDescription(name: "epoch", type: .date, defaultValue: .date(Date(timeIntervalSince1970: 0))),
                AttributeDescription(
                    name: "morning", type: .date, defaultValue: .date(Date(timeIntervalSince1970: 1_767_603_600))),
                AttributeDescription(
                    name: "halfSecond", type: .date, defaultValue: .date(Date(timeIntervalSince1970: 1.5))),
                AttributeDescription(
                    name: "before1970", type: .date, defaultValue: .date(Date(timeIntervalSince1970: -86_400.25))),
                AttributeDescription(
                    name: "ancient", type: .date, defaultValue: .date(Date(timeIntervalSince1970: -62_135_596_800))),
                AttributeDescription(name: "nothing", type: .binary, defaultValue: .binary(Data())),
                AttributeDescription(name: "bytes", type: .binary, defaultValue: .binary(Data([0, 1, 2, 250, 255]))),
                AttributeDescription(
                    name: "code", type: .uuid,
                    defaultValue: .uuid(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F") ?? UUID())),
                AttributeDescription(
                    name: "site", type: .uri, defaultValue: uri("https://example.com/a%20b?q=1&r=2#top")),
                AttributeDescription(name: "file", type: .uri, defaultValue: uri("file:///tmp/caf%C3%A9.txt")),
                AttributeDescription(
                    name: "settings", type: .transformable(transformer: "JSON"),
                    defaultValue: .transformable(Data(#"{"width":2,"height":3.5}"#.utf8))),
            ])
    ])

    /// Texts that a plain YAML scalar would lose, change or refuse; all distinct, even under canonical equivalence.
    static let awkwardTexts = [
        "", " leading", "trailing ", "  ", "a: b", "#hash", "x #y", "null", "~", "yes", "Off", "- dash", "-",
        "[list]", "{map}", "a, b", "*star", "&anchor", "!bang", "%percent", "@at", "`tick", "|pipe", ">fold", "?q",
        "'single'", "\"double\"", "back\\slash", "tab\there", "line\nbreak", "cr\rlf", "\u{85}next line",
        "ls\u{2028}ps\u{2029}", "mid\u{FEFF}bom", "bell\u{7}", "del\u{7F}", "café", "日本語", "emoji 😀", "0123",
        "1e5",
        "-0", ".inf", "true", "<<", "---", "...",
    ]

    static func decimal(_ text: String) -> AttributeValue {
        .decimal(Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) ?? 0)
    }

    static func uri(_ text: String) -> AttributeValue {
        .uri(URL(string: text) ?? URL(fileURLWithPath: "/"))
    }
}

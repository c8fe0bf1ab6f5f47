import FerryTestSupport
import Foundation
import Testing

@testable import FerryStore

/// The model version hash: stable for the same model, changed by what shapes the store and by nothing else.
struct ModelFileVersionHashTests {
    static let base = """
        entities:
          Category:
            attributes:
              name: { type: string, optional: false, maxLength: 80, regex: "^[A-Z]" }
            relationships:
              products: { to: Product, toMany: true, inverse: category, deleteRule: deny }
            uniquenessConstraints: [[name]]
          Product:
            attributes:
              sku: { type: string, optional: false }
              price: { type: decimal, min: 0, default: 1.50 }
            relationships:
              category: { to: Category, inverse: products }
            indexes: [[category, price]]
        fetchRequestTemplates:
          cheap: { entity: Product, predicate: "price < 1" }
        """

    static func hash(_ yaml: String) throws -> String {
        try ManagedObjectModel(yaml: yaml).versionHash
    }

    static func hash(replacing old: String, with new: String) throws -> String {
        precondition(base.contains(old), "the base model has no '\(old)'")
        return try hash(base.replacingOccurrences(of: old, with: new))
    }

    @Test func theCanonicalTextIsPinnedSoTheHashIsTheSameInEveryProcess() throws {
        let model = try ManagedObjectModel(yaml: Self.base)
        #expect(
            model.versionHashText == """
                ferry model version hash 1
                entity "Category" abstract=false parent=-
                  attribute "name" type=string optional=false default=- indexed=false externalStorage=false \
                derivation=-
                  relationship "products" to="Product" toMany=true ordered=false optional=true inverse="category" \
                deleteRule=deny
                  unique ["name"]
                entity "Product" abstract=false parent=-
                  attribute "price" type=decimal optional=true default=decimal:1.5 indexed=false externalStorage=false \
                derivation=-
                  attribute "sku" type=string optional=false default=- indexed=false externalStorage=false derivation=-
                  relationship "category" to="Category" toMany=false ordered=false optional=true inverse="products" \
                deleteRule=nullify
                  index ["category","price"]

                """)
        // The SHA-256 of the text above, computed independently (sha256sum).
        #expect(model.versionHash == "0b06875b2431c1edf4415de231ff129c87a2064ec7b70097f976c5e3ed42f7d8")
    }

    @Test func theSameModelHasTheSameHashHoweverItWasBuilt() throws {
        let loaded = try ManagedObjectModel(yaml: Self.base)
        let built = ManagedObjectModel(entities: [
            EntityDescription(
                name: "Category",
                attributes: [AttributeDescription(name: "name", type: .string, isOptional: false)],
                relationships: [
                    RelationshipDescription(
                        name: "products", destinationEntity: "Product", inverseName: "category", isToMany: true,
                        deleteRule: .deny)
                ],
                uniquenessConstraints: [["name"]]),
            EntityDescription(
                name: "Product",
                attributes: [
                    AttributeDescription(name: "sku", type: .string, isOptional: false),
                    AttributeDescription(
                        name: "price", type: .decimal, defaultValue: .decimal(Decimal(string: "1.5") ?? 0)),
                ],
                relationships: [
                    RelationshipDescription(name: "category", destinationEntity: "Category", inverseName: "products")
                ],
                indexes: [["category", "price"]]),
        ])
        #expect(built.versionHash == loaded.versionHash)
        #expect(try Self.hash(Self.base) == loaded.versionHash)
        #expect(loaded.versionHash.count == 64)
        #expect(loaded.versionHash.allSatisfy { "0123456789abcdef".contains($0) })
    }

    /// Each of these changes what is stored or how, so the store must notice.
    @Test(arguments: [
        ("sku: { type: string, optional: false }", "sku: { type: integer64, optional: false }"),
        ("sku: { type: string, optional: false }", "sku: { type: string }"),
        ("default: 1.50", "default: 1.55"),
        ("sku: { type: string, optional: false }", "sku: { type: string, optional: false, indexed: true }"),
        ("  Product:\n    attributes:\n", "  Product:\n    attributes:\n      weight: double\n"),
        ("    uniquenessConstraints: [[name]]\n", ""),
        ("indexes: [[category, price]]", "indexes: [[category, price]]\n    uniquenessConstraints: [[sku]]"),
        ("indexes: [[category, price]]", "indexes: [[price, category]]"),
        ("deleteRule: deny", "deleteRule: cascade"),
        ("toMany: true, inverse: category", "toMany: true, ordered: true, inverse: category"),
        ("entities:\n", "entities:\n  Tag: {}\n"),
    ])
    func aChangeToWhatIsStoredChangesTheHash(old: String, new: String) throws {
        #expect(try Self.hash(replacing: old, with: new) != Self.hash(Self.base))
    }

    /// Validation-only rules, transient attributes, templates and the order of properties leave the store alone.
    @Test(arguments: [
        ("maxLength: 80", "maxLength: 120"),
        ("regex: \"^[A-Z]\"", "regex: \"^[A-Z0-9]\""),
        ("min: 0", "min: 1"),
        (
            "  Product:\n    attributes:\n",
            "  Product:\n    attributes:\n      note: { type: string, transient: true }\n"
        ),
        (
            "cheap: { entity: Product, predicate: \"price < 1\" }",
            "cheap: { entity: Product, predicate: \"price < 2\" }"
        ),
        (
            "      sku: { type: string, optional: false }\n      price: { type: decimal, min: 0, default: 1.50 }\n",
            "      price: { type: decimal, min: 0, default: 1.50 }\n      sku: { type: string, optional: false }\n"
        ),
    ])
    func aChangeThatStoresNothingNewKeepsTheHash(old: String, new: String) throws {
        #expect(try Self.hash(replacing: old, with: new) == Self.hash(Self.base))
    }

    @Test func entityOrderIsPartOfTheHashBecauseEntityNumbersFollowIt() throws {
        let swapped = try ManagedObjectModel(
            entities: ManagedObjectModel(yaml: Self.base).entities.reversed())
        #expect(swapped.versionHash != (try Self.hash(Self.base)))
    }

    @Test func eachEntityHasItsOwnHashSoAMigrationCanTellWhatChanged() throws {
        let before = try ManagedObjectModel(yaml: Self.base).entityVersionHashes
        let after = try ManagedObjectModel(
            yaml: Self.base.replacingOccurrences(of: "default: 1.50", with: "default: 2")
        )
        .entityVersionHashes
        #expect(Set(before.keys) == ["Category", "Product"])
        #expect(before["Category"] == after["Category"])
        #expect(before["Product"] != after["Product"])
    }

    @Test func namesAreQuotedSoThatNoNameCanForgeAnotherLine() {
        #expect(ManagedObjectModel.quoted("plain") == "\"plain\"")
        #expect(ManagedObjectModel.quoted("a\"b\\c\nd") == "\"a\\\"b\\\\c\\u{a}d\"")
    }

    // MARK: - SHA-256 (FIPS 180-2, appendix B, and padding boundaries checked with sha256sum)

    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (
            "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        ),
        (
            "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopq"
                + "klmnopqrlmnopqrsmnopqrstnopqrstu",
            "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"
        ),
        (String(repeating: "a", count: 55), "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318"),
        (String(repeating: "a", count: 56), "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a"),
        (String(repeating: "a", count: 63), "7d3e74a05d7db15bce4ad9ec0658ea98e3f06eeecf16b4c6fff2da457ddc2f34"),
        (String(repeating: "a", count: 64), "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb"),
        (String(repeating: "a", count: 65), "635361c48bb9eab14198e76ea8ab7f1a41685d6ad62aa9146d301d4f17eb0ae0"),
        ("Zoë 日本", "634e8d1e62f4f78a009b24972a3107e5111f657f7290764e6670dfc9330f6b9b"),
    ])
    func sha256MatchesTheReferenceVectors(message: String, digest: String) {
        #expect(SHA256.hex(of: message) == digest)
    }

    @Test func sha256OfAMillionAsMatchesFIPS() {
        #expect(
            SHA256.hex(of: String(repeating: "a", count: 1_000_000))
                == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }
}

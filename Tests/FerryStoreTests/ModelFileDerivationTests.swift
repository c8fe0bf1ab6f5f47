import Testing

@testable import FerryStore
import Foundation

/// Derived attributes: the forms the store maintains (REFERENCE.md §8.1), on attributes that can hold them.
struct ModelFileDerivationTests {
    static let entities = """
        entities:
          Category:
            attributes:
              name: { type: string, optional: false }
            relationships:
              products: { to: Product, toMany: true, inverse: category }
          Product:
            attributes:
              name: string
              price: decimal
              quantity: integer32
            relationships:
              category: { to: Category, inverse: products }
          Report:
            attributes:

        """

    /// A model with one derived attribute on `Report`'s sibling, `Category` or `Product`, as `line` says.
    static func model(_ entity: String, _ line: String) -> String {
        entities.replacingOccurrences(
            of: "  \(entity):\n    attributes:\n", with: "  \(entity):\n    attributes:\n      \(line)\n")
    }

    @Test(arguments: [
        ("Category", "productCount: { type: integer64, derivation: \"@count products\" }"),
        ("Category", "productCount: { type: integer16, derivation: products.@count }"),
        ("Category", "stock: { type: integer64, derivation: \"@sum products.quantity\" }"),
        ("Category", "value: { type: decimal, derivation: products.price.@sum }"),
        ("Category", "averagePrice: { type: decimal, derivation: \"@avg products.price\" }"),
        ("Category", "averageQuantity: { type: double, derivation: products.quantity.@avg }"),
        ("Category", "meanPrice: { type: float, derivation: \"@avg products.price\" }"),
        ("Category", "lowestPrice: { type: decimal, derivation: \"@min products.price\" }"),
        ("Category", "mostQuantity: { type: integer32, derivation: products.quantity.@max }"),
        ("Category", "firstName: { type: string, derivation: \"@min products.name\" }"),
        ("Category", "searchName: { type: string, derivation: \"canonical:(name)\" }"),
        ("Category", "lowerName: { type: string, derivation: \"lowercase:name\" }"),
        ("Category", "upperName: { type: string, derivation: \"uppercase: (name)\" }"),
        ("Category", "changedAt: { type: date, derivation: now() }"),
        ("Product", "categoryName: { type: string, derivation: category.name }"),
        ("Product", "searchCategory: { type: string, derivation: \"canonical:(category.name)\" }"),
        ("Product", "copy: { type: decimal, derivation: price }"),
    ])
    func everySupportedFormLoads(entity: String, line: String) throws {
        let model = try ManagedObjectModel(yaml: Self.model(entity, line))
        #expect(model.entity(named: entity)?.attributes.first?.derivation != nil)
    }

    @Test(arguments: [
        (
            "Category", "middle: { type: decimal, derivation: \"@median products.price\" }",
            "entity Category, attribute middle: unsupported derivation '@median products.price'; expected a key path "
                + "through to-one relationships, now(), canonical:, lowercase: or uppercase: of a key path, "
                + "'@count REL', or '@sum REL.ATTR', '@avg REL.ATTR', '@min REL.ATTR' or '@max REL.ATTR'"
        ),
        (
            "Category", "total: { type: decimal, derivation: \"price * quantity\" }",
            "entity Category, attribute total: unsupported derivation 'price * quantity'; expected a key path "
                + "through to-one relationships, now(), canonical:, lowercase: or uppercase: of a key path, "
                + "'@count REL', or '@sum REL.ATTR', '@avg REL.ATTR', '@min REL.ATTR' or '@max REL.ATTR'"
        ),
        (
            "Category", "average: { type: decimal, derivation: \"@avg products.price.amount\" }",
            "entity Category, attribute average: unsupported derivation '@avg products.price.amount'; expected a key "
                + "path through to-one relationships, now(), canonical:, lowercase: or uppercase: of a key path, "
                + "'@count REL', or '@sum REL.ATTR', '@avg REL.ATTR', '@min REL.ATTR' or '@max REL.ATTR'"
        ),
        (
            "Category", "average: { type: integer64, derivation: \"@avg products.quantity\" }",
            "entity Category, attribute average: derivation '@avg products.quantity' needs type double, float or "
                + "decimal, not integer64"
        ),
        (
            "Category", "average: { type: double, derivation: products.name.@avg }",
            "entity Category, attribute average: derivation 'products.name.@avg' averages 'name', which is string, "
                + "not a number"
        ),
        (
            "Category", "lowest: { type: double, derivation: \"@min products.price\" }",
            "entity Category, attribute lowest: derivation '@min products.price' takes the minimum of 'price', which "
                + "is decimal, but the type is double"
        ),
        (
            "Category", "most: { type: integer64, derivation: products.quantity.@max }",
            "entity Category, attribute most: derivation 'products.quantity.@max' takes the maximum of 'quantity', "
                + "which is integer32, but the type is integer64"
        ),
        (
            "Product", "top: { type: string, derivation: \"@max category.name\" }",
            "entity Product, attribute top: derivation '@max category.name': 'category' is not a to-many "
                + "relationship of Product"
        ),
        (
            "Category", "top: { type: string, derivation: \"@max products.nme\" }",
            "entity Category, attribute top: derivation '@max products.nme': 'nme' is not an attribute of Product; "
                + "did you mean 'name'?"
        ),
        (
            "Product", "count: { type: integer64, derivation: \"@count category\" }",
            "entity Product, attribute count: derivation '@count category': 'category' is not a to-many "
                + "relationship of Product"
        ),
        (
            "Category", "count: { type: string, derivation: \"@count products\" }",
            "entity Category, attribute count: derivation '@count products' needs an integer type, not string"
        ),
        (
            "Category", "count: { type: integer64, derivation: \"@count prodcts\" }",
            "entity Category, attribute count: derivation '@count prodcts': 'prodcts' is not a to-many relationship "
                + "of Category; did you mean 'products'?"
        ),
        (
            "Category", "names: { type: string, derivation: \"@sum products.name\" }",
            "entity Category, attribute names: derivation '@sum products.name' sums 'name', which is string, not a "
                + "number"
        ),
        (
            "Category", "stock: { type: string, derivation: \"@sum products.quantity\" }",
            "entity Category, attribute stock: derivation '@sum products.quantity' needs a numeric type, not string"
        ),
        (
            "Category", "stamp: { type: string, derivation: now() }",
            "entity Category, attribute stamp: derivation 'now()' needs type date, not string"
        ),
        (
            "Category", "firstPrice: { type: decimal, derivation: products.price }",
            "entity Category, attribute firstPrice: derivation 'products.price': 'products' is a to-many "
                + "relationship; use @count, @sum, @avg, @min or @max over it"
        ),
        (
            "Product", "categoryName: { type: integer32, derivation: category.name }",
            "entity Product, attribute categoryName: derivation 'category.name' copies a string, but the type is "
                + "integer32"
        ),
        (
            "Product", "categoryName: { type: string, derivation: category.nme }",
            "entity Product, attribute categoryName: derivation 'category.nme': 'nme' is not an attribute of "
                + "Category; did you mean 'name'?"
        ),
        (
            "Product", "categoryName: { type: string, derivation: category }",
            "entity Product, attribute categoryName: derivation 'category': 'category' is a relationship of "
                + "Product; a derivation copies an attribute"
        ),
        (
            "Product", "echo: { type: string, derivation: echo }",
            "entity Product, attribute echo: derivation 'echo': an attribute cannot be derived from itself"
        ),
        (
            "Product", "search: { type: string, derivation: \"canonical:(price)\" }",
            "entity Product, attribute search: derivation 'canonical:(price)': canonical: applies to strings, and "
                + "'price' is decimal"
        ),
        (
            "Product", "scratch: { type: string, transient: true, derivation: name }",
            "entity Product, attribute scratch: a transient attribute cannot be derived: derived values live in a "
                + "column the store maintains"
        ),
        (
            "Report", "blob: { type: binary, allowsExternalStorage: true, derivation: now() }",
            "entity Report, attribute blob: a derived attribute cannot use external storage\n"
                + "Pipelines/test.model.yml:16: entity Report, attribute blob: derivation 'now()' needs type date, "
                + "not binary"
        ),
    ])
    func anUnsupportedOrMisplacedDerivationIsAnError(entity: String, line: String, message: String) {
        let errors = ModelFileFixture.errors(Self.model(entity, line))
        // Every case's attribute is on line 4 of its entity block; the entity blocks start at 2, 7 and 14.
        let lineNumber = ["Category": 4, "Product": 9, "Report": 16][entity] ?? 0
        #expect(errors.joined(separator: "\n") == "Pipelines/test.model.yml:\(lineNumber): \(message)")
    }

    @Test(arguments: ["@min", "@max"])
    func minAndMaxRefuseAnAttributeThatIsNotANumberADateOrAString(function: String) {
        let yaml = """
            entities:
              Order:
                attributes:
                  extreme: { type: boolean, derivation: "\(function) lines.flag" }
                relationships:
                  lines: { to: Line, toMany: true, inverse: order }
              Line:
                attributes:
                  flag: boolean
                relationships:
                  order: { to: Order, inverse: lines }

            """
        let extreme = function == "@min" ? "minimum" : "maximum"
        #expect(
            ModelFileFixture.errors(yaml) == [
                "Pipelines/test.model.yml:4: entity Order, attribute extreme: derivation '\(function) lines.flag' "
                    + "takes the \(extreme) of 'flag', which is boolean; @min and @max take numbers, dates and strings"
            ])
    }

    @Test func aNonOptionalDerivedAttributeWithoutADefaultIsAWarning() throws {
        #expect(
            try ModelFileFixture.warnings(
                Self.model(
                    "Category", "productCount: { type: integer64, optional: false, derivation: \"@count products\" }"))
                == [
                    "Pipelines/test.model.yml:4: entity Category, attribute productCount: non-optional and derived, "
                        + "without a default: validation runs before the store computes the value, so inserts would "
                        + "fail; make it optional or give it a default"
                ])
        #expect(
            try ModelFileFixture.warnings(
                Self.model(
                    "Category",
                    "productCount: { type: integer64, optional: false, default: 0, derivation: \"@count products\" }"
                )) == [])
    }
}

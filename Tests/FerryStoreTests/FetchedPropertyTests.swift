import FerryTestSupport
import Foundation
import Testing

@testable import FerryStore

/// Fetched properties: declared in Swift, in model files and in Xcode models; fetched lazily with `$FETCH_SOURCE`
/// standing for the object read; kept until the object is refreshed.
struct FetchedPropertyTests {
    /// The catalog model with `Product.sameCategory` (the other products of its category) and
    /// `Category.pricey` (its products above 5).
    static func model() -> ManagedObjectModel {
        var model = ContextFixture.catalogModel()
        for index in model.entities.indices {
            switch model.entities[index].name {
            case "Product":
                model.entities[index].fetchedProperties = [
                    FetchedPropertyDescription(
                        name: "sameCategory", destinationEntity: "Product",
                        predicate: "category == $FETCH_SOURCE.category AND SELF != $FETCH_SOURCE"),
                    FetchedPropertyDescription(
                        name: "sameCategoryName", destinationEntity: "Category",
                        predicate: "name == $FETCH_SOURCE.category.name"),
                ]
            case "Category":
                model.entities[index].fetchedProperties = [
                    FetchedPropertyDescription(
                        name: "pricey", destinationEntity: "Product",
                        predicate: "category == $FETCH_SOURCE AND price > 5")
                ]
            default: break
            }
        }
        return model
    }

    static func skus(_ objects: [ManagedObject]) -> [String] {
        objects.compactMap { $0["sku"] as String? }.sorted()
    }

    @Test func aFetchedPropertyIsFetchedOnFirstReadAndKeptUntilTheObjectIsRefreshed() async throws {
        let fixture = try await ContextFixture(model: Self.model())
        let context = fixture.context()
        try context.performAndWait {
            let coffee = context.insertCategory("Coffee")
            let tea = context.insertCategory("Tea")
            let p1 = context.insertProduct("P1", price: 3, category: coffee)
            context.insertProduct("P2", price: 7, category: coffee)
            context.insertProduct("T1", price: 9, category: tea)
            try context.save()

            #expect(Self.skus(try p1.fetchedObjects(forKey: "sameCategory")) == ["P2"])
            #expect(Self.skus(try coffee.fetchedObjects(forKey: "pricey")) == ["P2"])
            #expect(try p1.fetchedObjects(forKey: "sameCategoryName").map(\.objectID) == [coffee.objectID])

            context.insertProduct("P3", price: 8, category: coffee)
            try context.save()
            #expect(Self.skus(try p1.fetchedObjects(forKey: "sameCategory")) == ["P2"], "kept, as in Core Data")
            #expect(Self.skus(try coffee.fetchedObjects(forKey: "pricey")) == ["P2"])

            context.refresh(p1, mergeChanges: true)
            #expect(Self.skus(try p1.fetchedObjects(forKey: "sameCategory")) == ["P2", "P3"])
            context.refresh(coffee, mergeChanges: false)
            #expect(Self.skus(try coffee.fetchedObjects(forKey: "pricey")) == ["P2", "P3"])
        }
    }

    @Test func theFetchSeesTheContextsUnsavedChangesWhenFirstRead() async throws {
        let fixture = try await ContextFixture(model: Self.model())
        let context = fixture.context()
        try context.performAndWait { () throws in
            let coffee = context.insertCategory("Coffee")
            let p1 = context.insertProduct("P1", price: 3, category: coffee)
            let p2 = context.insertProduct("P2", price: 7, category: coffee)
            #expect(Self.skus(try p1.fetchedObjects(forKey: "sameCategory")) == ["P2"], "unsaved objects match")
            #expect(try p1.fetchedObjectIDs(forKey: "sameCategory") == [p2.objectID])
            let tea = context.insertCategory("Tea")
            p1.setObject(tea, forKey: "category")
            context.refresh(p1, mergeChanges: true)
            #expect(!p1.isFault, "an inserted object is not refreshed")
            #expect(Self.skus(try p1.fetchedObjects(forKey: "sameCategory")) == ["P2"], "still the first result")
        }
    }

    @Test func aStoreKeepsAModelWithFetchedPropertiesAndOpensByPathAlone() async throws {
        let fixture = try await ContextFixture(model: Self.model())
        let model = try PersistentStore.storedModel(at: fixture.container.storeDescription.sqlitePath)
        #expect(model == Self.model())
        #expect(model.versionHash == ContextFixture.catalogModel().versionHash, "no column, no new version")
    }

    @Test func aModelFileDeclaresFetchedPropertiesAndWritesThemBack() throws {
        let yaml = """
            entities:
              Category:
                attributes: { name: string }
                relationships:
                  products: { to: Product, toMany: true, inverse: category }
                fetchedProperties:
                  pricey: { entity: Product, predicate: "category == $FETCH_SOURCE AND price > 5" }
              Product:
                attributes: { sku: string, price: double }
                relationships:
                  category: { to: Category, inverse: products }
                fetchedProperties:
                  sameCategory: { entity: Product, predicate: "category == $FETCH_SOURCE.category" }
            """
        let model = try ManagedObjectModel(yaml: yaml)
        #expect(
            model.entity(named: "Product")?.fetchedProperties == [
                FetchedPropertyDescription(
                    name: "sameCategory", destinationEntity: "Product", predicate: "category == $FETCH_SOURCE.category")
            ])
        #expect(model.allFetchedProperties(of: "Category").map(\.name) == ["pricey"])
        #expect(try ManagedObjectModel(yaml: model.modelFileYAML) == model)
        #expect(model.modelFileYAML.contains("    fetchedProperties:\n      pricey: { entity: Product, predicate: "))
    }

    @Test func aModelFileFetchedPropertyIsCheckedLikeTheOtherProperties() throws {
        #expect(
            ModelFileFixture.errors(
                """
                entities:
                  Product:
                    attributes: { sku: string }
                    fetchedProperties:
                      sku: { entity: Product, predicate: "sku == $FETCH_SOURCE.sku" }
                      others: { entity: Prodcut, predicate: "sku != $FETCH_SOURCE.sku" }
                      broken: { entity: Product, predicate: "sku ==" }
                      short: { entity: Product }
                      typo: { entity: Product, predicat: "TRUEPREDICATE" }
                """) == [
                    "Pipelines/test.model.yml:5: entity Product, fetched property sku: 'sku' is already a property of "
                        + "Product (or of an entity it inherits from)",
                    "Pipelines/test.model.yml:6: entity Product, fetched property others: unknown entity 'Prodcut'; "
                        + "did you mean 'Product'?",
                    "Pipelines/test.model.yml:7: entity Product, fetched property broken: the predicate does not "
                        + "parse: column 7: unexpected end of format; expected an expression",
                    "Pipelines/test.model.yml:8: entity Product, fetched property short: missing 'predicate': a format "
                        + "string such as \"category == $FETCH_SOURCE.category\"",
                    "Pipelines/test.model.yml:9: entity Product, fetched property typo: unknown key 'predicat'; "
                        + "did you mean 'predicate'?",
                ])
    }

    @Test func aModelFileFetchedPropertyMayUseOnlyFetchSourceAndKeyPathsItHas() throws {
        #expect(
            ModelFileFixture.errors(
                """
                entities:
                  Category:
                    attributes: { name: string }
                    relationships: { products: { to: Product, toMany: true, inverse: category } }
                  Product:
                    attributes: { sku: string }
                    relationships: { category: { to: Category, inverse: products } }
                    fetchedProperties:
                      good: { entity: Product, predicate: "category.name == $FETCH_SOURCE.category.name" }
                      other: { entity: Product, predicate: "sku == $FETCHED_PROPERTY" }
                      missing: { entity: Product, predicate: "sku == $FETCH_SOURCE.colour" }
                      through: { entity: Product, predicate: "sku == $FETCH_SOURCE.sku.name" }
                      many: { entity: Product, predicate: "sku == $FETCH_SOURCE.category.products.sku" }
                """) == [
                    "Pipelines/test.model.yml:10: entity Product, fetched property other: $FETCHED_PROPERTY is never "
                        + "bound: a fetched property's predicate can use only $FETCH_SOURCE",
                    "Pipelines/test.model.yml:11: entity Product, fetched property missing: $FETCH_SOURCE.colour: "
                        + "Product has no property 'colour'",
                    "Pipelines/test.model.yml:12: entity Product, fetched property through: $FETCH_SOURCE.sku.name: "
                        + "Product has no to-one relationship 'sku'",
                    "Pipelines/test.model.yml:13: entity Product, fetched property many: "
                        + "$FETCH_SOURCE.category.products.sku: 'products' of Category is a to-many relationship, so "
                        + "the key path cannot go on",
                ])
    }

    @Test func anXcodeModelsFetchedPropertyIsRead() throws {
        let model = try ManagedObjectModel.load(from: XcodeModelFixture.path("Catalog.xcdatamodeld"))
        #expect(
            model.entity(named: "Product")?.fetchedProperties == [
                FetchedPropertyDescription(
                    name: "sameCategory", destinationEntity: "Product", predicate: "category == $FETCH_SOURCE.category")
            ])
    }

    @Test func aVariableFollowedByAKeyPathIsOneVariable() throws {
        let predicate = try FetchPredicate(format: "category == $FETCH_SOURCE.category AND price > $MIN")
        #expect(predicate.variableNames == ["FETCH_SOURCE.category", "MIN"])
        #expect(predicate.description == "category == $FETCH_SOURCE.category AND price > $MIN")
        #expect(predicate.substituting(["FETCH_SOURCE.category": nil, "MIN": 2]).variableNames.isEmpty)
    }
}

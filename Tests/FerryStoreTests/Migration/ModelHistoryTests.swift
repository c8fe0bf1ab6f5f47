import FerrySQLite
import Foundation
import Testing

@testable import FerryStore

/// A store's model history and stable entity numbers.
struct ModelHistoryTests {
    static let v1 = """
        entities:
          Product:
            attributes: { sku: string, price: double }
          Supplier:
            attributes: { name: string }
        """

    @Test func aNewStoreRecordsItsModelAsVersionOne() async throws {
        try await MigrationFixture.withStorePath { path in
            try await MigrationFixture.makeStore(at: path, Self.v1)
            let history = try ModelHistory.read(at: path)
            #expect(history.entries.count == 1)
            #expect(history.entries.first?.version == 1)
            #expect(history.entries.first?.kind == "created")
            #expect(history.entries.first?.modelHash == (try MigrationFixture.model(Self.v1)).versionHash)
            #expect(history.entries.first?.modelText == (try MigrationFixture.model(Self.v1)).modelFileYAML)
            // Opening again records nothing new.
            try await MigrationFixture.makeStore(at: path, Self.v1)
            #expect(try ModelHistory.read(at: path).entries.count == 1)
        }
    }

    @Test func anEntityInsertedBeforeOthersLeavesTheirNumbersAsTheyWere() async throws {
        try await MigrationFixture.withStorePath { path in
            try await MigrationFixture.makeStore(
                at: path, Self.v1,
                rows: "INSERT INTO Product (_ent, sku, price) VALUES (1, 'A', 1.5); "
                    + "INSERT INTO Supplier (_ent, name) VALUES (2, 'Acme')")
            let v2 = """
                entities:
                  Warehouse:
                    attributes: { city: string }
                  Product:
                    attributes: { sku: string, price: double }
                  Supplier:
                    attributes: { name: string }
                """
            let result = try StoreMigrator(storePath: path).migrate(to: MigrationFixture.model(v2))
            #expect(result.version == 2)
            let connection = try Connection(path: path, mode: .readOnly)
            let entities = try connection.prepare("SELECT name, ent FROM ferry_entities ORDER BY ent").fetchAll()
            #expect(
                entities == [
                    Row([.text("Product"), .integer(1)]), Row([.text("Supplier"), .integer(2)]),
                    Row([.text("Warehouse"), .integer(3)]),
                ])
            let store = try await PersistentStore.open(
                PersistentStoreDescription(path: path), model: MigrationFixture.model(v2))
            #expect(store.schema.mapping(for: "Product")?.entityID == 1)
            #expect(store.schema.mapping(for: "Warehouse")?.entityID == 3)
            let products = try await store.fetch(FetchRequest(entityName: "Product", resultType: .count))
            #expect(products == .count(1))
            let history = try ModelHistory.read(at: path)
            #expect(history.entries.map(\.kind) == ["created", "migrated"])
            #expect(history.entries.last?.modelHash == (try MigrationFixture.model(v2)).versionHash)
        }
    }

    @Test func renamingIdentifiersSurviveTheModelFileRoundTrip() throws {
        let model = try MigrationFixture.model(
            """
            entities:
              Item:
                renamingIdentifier: Product
                attributes:
                  code: { type: string, renamingIdentifier: sku }
                relationships:
                  vendor: { to: Vendor, renamingIdentifier: supplier }
              Vendor: {}
            """)
        #expect(model.entity(named: "Item")?.renamingIdentifier == "Product")
        #expect(model.entity(named: "Item")?.attribute(named: "code")?.renamingIdentifier == "sku")
        #expect(model.entity(named: "Item")?.relationship(named: "vendor")?.renamingIdentifier == "supplier")
        #expect(try ManagedObjectModel(yaml: model.modelFileYAML) == model)
        var plain = model
        plain.entities[0].renamingIdentifier = nil
        #expect(plain.versionHash == model.versionHash)
    }
}

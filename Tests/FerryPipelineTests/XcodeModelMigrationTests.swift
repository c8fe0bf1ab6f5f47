import FerryPipeline
import FerrySQLite
import FerryStore
import FerryTestSupport
import Foundation
import Testing

/// `StoreMigration` through the versions of an Xcode `.xcdatamodeld` (the fixture `Shop.xcdatamodeld`: `Shop` with
/// `Item(sku, name, quantity)`; `Shop 2` adds `price` and renames `name` to `title` by `elementID`; `Shop 3` renames
/// the entity to `Product` and `title` to `label` keeping the identifier `name`, widens `quantity`, adds `origin`, a
/// new entity `Warehouse` and a relationship to it, and has a stage file that back-fills `origin`).
@Suite("Migrating through an Xcode model's versions")
struct XcodeModelMigrationTests {
    static let bundle = TestSupport.packageRoot
        .appendingPathComponent("Tests/FerryStoreTests/Fixtures/Xcode/Shop.xcdatamodeld").path

    /// The model of the fixture's version `name`.
    static func version(_ name: String) throws -> ManagedObjectModel {
        try ManagedObjectModel.load(from: bundle + "/\(name).xcdatamodel")
    }

    /// Makes a store at `path` with the version `name`, holding two items; `nameKey` is what that version calls the
    /// item's name, and `price` is set when the version has it.
    static func makeStore(at path: String, version name: String, nameKey: String, price: Bool) async throws {
        let container = PersistentContainer(
            name: "Shop", model: try version(name), storeDescription: PersistentStoreDescription(path: path))
        try await container.loadPersistentStores()
        try await container.performBackgroundTask { context in
            for (sku, title, quantity) in [("A-1", "Anvil", 3), ("B-2", "Bellows", 20_000)] {
                let item = context.insertObject(entityName: "Item")
                item["sku"] = sku
                item[nameKey] = title
                item["quantity"] = Int64(quantity)
                if price { item["price"] = Decimal(string: "9.50") }
            }
            try context.save()
        }
    }

    /// Every product of the store, as read through the current version, sorted by SKU.
    static func products(at path: String) async throws -> [[String: AttributeValue?]] {
        let store = try await PersistentStore.open(
            PersistentStoreDescription(path: path), model: try ManagedObjectModel.load(from: bundle))
        let result = try await store.fetch(
            FetchRequest(
                entityName: "Product", sortDescriptors: [FetchSortDescriptor(key: "sku")], resultType: .dictionary))
        guard case .dictionaries(let rows) = result else { return [] }
        return rows
    }

    @Test("A store made with the first version is migrated through every later one, keeping its rows")
    func fromTheFirstVersion() async throws {
        let folder = try TestSupport.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        do {
            let path = folder.appendingPathComponent("shop.sqlite").path
            try await Self.makeStore(at: path, version: "Shop", nameKey: "name", price: false)
            let migration = StoreMigration(storePath: path, modelPath: Self.bundle)
            let plans = try await migration.plans()
            #expect(plans.plans.map { "\($0.from) → \($0.to)" } == ["Shop → Shop 2", "Shop 2 → Shop 3"])
            let steps = plans.plans.flatMap { $0.plan.steps.map(\.summary) }
            #expect(steps.contains("rename attribute 'Item.name' to 'title'"))
            #expect(steps.contains("rename entity 'Item' to 'Product'"))
            #expect(steps.contains("rename attribute 'Product.title' to 'label'"))
            #expect(steps.contains("add entity 'Warehouse'"))
            #expect(!plans.plans.contains { $0.plan.isDestructive })
            let outcome = try await migration.run(allowsDestructiveChanges: false)
            #expect(outcome.results.count == 2)
            let rows = try await Self.products(at: path)
            #expect(rows.map { $0["label"] ?? nil } == [.string("Anvil"), .string("Bellows")])
            #expect(rows.map { $0["quantity"] ?? nil } == [.integer(3), .integer(20_000)])
            #expect(rows.map { $0["price"] ?? nil } == [nil, nil])
            // Shop 3.migration.yml back-filled the new attribute.
            #expect(rows.map { $0["origin"] ?? nil } == [.string("first supplier"), .string("first supplier")])
            let history = try ModelHistory.read(at: path)
            let hashes = try ["Shop", "Shop 2", "Shop 3"].map { try Self.version($0).versionHash }
            #expect(history.entries.map(\.modelHash) == hashes)
            #expect(history.entries.map(\.kind) == ["created", "migrated", "migrated"])
            let again = try await migration.run(allowsDestructiveChanges: false)
            #expect(again.isCurrent)
        }
    }

    @Test("A store made with the second version is migrated to the current one; the kept identifier finds 'title'")
    func fromTheSecondVersion() async throws {
        let folder = try TestSupport.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        do {
            let path = folder.appendingPathComponent("shop.sqlite").path
            try await Self.makeStore(at: path, version: "Shop 2", nameKey: "title", price: true)
            let migration = StoreMigration(storePath: path, modelPath: Self.bundle)
            let outcome = try await migration.run(allowsDestructiveChanges: false)
            #expect(outcome.plans.map { "\($0.from) → \($0.to)" } == ["Shop 2 → Shop 3"])
            let steps = outcome.plans.flatMap { $0.plan.steps.map(\.summary) }
            #expect(steps.contains("rename attribute 'Product.title' to 'label'"))
            #expect(!steps.contains { $0.hasPrefix("remove") })
            let rows = try await Self.products(at: path)
            #expect(rows.map { $0["label"] ?? nil } == [.string("Anvil"), .string("Bellows")])
            let price = AttributeValue.decimal(try #require(Decimal(string: "9.50")))
            #expect(rows.map { $0["price"] ?? nil } == [price, price])
            #expect(rows.map { $0["origin"] ?? nil } == [.string("first supplier"), .string("first supplier")])
            #expect(try ModelHistory.read(at: path).entries.map(\.kind) == ["created", "migrated"])
        }
    }

    @Test("A Swift stage is found by the Xcode version's name")
    func swiftStageByVersionName() async throws {
        let folder = try TestSupport.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        do {
            let path = folder.appendingPathComponent("shop.sqlite").path
            try await Self.makeStore(at: path, version: "Shop", nameKey: "name", price: false)
            let stage = CustomMigrationStage(
                into: "Shop 2",
                didMigrate: { container in
                    var request = BatchUpdateRequest(
                        entityName: "Item", predicate: nil,
                        propertiesToUpdate: ["price": .constant(.decimal(Decimal(1)))],
                        resultType: .updatedObjectsCount)
                    request.transactionAuthor = "test"
                    _ = try await container.persistentStore.execute(request)
                })
            _ = try await StoreMigration(storePath: path, modelPath: Self.bundle, stages: [stage])
                .run(allowsDestructiveChanges: false)
            let rows = try await Self.products(at: path)
            #expect(rows.map { $0["price"] ?? nil } == [.decimal(Decimal(1)), .decimal(Decimal(1))])
        }
    }

    @Test("A store at no version of the bundle is refused, naming the versions")
    func storeAtNoVersion() async throws {
        let folder = try TestSupport.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("other.sqlite").path
        let other = try ManagedObjectModel(yaml: "entities:\n  Item:\n    attributes: { code: string }\n")
        _ = try await PersistentStore.open(PersistentStoreDescription(path: path), model: other)
        let error = try await #require(throws: MigrationError.self) {
            try await StoreMigration(storePath: path, modelPath: Self.bundle).run(allowsDestructiveChanges: false)
        }
        #expect(error.code == .missingSourceModel)
        #expect(error.message.contains("no version of \(Self.bundle) (Shop…Shop 3) is the model the store is at"))
    }

    @Test("A draft version after the current one blocks the chain, but not a store already at the current version")
    func draftAfterTheCurrentVersion() async throws {
        let folder = try TestSupport.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let bundle = folder.appendingPathComponent("Shop.xcdatamodeld").path
        try FileManager.default.copyItem(atPath: Self.bundle, toPath: bundle)
        try FileManager.default.copyItem(
            atPath: bundle + "/Shop 3.xcdatamodel", toPath: bundle + "/Shop 4.xcdatamodel")
        let current = folder.appendingPathComponent("current.sqlite").path
        _ = try await PersistentStore.open(
            PersistentStoreDescription(path: current), model: try Self.version("Shop 3"))
        #expect(
            try await StoreMigration(storePath: current, modelPath: bundle).run(allowsDestructiveChanges: false)
                .isCurrent)
        let older = folder.appendingPathComponent("older.sqlite").path
        try await Self.makeStore(at: older, version: "Shop 2", nameKey: "title", price: false)
        let error = try await #require(throws: ModelError.self) {
            try await StoreMigration(storePath: older, modelPath: bundle).run(allowsDestructiveChanges: false)
        }
        #expect(error.message.contains("the current version 'Shop 3' is not the last: 'Shop 4' comes after it"))
        #expect(try ModelHistory.read(at: older).entries.count == 1)
    }
}

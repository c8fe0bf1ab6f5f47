import FerrySQLite
import FerryTestSupport
import Foundation
import Testing

@testable import FerryStore

/// A store keeps its model (ferry_metadata key model_yaml): it can be opened by path alone, an older store gets its
/// model on its next open, and what is not a store with a model is refused with a clear code.
struct StoredModelTests {
    static let catalogPath = TestSupport.packageRoot.appendingPathComponent("Pipelines/catalog.model.yml").path

    /// Runs `body` with the path of a store file (not yet created) in a fresh temporary folder.
    func withStorePath(_ body: (String) async throws -> Void) async throws {
        let folder = try TestSupport.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try await body(folder.appendingPathComponent("store.sqlite").path)
    }

    /// The `model_yaml` value of the store at `path`, read with plain SQL.
    func storedText(at path: String) throws -> String? {
        let connection = try Connection(path: path, mode: .readOnly)
        let statement = try connection.prepare("SELECT value FROM ferry_metadata WHERE key = 'model_yaml'")
        return try statement.fetchOne()?[0].text
    }

    /// Whether `error` is a ``StoreError`` with `code` whose description contains `text`.
    static func isStoreError(_ error: any Error, _ code: StoreError.Code, saying text: String) -> Bool {
        guard let error = error as? StoreError else { return false }
        return error.code == code && error.description.contains(text)
    }

    @Test func aStoreCreatedWithAModelFileKeepsItAndOpensByPathAlone() async throws {
        let model = try ManagedObjectModel.load(from: Self.catalogPath)
        try await withStorePath { path in
            let created = try await PersistentStore.open(PersistentStoreDescription(path: path), model: model)
            try created.writer.sync { try $0.execute("INSERT INTO Category (_ent, name) VALUES (1, 'Tea')") }
            #expect(try storedText(at: path) == model.modelFileYAML)

            let stored = try PersistentStore.storedModel(at: path)
            #expect(stored == model)
            #expect(stored.versionHash == created.metadata.modelHash)

            let reopened = try await PersistentStore.open(PersistentStoreDescription(path: path))
            #expect(reopened.schema.model == model)
            #expect(reopened.identifier == created.identifier)
            let count = try await reopened.fetch(FetchRequest(entityName: "Category", resultType: .count))
            #expect(count == .count(1))
        }
    }

    @Test func aContainerMadeFromTheStoredModelSavesAndFetchesObjects() async throws {
        let model = ContextFixture.catalogModel(productsDeleteRule: .deny)
        try await withStorePath { path in
            let description = PersistentStoreDescription(path: path)
            let first = PersistentContainer(name: "Catalog", model: model, storeDescription: description)
            try await first.loadPersistentStores()
            try await first.performBackgroundTask { context in
                let category = context.insertObject(entityName: "Category")
                category["name"] = "Coffee"
                try context.save()
            }

            let container = try await PersistentContainer(name: "Catalog", storeDescription: description)
            #expect(container.model == model)
            try await container.loadPersistentStores()
            let names = try await container.performBackgroundTask { context in
                try context.fetch(FetchRequest(entityName: "Category")).map { $0["name"] as String? }
            }
            #expect(names == ["Coffee"])
        }
    }

    @Test func everySettingAndDefaultSurvivesTheStore() async throws {
        for model in [WriterFixture.everySetting, WriterFixture.everyDefault] {
            try await withStorePath { path in
                _ = try await PersistentStore.open(PersistentStoreDescription(path: path), model: model)
                #expect(try PersistentStore.storedModel(at: path) == model)
            }
        }
    }

    @Test func aStoreCreatedBeforeStoresKeptTheirModelGetsItOnItsNextOpen() async throws {
        let model = BatchTestFixture.model
        try await withStorePath { path in
            _ = try await PersistentStore.open(PersistentStoreDescription(path: path), model: model)
            try Connection(path: path).execute("DELETE FROM ferry_metadata WHERE key = 'model_yaml'")
            #expect {
                try PersistentStore.storedModel(at: path)
            } throws: { error in
                Self.isStoreError(error, .noStoredModel, saying: "open it once with its model file")
            }
            await #expect {
                try await PersistentStore.open(PersistentStoreDescription(path: path))
            } throws: { error in
                Self.isStoreError(error, .noStoredModel, saying: "the store keeps no model")
            }

            _ = try await PersistentStore.open(PersistentStoreDescription(path: path), model: model)
            #expect(try storedText(at: path) == model.modelFileYAML)
            #expect(try PersistentStore.storedModel(at: path) == model)
        }
    }

    @Test func theStoreKeepsTheRulesAndTemplatesOfTheModelItWasLastOpenedWith() async throws {
        let model = ContextFixture.catalogModel()
        var stricter = model
        stricter.entities[0].attributes[0].maxLength = 10
        stricter.fetchRequestTemplates["named"] = FetchRequestTemplate(entity: "Category", predicate: "name == $N")
        #expect(stricter.versionHash == model.versionHash, "rules and templates are not part of the hash")
        try await withStorePath { path in
            _ = try await PersistentStore.open(PersistentStoreDescription(path: path), model: model)
            _ = try await PersistentStore.open(PersistentStoreDescription(path: path), model: stricter)
            #expect(try PersistentStore.storedModel(at: path) == stricter)
        }
    }

    @Test func aModelWhoseTextWouldNotReadBackIsNotKept() async throws {
        let model = ManagedObjectModel(entities: [
            EntityDescription(
                name: "Reading",
                attributes: [AttributeDescription(name: "level", type: .double, defaultValue: .double(.infinity))])
        ])
        try await withStorePath { path in
            _ = try await PersistentStore.open(PersistentStoreDescription(path: path), model: model)
            #expect(try storedText(at: path) == nil)
            #expect {
                try PersistentStore.storedModel(at: path)
            } throws: { error in
                (error as? StoreError)?.code == .noStoredModel
            }
        }
    }

    @Test func aModelThatWouldReadBackWithOtherRulesIsNotKept() async throws {
        // YAML reading drops a leading U+FEFF; a regex is not part of the version hash, so only equality sees it.
        let model = ManagedObjectModel(entities: [
            EntityDescription(
                name: "Note",
                attributes: [AttributeDescription(name: "text", type: .string, regularExpression: "\u{FEFF}[a-z]+")])
        ])
        try await withStorePath { path in
            _ = try await PersistentStore.open(PersistentStoreDescription(path: path), model: model)
            #expect(try storedText(at: path) == nil)
        }
    }

    @Test func aKeptModelThatIsNotTheStoresModelIsRefused() async throws {
        try await withStorePath { path in
            _ = try await PersistentStore.open(
                PersistentStoreDescription(path: path), model: ContextFixture.catalogModel())
            let other = BatchTestFixture.model.modelFileYAML
            let connection = try Connection(path: path)
            let update = try connection.prepare("UPDATE ferry_metadata SET value = ? WHERE key = 'model_yaml'")
            try update.bind([.text(other)])
            try update.run()
            #expect {
                try PersistentStore.storedModel(at: path)
            } throws: { error in
                Self.isStoreError(error, .invalidStoredModel, saying: "is not the model the store was created with")
            }

            try connection.execute("UPDATE ferry_metadata SET value = 'entities: [' WHERE key = 'model_yaml'")
            #expect {
                try PersistentStore.storedModel(at: path)
            } throws: { error in
                Self.isStoreError(error, .invalidStoredModel, saying: "the model the store keeps does not load")
                    && (error as? StoreError)?.underlying is ModelError
            }
        }
    }

    @Test func aMissingFileIsReportedAndNotCreated() async throws {
        try await withStorePath { path in
            #expect {
                try PersistentStore.storedModel(at: path)
            } throws: { error in
                Self.isStoreError(error, .fileNotFound, saying: "no such store file")
                    && (error as? StoreError)?.code.coreDataCode == 260
            }
            await #expect {
                try await PersistentStore.open(PersistentStoreDescription(path: path))
            } throws: { error in
                (error as? StoreError)?.code == .fileNotFound
            }
            await #expect {
                try await PersistentContainer(name: "Catalog", storeDescription: PersistentStoreDescription(path: path))
            } throws: { error in
                (error as? StoreError)?.code == .fileNotFound
            }
            #expect(!FileManager.default.fileExists(atPath: path))
        }
    }

    @Test func aPlainSQLiteFileIsNotAFerryStore() async throws {
        try await withStorePath { path in
            try Connection(path: path).execute("CREATE TABLE invoices (id INTEGER)")
            #expect {
                try PersistentStore.storedModel(at: path)
            } throws: { error in
                Self.isStoreError(error, .notAFerryStore, saying: "without Ferry metadata")
            }
            await #expect {
                try await PersistentStore.open(PersistentStoreDescription(path: path))
            } throws: { error in
                (error as? StoreError)?.code == .notAFerryStore
            }
        }
    }

    @Test func aFileThatIsNotADatabaseIsNotAFerryStore() async throws {
        try await withStorePath { path in
            try Data("name,price\nTea,3\n".utf8).write(to: URL(fileURLWithPath: path))
            #expect {
                try PersistentStore.storedModel(at: path)
            } throws: { error in
                Self.isStoreError(error, .notAFerryStore, saying: "not an SQLite database")
            }
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data("name,price\nTea,3\n".utf8))
        }
    }

    @Test func anInMemoryStoreHasNoStoredModelToOpen() async throws {
        await #expect {
            try await PersistentStore.open(.inMemory)
        } throws: { error in
            Self.isStoreError(error, .noStoredModel, saying: "in-memory")
        }
    }
}

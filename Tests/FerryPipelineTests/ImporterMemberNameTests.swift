import FerryIO
import FerrySQLite
import FerryStore
import FerryTestSupport
import Foundation
import Testing

@testable import FerryPipeline

/// An object-of-records JSON file into a new store without a model: each member name, read into the column `_key`
/// (a name the store reserves), is stored as the attribute `key`, the natural key unless another is given.
struct ImporterMemberNameTests {
    static let drinks = #"{"tea": {"price": 2}, "coffee": {"price": 3}}"#

    @Test func theInferredModelStoresTheMemberNamesAsTheKeyAttributeAndMakesItTheNaturalKey() throws {
        let folder = try TestSupport.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("drinks.json")
        try Data(Self.drinks.utf8).write(to: input)

        let model = try ModelInference.model(
            entity: "Drink", keys: [], spec: ImportSpec(entity: "Drink", sources: [input.path]))

        let entity = try #require(model.entity(named: "Drink"))
        #expect(entity.attributes.map(\.name) == ["key", "price"])
        #expect(entity.uniquenessConstraints == [["key"]])
        #expect(entity.attributes.first?.isOptional == false)
    }

    @Test(arguments: [["_key"], ["key"]])
    func eitherNameOfTheMemberNameColumnNamesTheKey(keys: [String]) async throws {
        let folder = try TestSupport.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("drinks.json")
        try Data(Self.drinks.utf8).write(to: input)
        var spec = ImportSpec(entity: "Drink", sources: [input.path])
        spec.keys = keys
        let model = try ModelInference.model(entity: "Drink", keys: spec.keys, spec: spec)
        let store = folder.appendingPathComponent("drinks.sqlite")
        let container = PersistentContainer(
            name: "drinks", model: model, storeDescription: PersistentStoreDescription(path: store.path))
        try await container.loadPersistentStores()

        let first = try await Importer(container: container).run(spec, name: "import Drink")
        let again = try await Importer(container: container).run(spec, name: "import Drink")
        // Without a key, the store's uniqueness constraint is the key, read from `_key` again.
        var keyless = spec
        keyless.keys = []
        let third = try await Importer(container: container).run(keyless, name: "import Drink")

        #expect(model.entity(named: "Drink")?.uniquenessConstraints == [["key"]])
        #expect(first.counts.inserted == 2 && first.counts.rejected == 0)
        for rerun in [again, third] {
            #expect(rerun.counts.read == 2 && rerun.counts.inserted == 0 && rerun.counts.updated == 0)
            #expect(rerun.counts.rejected == 0 && rerun.counts.isBalanced)
        }
        let connection = try Connection(path: store.path, mode: .readOnly)
        let rows = try connection.prepare("SELECT key, price FROM Drink ORDER BY key").fetchAll()
        #expect(rows.map { [$0[0], $0[1]] } == [[.text("coffee"), .integer(3)], [.text("tea"), .integer(2)]])
    }

    @Test func anInputWithBothAMemberNameAndAKeyFieldCannotInferAModel() throws {
        let folder = try TestSupport.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("drinks.json")
        try Data(#"{"tea": {"key": 7, "price": 2}}"#.utf8).write(to: input)

        #expect {
            try ModelInference.model(
                entity: "Drink", keys: [], spec: ImportSpec(entity: "Drink", sources: [input.path]))
        } throws: { error in
            (error as? PipelineError)?.code == .invalidSpec
                && (error as? PipelineError)?.message.contains("'_key' and a column 'key'") == true
        }
    }
}

import FerryStore
import FerryTestSupport
import Foundation
import Testing

/// `ferry schema`: the model a store keeps, printed as a model file that later runs can take as `--model`.
struct SchemaCommandTests {
    let ferry = BuiltCommand(product: "ferry")

    @Test func anInferredStoresModelPrintsAsAModelFileThatLaterImportsRead() throws {
        try TestSupport.withTemporaryFolder { folder in
            let input = try TestSupport.write(
                Array("id,name,price\n1,Tea,2.5\n2,Coffee,3\n".utf8), to: "items.csv", in: folder)
            let store = folder.appendingPathComponent("items.sqlite").path
            let load = try ferry.run(["import", input, "--store", store, "--entity", "Item", "--key", "id"])
            #expect(load.status == 0, "\(load.standardError)")

            let schema = try ferry.run(["schema", "--store", store])
            #expect(schema.status == 0, "\(schema.standardError)")
            #expect(schema.standardOutput.hasPrefix("entities:\n"))
            let printed = try ManagedObjectModel(yaml: schema.standardOutput)
            #expect(printed == (try PersistentStore.storedModel(at: store)))
            let item = try #require(printed.entities.first { $0.name == "Item" })
            #expect(Set(item.attributes.map(\.name)) == ["id", "name", "price"])

            // The printed file is a model file: a later import takes it as --model into the same store.
            let modelPath = folder.appendingPathComponent("items.model.yml").path
            try schema.standardOutput.write(toFile: modelPath, atomically: true, encoding: .utf8)
            #expect(try ferry.run(["validate", modelPath]).standardOutput.hasSuffix("valid model (1 entity)\n"))
            let again = try ferry.run(["import", input, "--store", store, "--entity", "Item", "--model", modelPath])
            #expect(again.status == 0, "\(again.standardError)")
        }
    }

    @Test func aMissingStoreExitsWith66() throws {
        let result = try ferry.run(["schema", "--store", "/nonexistent/store.sqlite"])
        #expect(result.status == 66)
        #expect(result.standardOutput == "")
    }
}

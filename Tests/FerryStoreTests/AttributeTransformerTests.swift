import FerrySQLite
import Foundation
import Testing

@testable import FerryStore

/// Transformable attributes through named transformers over Codable.
struct AttributeTransformerTests {
    struct Dimensions: Codable, Equatable {
        var width: Double
        var height: Double
    }

    private func model(transformer: String) -> ManagedObjectModel {
        ManagedObjectModel(entities: [
            EntityDescription(
                name: "Box",
                attributes: [
                    AttributeDescription(name: "dimensions", type: .transformable(transformer: transformer))
                ])
        ])
    }

    @Test func valuesRoundTripThroughTheStoreWithEachBuiltInTransformer() async throws {
        for name in ["JSON", "PropertyList"] {
            let fixture = try await ContextFixture(model: model(transformer: name))
            let context = fixture.context()
            try context.performAndWait {
                let box = context.insertObject(entityName: "Box")
                try box.setTransformable(Dimensions(width: 2, height: 3.5), forKey: "dimensions")
                try context.save()
                context.reset()
                let fetched = try #require(try context.fetch(FetchRequest(entityName: "Box")).first)
                #expect(
                    try fetched.transformable(Dimensions.self, forKey: "dimensions")
                        == Dimensions(width: 2, height: 3.5))
            }
            if name == "JSON" {
                let stored = try #require(try fixture.rows("SELECT CAST(dimensions AS TEXT) FROM Box").first?.first)
                #expect(stored == .text(#"{"height":3.5,"width":2}"#))
            }
        }
    }

    @Test func anUnregisteredTransformerIsAClearError() async throws {
        let fixture = try await ContextFixture(model: model(transformer: "Missing"))
        let context = fixture.context()
        context.performAndWait {
            let box = context.insertObject(entityName: "Box")
            #expect {
                try box.setTransformable(Dimensions(width: 1, height: 1), forKey: "dimensions")
            } throws: { error in
                (error as? StoreError)?.code == .unknownTransformer && "\(error)".contains("Missing")
            }
        }
    }

    @Test func aRegisteredTransformerIsUsed() async throws {
        struct Reversed: AttributeTransformer {
            func encode<Value: Encodable>(_ value: Value) throws -> Data {
                Data(try JSONEncoder().encode(value).reversed())
            }
            func decode<Value: Decodable>(_ type: Value.Type, from data: Data) throws -> Value {
                try JSONDecoder().decode(type, from: Data(data.reversed()))
            }
        }
        AttributeTransformers.register(Reversed(), named: "Reversed")
        let fixture = try await ContextFixture(model: model(transformer: "Reversed"))
        let context = fixture.context()
        try context.performAndWait {
            let box = context.insertObject(entityName: "Box")
            try box.setTransformable([1, 2], forKey: "dimensions")
            #expect(box.value(forKey: "dimensions") == .transformable(Data("]2,1[".utf8)))
            #expect(try box.transformable([Int].self, forKey: "dimensions") == [1, 2])
        }
    }
}

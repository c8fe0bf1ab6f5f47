import Foundation
import Testing

@testable import FerryStore

/// A decimal attribute's `precision` and `scale` in model files: read, written back, and checked.
struct DecimalPrecisionModelTests {
    @Test("A decimal's precision and scale are read from the model file and written back")
    func precisionAndScaleRoundTrip() throws {
        let model = try ManagedObjectModel(
            yaml: """
                entities:
                  Item:
                    attributes:
                      price: { type: decimal, precision: 10, scale: 2 }
                      total: { type: decimal, precision: 38 }
                      note: decimal
                """, path: ModelFileFixture.path)
        let attributes = model.allAttributes(of: "Item")
        let price = try #require(attributes.first { $0.name == "price" })
        #expect(price.decimalPrecision == 10 && price.decimalScale == 2)
        let total = try #require(attributes.first { $0.name == "total" })
        #expect(total.decimalPrecision == 38 && total.decimalScale == nil)
        #expect(attributes.first { $0.name == "note" }?.decimalPrecision == nil)
        let text = try ModelFileWriterTests.expectRoundTrip(model)
        #expect(text.contains("price: { type: decimal, precision: 10, scale: 2 }"), "\(text)")
        #expect(text.contains("total: { type: decimal, precision: 38 }"), "\(text)")
    }

    @Test("A precision outside 1…38, a scale beyond it or without it, and either on another type are errors")
    func precisionRules() {
        #expect(
            ModelFileFixture.errors(
                """
                entities:
                  Item:
                    attributes:
                      a: { type: decimal, precision: 40 }
                      b: { type: decimal, precision: 4, scale: 5 }
                      c: { type: decimal, scale: 2 }
                      d: { type: double, precision: 4 }
                """) == [
                    "Pipelines/test.model.yml:4: entity Item, attribute a: precision must be 1 to 38; found 40",
                    "Pipelines/test.model.yml:5: entity Item, attribute b: scale must be 0 to the precision; found 5",
                    "Pipelines/test.model.yml:6: entity Item, attribute c: 'scale' needs a 'precision' beside it",
                    "Pipelines/test.model.yml:7: entity Item, attribute d: 'precision' applies to decimals, not double",
                ])
    }
}

import FerryIO
import FerryPipeline
import FerrySQLite
import FerryStore
import Foundation
import Testing

/// A CSV input without a header line: its columns are named `column1`, `column2`, … (as `count` and `convert` name
/// them), and without `fields` column N sets the entity's Nth attribute.
struct ImporterHeaderlessTests {
    static func headerless() -> CSVDialect? {
        var dialect = RecordFormat.csv.defaultDialect
        dialect?.hasHeader = false
        return dialect
    }

    @Test(arguments: [ImportSpec.Mode.batch, .context])
    func columnsMapByPositionToTheModelsAttributes(mode: ImportSpec.Mode) async throws {
        let fixture = try await ImportFixture()
        // Product's attributes: sku, name, price, quantity, active, created_at.
        let input = try fixture.file("products.csv", "SKU-1,Espresso,24.90,3\nSKU-2,Sencha,8.75,\nSKU-3,,1.00,1\n")
        let rejectsPath = fixture.path("rejects.csv")

        let result = try await fixture.importProducts([input]) {
            $0.mode = mode
            $0.relationships = []
            $0.dialect = Self.headerless()
            $0.rejectsPath = rejectsPath
        }

        #expect(result.counts.read == 3 && result.counts.inserted == 2 && result.counts.rejected == 1)
        #expect(
            try fixture.rows("SELECT sku, name, price, quantity FROM Product ORDER BY sku") == [
                [.text("SKU-1"), .text("Espresso"), .text("24.9"), .integer(3)],
                [.text("SKU-2"), .text("Sencha"), .text("8.75"), .null],
            ])
        // The reject is the record as read, its columns named by position.
        let rejects = try String(contentsOfFile: rejectsPath, encoding: .utf8).split(separator: "\n")
        #expect(rejects.first == "column1,column2,column3,column4,_reason,_file,_record,_line")
        #expect(rejects.count == 2 && rejects[1].hasPrefix("SKU-3,,1.00,1,"))
    }

    @Test func fieldsMayNameTheColumnsByPosition() async throws {
        let fixture = try await ImportFixture()
        let input = try fixture.file("products.csv", "24.90,Espresso,SKU-1\n")

        let result = try await fixture.importProducts([input]) {
            $0.relationships = []
            $0.dialect = Self.headerless()
            $0.fields = [
                FieldMapping(column: "column3", attribute: "sku"), FieldMapping(column: "column2", attribute: "name"),
                FieldMapping(column: "column1", attribute: "price"),
            ]
        }

        #expect(result.counts.inserted == 1)
        #expect(
            try fixture.rows("SELECT sku, name, price FROM Product") == [
                [.text("SKU-1"), .text("Espresso"), .text("24.9")]
            ])
    }
}

import FerryIO
import FerryTestSupport
import Foundation
import Testing

@testable import FerryPipeline
@testable import FerryStore

/// A Parquet export with ``ParquetWriter/Options/writesUUIDsAsText`` writes a UUID attribute as a STRING column of
/// the text the store holds, which every reader takes (Apache Spark refuses Parquet's UUID type).
@Suite("Parquet export of UUIDs as text")
struct ParquetUUIDExportTests {
    @Test(
        "A UUID attribute is a string column of its stored lower-case text with writesUUIDsAsText, a UUID one without")
    func uuidAttribute() async throws {
        let fixture = try await ExportFixture()
        let tokens = [UUID(), nil, UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"), UUID()]
        try await fixture.insertItems(
            tokens.enumerated().map { index, token in
                var item: [String: AttributeValue?] = ["sku": .some(.string("SKU-\(index)"))]
                item["token"] = .some(token.map(AttributeValue.uuid))
                return item
            })
        let expected = tokens.map { $0?.uuidString.lowercased() }
        for asText in [true, false] {
            let output = asText ? "text.parquet" : "uuid.parquet"
            _ = try await fixture.export(to: output) { spec in
                spec.fields = ["sku", "token"]
                spec.sort = [FetchSortDescriptor(key: "sku")]
                spec.parquet.writesUUIDsAsText = asText
            }
            let readings = try ParquetReaders.read(fixture.file(output))
            for reading in [readings.pyarrow, readings.duckdb] {
                #expect(reading.column("token") == expected, "\(output)")
            }
            #expect(readings.duckdb.types["token"] == (asText ? "VARCHAR" : "UUID"))
        }
    }
}

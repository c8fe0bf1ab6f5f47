import Foundation
import Testing

@testable import FerryIO
import FerryTestSupport

/// Read-buffer independence on real files: the sample data and the nativejson-benchmark corpus give the same
/// records (and the same error, where there is one) at read-buffer sizes 1, 2, 3, 7, 64 and the default. The
/// JSONTestSuite files get the same treatment in ``JSONTestSuiteTests``.
@Suite("JSONReader at every read-buffer size", .timeLimit(.minutes(2)))
struct JSONReaderSplitTests {
    static let flattening = [JSONReaderOptions(), JSONReaderOptions(flattensNestedObjects: true)]

    @Test("orders.json gives its three orders at every size, nested or flattened, in array and automatic layouts")
    func ordersSample() throws {
        let path = TestSupport.sampleData("orders.json").path
        for options in Self.flattening {
            let array = try readJSONAtEverySize(path: path, layout: .array, options: options)
            let automatic = try readJSONAtEverySize(path: path, layout: .automatic, options: options)
            #expect(array.error == nil)
            #expect(array == automatic)
            #expect(array.records.map(\.position.record) == [1, 2, 3])
            let orderIDs = array.records.map { $0.fields.first { $0.name == "order_id" }?.bytes }
            #expect(orderIDs == ["ORD-1001", "ORD-1002", "ORD-1003"].map { Array($0.utf8) })
        }
    }

    @Test("product_updates.ndjson gives its six updates at every size")
    func productUpdatesSample() throws {
        let path = TestSupport.sampleData("product_updates.ndjson").path
        let result = try readJSONAtEverySize(path: path, layout: .ndjson)
        #expect(result.error == nil)
        #expect(result.records.map(\.position.line) == [1, 2, 3, 4, 5, 6])
        let bytes = try fileBytes(path)
        #expect(result.records.allSatisfy { $0.position.byteOffset == 0 || bytes[$0.position.byteOffset - 1] == 0x0A })
        let fourth: [JSONFieldSnapshot] = [
            .string("sku", "SKU-0014"), .number("price", "41.50"), .null("quantity"), .boolean("active", true),
            .json("tags", #"["tea","green","japan"]"#),
        ]
        let fifth: [JSONFieldSnapshot] = [
            .string("sku", "SKU-0016"), .string("name", #"Cold Brew Bottle "1L""#), .string("category", "Coffee"),
            .number("price", "12.00"), .number("quantity", "50"), .boolean("active", true),
            .json("tags", #"["coffee"]"#),
        ]
        #expect(result.fields.count == 6)
        #expect(result.fields.dropFirst(3).first == fourth)
        #expect(result.fields.dropFirst(4).first == fifth)
        #expect(result.fields.last?[1] == .string("name", "Thé à la menthe"))
    }

    @Test(
        "Every nativejson-benchmark file reads the same at every size, as records and as NDJSON",
        arguments: nativeBenchmarkFiles())
    func nativeBenchmarkFile(path: String) throws {
        let documentError = validationError(try fileBytes(path))
        for options in Self.flattening {
            for layout in [JSONReader.Layout.automatic, .ndjson] {
                let result = try readJSONAtEverySize(path: path, layout: layout, options: options)
                if documentError != nil {
                    #expect(result.error != nil, "\(path) is invalid but read cleanly")
                }
            }
        }
    }

    @Test(
        "The JSONTestSuite files read the same at every size with nested objects flattened",
        arguments: (try? corpusFiles(in: JSONTestSuiteTests.parsingFolder))?.map(\.path) ?? [])
    func flattenedTestSuiteFile(path: String) throws {
        let options = JSONReaderOptions(flattensNestedObjects: true)
        _ = try readJSONAtEverySize(path: path, layout: .automatic, options: options)
        _ = try readJSONAtEverySize(path: path, layout: .ndjson, options: options)
    }

    static func nativeBenchmarkFiles() -> [String] {
        [JSONNativeBenchmarkTests.roundtripFolder, JSONNativeBenchmarkTests.checkerFolder].flatMap { folder in
            ((try? corpusFiles(in: folder)) ?? []).map(\.path)
        }
    }

    @Test("The corpora are where the split tests look for them")
    func corporaArePresent() {
        #expect(Self.nativeBenchmarkFiles().count == 63)
        #expect(((try? corpusFiles(in: JSONTestSuiteTests.parsingFolder)) ?? []).count == 318)
    }
}

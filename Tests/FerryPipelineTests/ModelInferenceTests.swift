import FerryIO
import FerrySQLite
import FerryStore
import FerryTestSupport
import Foundation
import Testing

@testable import FerryPipeline

/// Inferring a new store's model from an input's first records: a malformed record among them is skipped, as the
/// import skips (and rejects) it, rather than failing the inference.
struct ModelInferenceTests {
    /// Record 3 has seven fields where the header has six; counted, its values would make every column text.
    static let csv = """
        sku,name,price,quantity,active,created_at
        SKU-1,Espresso,24.90,120,true,2026-01-05
        SKU-2,Sencha,8.75,200,false,2026-01-07
        SKU-3,Bad,n/a,x,maybe,yesterday,extra
        SKU-4,Muffin,2.50,40,true,2026-01-09
        SKU-5,Scone,3.10,15,false,2026-01-10
        """

    /// Line 3 has an unquoted key, after a column no other record has and values that would make columns text.
    static let ndjson = """
        {"sku":"SKU-1","name":"Espresso","price":24.90,"quantity":120,"active":true,"created_at":"2026-01-05"}
        {"sku":"SKU-2","name":"Sencha","price":8.75,"quantity":200,"active":false,"created_at":"2026-01-07"}
        {"sku":"SKU-3","colour":"red","price":"n/a",quantity:"x","active":"maybe"}
        {"sku":"SKU-4","name":"Muffin","price":2.50,"quantity":40,"active":true,"created_at":"2026-01-09"}
        {"sku":"SKU-5","name":"Scone","price":3.10,"quantity":15,"active":false,"created_at":"2026-01-10"}
        """

    static let expectedAttributes: [(String, AttributeType)] = [
        ("sku", .string), ("name", .string), ("price", .double), ("quantity", .integer64), ("active", .boolean),
        ("created_at", .date),
    ]

    /// The input's text without its 3rd record (the malformed one in both samples).
    static func withoutThirdRecord(_ text: String, format: String) -> String {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        lines.remove(at: format == "csv" ? 3 : 2)
        return lines.joined(separator: "\n")
    }

    /// CSV: a record of the wrong width; NDJSON: a malformed line, which also adds no 'colour' column.
    @Test(arguments: ["csv", "ndjson"])
    func aMalformedRecordIsSkippedAndTheTypesAreThoseWithoutIt(format: String) throws {
        let folder = try InputFolder()
        let text = format == "csv" ? Self.csv : Self.ndjson
        let model = try folder.inferredModel(from: folder.file("products.\(format)", text))
        let clean = try folder.inferredModel(
            from: folder.file("clean.\(format)", Self.withoutThirdRecord(text, format: format)))

        #expect(model == clean)
        #expect(Self.attributes(of: model) == Self.expectedAttributes.map { "\($0.0): \($0.1)" })
    }

    /// The sample is ``ModelInference/sampleSize`` well-formed records: a skipped one does not take the place of
    /// the last, whose quantity here is not a number.
    @Test(arguments: ["csv", "ndjson"])
    func aSkippedRecordDoesNotCountTowardTheSample(format: String) throws {
        let folder = try InputFolder()
        let wellFormed = ModelInference.sampleSize
        var lines = (1...wellFormed).map { number in
            let quantity = number == wellFormed ? "n/a" : String(number)
            return format == "csv"
                ? "SKU-\(number),\(quantity)"
                : #"{"sku":"SKU-\#(number)","quantity":"\#(quantity)"}"#
        }
        lines.insert(format == "csv" ? "SKU-X,1,extra" : #"{"sku":"SKU-X",quantity:1}"#, at: 2)
        if format == "csv" { lines.insert("sku,quantity", at: 0) }

        let model = try folder.inferredModel(from: folder.file("products.\(format)", lines.joined(separator: "\n")))

        #expect(Self.attributes(of: model) == ["sku: string", "quantity: string"])
    }

    /// With nothing read, there is nothing to type the columns by, and the store would keep the guess: the
    /// inference fails, naming the input, the first malformed record and what to do.
    @Test(arguments: ["csv", "ndjson"])
    func aSampleWithOnlyMalformedRecordsFailsNamingTheFirstOfThem(format: String) throws {
        let folder = try InputFolder()
        let text =
            format == "csv"
            ? "sku,quantity\nSKU-1,1,extra\nSKU-2\n"
            : "{\"sku\":\"SKU-1\",quantity:1}\n{\"sku\":\"SKU-2\",}\n"
        let input = try folder.file("products.\(format)", text)

        let error = #expect(throws: FerryIOError.self) { try folder.inferredModel(from: input) }

        #expect(error?.code == (format == "csv" ? .fieldCount : .invalidJSON))
        #expect(error?.file == input && error?.record == 1 && error?.line == (format == "csv" ? 2 : 1))
        #expect(error?.isRecoverable == false)
        #expect(error?.message.hasPrefix("no model can be inferred: all 2 records read are malformed") == true)
        #expect(error?.message.contains("--model") == true)
        #expect(error?.description.hasPrefix(input + ":") == true)
    }

    /// Guards of what the fix keeps: input that cannot be read (or read on) fails the inference as it fails the
    /// import, and so does a malformed record in a full sync, which the import refuses to skip.
    @Test func inputThatCannotBeReadStillFailsTheInference() throws {
        let folder = try InputFolder()
        let missing = #expect(throws: FerryIOError.self) {
            try folder.inferredModel(from: folder.path("missing.csv"))
        }
        #expect(missing?.code == .fileNotFound)

        let emptyFile = try folder.file("empty.csv", "")
        let noHeader = #expect(throws: PipelineError.self) { try folder.inferredModel(from: emptyFile) }
        #expect(noHeader?.code == .invalidSpec)

        let unterminated = try folder.file("quote.csv", "sku,name\nSKU-1,a\nSKU-2,b\nSKU-3,\"c\nSKU-4,d\n")
        let quote = #expect(throws: FerryIOError.self) { try folder.inferredModel(from: unterminated) }
        #expect(quote?.code == .unterminatedQuote && quote?.record == 3)

        let ndjson = try folder.file("products.ndjson", Self.ndjson)
        let fullSync = #expect(throws: FerryIOError.self) {
            try folder.inferredModel(from: ndjson) { $0.fullSync = FullSync() }
        }
        #expect(fullSync?.code == .invalidJSON && fullSync?.record == 3)
    }

    @Test(arguments: ["csv", "ndjson"])
    func theImportIntoTheInferredModelRejectsTheMalformedRecordAndStoresTheRest(format: String) async throws {
        let folder = try InputFolder()
        let input = try folder.file("products.\(format)", format == "csv" ? Self.csv : Self.ndjson)
        var spec = ImportSpec(entity: "Product", sources: [input])
        spec.keys = ["sku"]
        let container = PersistentContainer(
            name: "catalog", model: try ModelInference.model(entity: "Product", keys: spec.keys, spec: spec),
            storeDescription: PersistentStoreDescription(path: folder.path("catalog.sqlite")))
        try await container.loadPersistentStores()

        let result = try await Importer(container: container).run(spec, name: "import Product")

        #expect(result.counts.read == 5 && result.counts.inserted == 4 && result.counts.rejected == 1)
        #expect(result.counts.isBalanced)
        let connection = try Connection(path: folder.path("catalog.sqlite"), mode: .readOnly)
        let rows = try connection.prepare("SELECT sku, quantity FROM Product ORDER BY sku").fetchAll()
        let stored: [[SQLiteValue]] = [
            [.text("SKU-1"), .integer(120)], [.text("SKU-2"), .integer(200)], [.text("SKU-4"), .integer(40)],
            [.text("SKU-5"), .integer(15)],
        ]
        #expect(rows.map { [$0[0], $0[1]] } == stored)
        let rejects = try connection.prepare("SELECT record, line FROM ferry_rejects").fetchAll()
        #expect(rejects.map { [$0[0], $0[1]] } == [[.integer(3), .integer(format == "csv" ? 4 : 3)]])
    }

    static func attributes(of model: ManagedObjectModel) -> [String] {
        (model.entities.first?.attributes ?? []).map { "\($0.name): \($0.type)" }
    }
}

/// A temporary folder of input files for one test, removed with it.
private final class InputFolder {
    let url: URL

    init() throws { url = try TestSupport.makeTemporaryFolder() }

    deinit { try? FileManager.default.removeItem(at: url) }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    /// Writes `text` to the file `name` and returns its path.
    func file(_ name: String, _ text: String) throws -> String {
        try Data(text.utf8).write(to: url.appendingPathComponent(name))
        return path(name)
    }

    /// The model inferred for importing `input` into `Product` keyed by `sku`.
    func inferredModel(from input: String, _ configure: (inout ImportSpec) -> Void = { _ in }) throws
        -> ManagedObjectModel
    {
        var spec = ImportSpec(entity: "Product", sources: [input])
        spec.keys = ["sku"]
        configure(&spec)
        return try ModelInference.model(entity: "Product", keys: spec.keys, spec: spec)
    }
}

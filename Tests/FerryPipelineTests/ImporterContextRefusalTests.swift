import FerryIO
import FerryPipeline
import FerrySQLite
import FerryStore
import Foundation
import Testing

/// Context mode when a record is refused while its chunk commits (validation at the save, or a later record of the
/// same key finding its object invalid): the result is what it would be had the record never been in the input,
/// whatever the chunk size.
struct ImporterContextRefusalTests {
    /// One import's outcome: its counts, the stored products and the rejects file's records.
    struct Outcome: Equatable {
        var counts: StepCounts
        var rows: [[SQLiteValue]]
        var rejects: [Reject]
    }

    /// A line of an NDJSON rejects file: the record's key and where and why it was refused.
    struct Reject: Equatable {
        var sku: String?
        var record: Int
        var line: Int
        var reason: String
    }

    static func counts(read: Int, inserted: Int, updated: Int, unchanged: Int, kept: Int = 0, rejected: Int)
        -> StepCounts
    {
        var counts = StepCounts()
        counts.kept = kept
        counts.read = read
        counts.inserted = inserted
        counts.updated = updated
        counts.unchanged = unchanged
        counts.rejected = rejected
        return counts
    }

    /// The products an import stored, the seed row aside.
    static let productsQuery = "SELECT sku, name, price FROM Product WHERE sku <> 'SKU-9' ORDER BY sku"

    /// Imports `text` (saved as `name`) into a fresh store, in `mode` (context by default) with chunks of
    /// `chunkSize` records. With `seeded`, the store holds SKU-9 first, so the import is not a first load (whose
    /// indexes are deferred, see ``ContextChunkWriter/insertsEveryRecord``).
    static func importProducts(
        _ name: String, _ text: String, mode: ImportSpec.Mode = .context, policy: MergePolicy, chunkSize: Int,
        seeded: Bool = false, configure: (PersistentContainer) -> Void = { _ in },
        _ adjust: (inout ImportSpec) -> Void = { _ in }
    ) async throws -> Outcome {
        let fixture = try await ImportFixture(configure)
        if seeded {
            _ = try await fixture.importProducts([try fixture.file("seed.csv", "sku,name\nSKU-9,Seed\n")], name: "seed")
            {
                $0.relationships = []
            }
        }
        let rejectsPath = fixture.path("rejects.ndjson")
        let result = try await fixture.importProducts([try fixture.file(name, text)]) {
            $0.mode = mode
            $0.chunkSize = chunkSize
            $0.relationships = []
            $0.mergePolicy = policy
            $0.rejectsPath = rejectsPath
            adjust(&$0)
        }
        return Outcome(counts: result.counts, rows: try fixture.rows(productsQuery), rejects: try rejects(rejectsPath))
    }

    static func rejects(_ path: String) throws -> [Reject] {
        guard FileManager.default.fileExists(atPath: path) else { return [] }
        return try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map { line in
            let object = try #require(
                try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not an object: \(line)")
            return Reject(
                sku: object["sku"] as? String, record: try #require(object["_record"] as? Int),
                line: try #require(object["_line"] as? Int), reason: try #require(object["_reason"] as? String))
        }
    }

    /// The first record of SKU-1 has no name, which the model requires: only the save's validation sees it.
    static let firstWithoutName = """
        {"sku":"SKU-1","price":1.00}
        {"sku":"SKU-2","name":"Other","price":2.00}
        {"sku":"SKU-1","name":"Second","price":3.00}
        """

    /// Batch mode refuses the record before inserting (its reason is worded differently) and agrees on the rest.
    /// Under error too: the refused record never stored its key, so the later one does not conflict with it.
    @Test(arguments: [MergePolicy.mergeByPropertyStoreTrump, .mergeByPropertyObjectTrump, .error])
    func aRecordRefusedAtTheSaveLetsALaterRecordOfItsKeyBeInserted(policy: MergePolicy) async throws {
        for (mode, chunkSize) in [(ImportSpec.Mode.context, 10), (.context, 1), (.batch, 10)] {
            let run = "\(mode), chunk \(chunkSize)"
            let outcome = try await Self.importProducts(
                "p.ndjson", Self.firstWithoutName, mode: mode, policy: policy, chunkSize: chunkSize)

            #expect(
                outcome.counts == Self.counts(read: 3, inserted: 2, updated: 0, unchanged: 0, rejected: 1), "\(run)")
            #expect(
                outcome.rows == [
                    [.text("SKU-1"), .text("Second"), .text("3")], [.text("SKU-2"), .text("Other"), .text("2")],
                ], "\(run)")
            let reject = try #require(outcome.rejects.first, "\(run)")
            #expect(outcome.rejects.count == 1 && reject.sku == "SKU-1", "\(run)")
            #expect(reject.record == 1 && reject.line == 1, "\(run)")
            if mode == .context {
                #expect(reject.reason == "validation: 'name': a value is required (not optional)")
            }
        }
    }

    /// A custom validator (a rule the packer cannot check) refuses names spelled "Forbidden".
    static func refusingForbiddenNames(_ container: PersistentContainer) {
        container.addValidator(entity: "Product", key: "name") { value in
            guard case .string("Forbidden")? = value else { return nil }
            return ValidationError(.managedObjectValidation, message: "this name is not allowed")
        }
    }

    /// SKU-1's first record is refused, SKU-2's second one; SKU-3 is refused while packing, before the chunk
    /// commits.
    static let forbiddenNames = """
        sku,name,price
        SKU-1,Forbidden,1.00
        SKU-3,Bad price,abc
        SKU-1,Second,3.00
        SKU-2,First,2.00
        SKU-2,Forbidden,9.00
        """

    static let badPrice =
        "column 'price': expected a decimal (a number such as -12.50 or 1.5e3, at most 38 significant digits)"

    @Test func underStoreTrumpTheRecordAfterARefusedOneOfItsKeyIsInsertedAndTheNextKeptOut() async throws {
        for chunkSize in [10, 1] {
            let outcome = try await Self.importProducts(
                "p.csv", Self.forbiddenNames, policy: .mergeByPropertyStoreTrump, chunkSize: chunkSize, seeded: true,
                configure: Self.refusingForbiddenNames)

            // SKU-2's second record meets a stored key: store-trump keeps the first, so its name is never saved
            // (and, its values differing, it counts as kept).
            #expect(
                outcome.counts == Self.counts(read: 5, inserted: 2, updated: 0, unchanged: 0, kept: 1, rejected: 2),
                "chunk \(chunkSize): \(outcome.counts)")
            #expect(
                outcome.rows == [
                    [.text("SKU-1"), .text("Second"), .text("3")], [.text("SKU-2"), .text("First"), .text("2")],
                ], "chunk \(chunkSize)")
            #expect(
                outcome.rejects == [
                    Reject(sku: "SKU-1", record: 1, line: 2, reason: "validation: 'name': this name is not allowed"),
                    Reject(sku: "SKU-3", record: 2, line: 3, reason: Self.badPrice),
                ], "chunk \(chunkSize)")
        }
    }

    /// Under object-trump each refused record is pinned on itself, not on its key's other records. So it is in a
    /// first load under store-trump, which inserts every record as a new object (the index build then keeps each
    /// key's first): SKU-2's second record is validated as the new object it was, and refused, wherever the chunks
    /// split.
    @Test(arguments: [MergePolicy.mergeByPropertyObjectTrump, .mergeByPropertyStoreTrump])
    func eachRefusedRecordIsPinnedOnItselfUnderObjectTrumpAndInAFirstLoad(policy: MergePolicy) async throws {
        for chunkSize in [10, 1] {
            let outcome = try await Self.importProducts(
                "p.csv", Self.forbiddenNames, policy: policy, chunkSize: chunkSize,
                configure: Self.refusingForbiddenNames)

            #expect(
                outcome.counts == Self.counts(read: 5, inserted: 2, updated: 0, unchanged: 0, rejected: 3),
                "chunk \(chunkSize): \(outcome.counts)")
            #expect(
                outcome.rows == [
                    [.text("SKU-1"), .text("Second"), .text("3")], [.text("SKU-2"), .text("First"), .text("2")],
                ], "chunk \(chunkSize)")
            let reason = "validation: 'name': this name is not allowed"
            #expect(
                outcome.rejects == [
                    Reject(sku: "SKU-1", record: 1, line: 2, reason: reason),
                    Reject(sku: "SKU-3", record: 2, line: 3, reason: Self.badPrice),
                    Reject(sku: "SKU-2", record: 5, line: 6, reason: reason),
                ], "chunk \(chunkSize)")
        }
    }

    @Test func aRecordRefusedForAMissingDestinationLeavesNoValueOnItsKeysEarlierObject() async throws {
        let fixture = try await ImportFixture()
        _ = try await fixture.importProducts([try fixture.file("seed.csv", "sku,name,category\nSKU-9,Seed,Coffee\n")])
        let input = try fixture.file(
            "p.csv", "sku,name,category,price\nSKU-1,First,Coffee,1.00\nSKU-1,Second,Nowhere,3.00\n")

        let result = try await fixture.importProducts([input]) {
            $0.mode = .context
            $0.chunkSize = 10
            $0.mergePolicy = .mergeByPropertyObjectTrump
            $0.relationships = [RelationshipMapping(column: "category", by: "name", createsMissing: false)]
        }

        #expect(result.counts == Self.counts(read: 2, inserted: 1, updated: 0, unchanged: 0, rejected: 1))
        #expect(
            try fixture.rows(
                "SELECT p.sku, p.name, p.price, c.name FROM Product p JOIN Category c ON c._pk = p.category "
                    + "WHERE p.sku = 'SKU-1'") == [[.text("SKU-1"), .text("First"), .text("1"), .text("Coffee")]])
    }
}

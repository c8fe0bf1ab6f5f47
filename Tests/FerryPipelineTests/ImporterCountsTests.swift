import FerryIO
@testable import FerryPipeline
import FerrySQLite
import FerryStore
import FerryTestSupport
import Foundation
import Testing

/// Counts that say what a step did, in both modes: records kept over differing values, destinations created,
/// relationships left empty, columns nothing reads.
struct ImporterCountsTests {
    static let day1 = """
        sku,name,category,price,quantity,active,created_at
        SKU-1,Espresso,Coffee,24.9,120,true,
        SKU-2,Sencha,Tea,8.75,200,true,

        """
    static let day2 = """
        sku,name,category,price,quantity,active,created_at
        SKU-1,Espresso Doppio,Coffee,24.9,120,true,
        SKU-2,Sencha,Tea,8.75,200,true,
        SKU-3,Croissant,Bakery,1.95,40,false,

        """

    @Test(arguments: ImportSpec.Mode.allCases)
    func aStoredKeyWithDifferingValuesIsCountedKeptNotUnchanged(mode: ImportSpec.Mode) async throws {
        let fixture = try await ImportFixture()
        let first = try await fixture.importProducts([try fixture.file("day1.csv", Self.day1)]) { $0.mode = mode }
        #expect(first.counts.inserted == 2 && first.counts.kept == 0)

        let second = try await fixture.importProducts([try fixture.file("day2.csv", Self.day2)], name: "day2") {
            $0.mode = mode
        }

        #expect(second.counts.read == 3 && second.counts.inserted == 1, "\(second.counts)")
        #expect(second.counts.kept == 1 && second.counts.unchanged == 1 && second.counts.updated == 0)
        #expect(second.counts.isBalanced)
        // Store-trump kept yesterday's name.
        #expect(try fixture.rows("SELECT name FROM Product WHERE sku = 'SKU-1'") == [[.text("Espresso")]])
        // The ledger keeps the count, which inspection shows.
        let ledger = try fixture.rows("SELECT json_extract(counts, '$.kept') FROM ferry_runs ORDER BY id DESC LIMIT 1")
        #expect(ledger == [[.integer(1)]])
        let inspection = try await StoreInspection.read(fixture.container.persistentStore, path: fixture.storePath)
        #expect(inspection.runs.first { $0.pipeline == "day2" }?.counts["kept"] == 1)
        #expect(inspection.runs.first { $0.pipeline == "day2" }?.counts["created Category"] == 1)
    }

    @Test(arguments: ImportSpec.Mode.allCases)
    func destinationsARelationshipCreatesAreCountedPerEntity(mode: ImportSpec.Mode) async throws {
        let fixture = try await ImportFixture()
        let first = try await fixture.importProducts([try fixture.file("day1.csv", Self.day1)]) { $0.mode = mode }
        #expect(first.counts.created == ["Category": 2])

        let second = try await fixture.importProducts([try fixture.file("day2.csv", Self.day2)], name: "day2") {
            $0.mode = mode
        }
        #expect(second.counts.created == ["Category": 1])
        #expect(RunReport.summary(second).contains("created 1 Category"))
    }

    @Test(arguments: ImportSpec.Mode.allCases)
    func onMissingNullStoresTheRecordWithTheRelationshipEmptyAndCountsIt(mode: ImportSpec.Mode) async throws {
        let fixture = try await ImportFixture()
        let result = try await fixture.importProducts([try fixture.file("day1.csv", Self.day1)]) { spec in
            spec.mode = mode
            spec.relationships = [RelationshipMapping(column: "category", by: "name", onMissing: .null)]
        }

        #expect(result.counts.inserted == 2 && result.counts.leftEmpty == 2 && result.counts.rejected == 0)
        #expect(result.counts.created.isEmpty && result.counts.isBalanced)
        #expect(try fixture.rows("SELECT count(*) FROM Product WHERE category IS NULL") == [[.integer(2)]])
        #expect(try fixture.rows("SELECT count(*) FROM Category") == [[.integer(0)]])
    }

    @Test(arguments: ImportSpec.Mode.allCases)
    func onMissingRejectRefusesTheRecordNamingBothWaysOut(mode: ImportSpec.Mode) async throws {
        let fixture = try await ImportFixture()
        let rejects = fixture.path("rejects.csv")
        let result = try await fixture.importProducts([try fixture.file("day1.csv", Self.day1)]) { spec in
            spec.mode = mode
            spec.rejectsPath = rejects
            spec.relationships = [RelationshipMapping(column: "category", by: "name", onMissing: .reject)]
        }

        #expect(result.counts.rejected == 2 && result.counts.leftEmpty == 0 && result.counts.isBalanced)
        let text = try String(contentsOfFile: rejects, encoding: .utf8)
        #expect(text.contains("onMissing: create") && text.contains("onMissing: null"))
    }

    /// A destination made for a chunk that is then rolled back (here: a row the insert refuses takes the run past
    /// its reject limit) goes with it, so no stored row escapes the counts; the resume creates and counts it.
    @Test(arguments: ImportSpec.Mode.allCases)
    func aDestinationCreatedForAChunkThatRollsBackIsRolledBackWithIt(mode: ImportSpec.Mode) async throws {
        let fixture = try await ImportFixture()
        // The second record lacks `name`, which only the insert (or the save) refuses.
        let input = try fixture.file(
            "products.ndjson",
            #"""
            {"sku": "SKU-1", "name": "Espresso", "category": "Coffee"}
            {"sku": "SKU-2", "category": "Coffee"}
            """# + "\n")

        let error = await #expect(throws: PipelineError.self) {
            try await fixture.importProducts([input]) { spec in
                spec.mode = mode
                spec.maxRejects = .count(0)
            }
        }
        let categories = try fixture.rows("SELECT name FROM Category ORDER BY name")
        let resumed = try await fixture.importProducts([input], resume: true) { $0.mode = mode }

        #expect(error?.code == .tooManyRejects)
        #expect(categories == [])
        #expect(resumed.counts.created == ["Category": 1] && resumed.counts.inserted == 1 && resumed.counts.isBalanced)
        #expect(try fixture.rows("SELECT name FROM Category") == [[.text("Coffee")]])
    }

    @Test func onMissingNullOnARelationshipThatIsNotOptionalIsAConfigurationError() throws {
        let model = try ModelFile(
            yaml: """
                entities:
                  Plane:
                    attributes: { tailnum: { type: string, optional: false } }
                    uniquenessConstraints: [[tailnum]]
                  Flight:
                    attributes: { id: { type: integer64, optional: false } }
                    relationships:
                      plane: { to: Plane, optional: false }
                    uniquenessConstraints: [[id]]
                """
        ).model
        var spec = ImportSpec(entity: "Flight", sources: ["flights.csv"])
        spec.relationships = [
            RelationshipMapping(column: "tailnum", relationship: "plane", by: "tailnum", onMissing: .null)
        ]

        #expect {
            try ImportPlan(spec: spec, model: model, inputColumns: ["id", "tailnum"])
        } throws: { error in
            (error as? PipelineError)?.code == .invalidSpec
                && "\(error)".contains("not optional") && "\(error)".contains("onMissing: null")
        }
    }

    @Test(arguments: ImportSpec.Mode.allCases)
    func inputColumnsNoAttributeReadsAreReported(mode: ImportSpec.Mode) async throws {
        let fixture = try await ImportFixture()
        let input = try fixture.file(
            "renamed.csv",
            """
            sku,title,category,price,colour
            SKU-1,Espresso,Coffee,24.9,brown

            """)

        let result = try await fixture.importProducts([input]) { spec in
            spec.mode = mode
            spec.relationships = [RelationshipMapping(column: "category", by: "name", onMissing: .null)]
        }

        #expect(result.unreadColumns == ["title", "colour"])
        #expect(RunReport.summary(result).contains("unread columns: title, colour"))
    }

    /// JSON records carry their own fields: every record read is looked at, a field repeated in a record or in
    /// several records is named once, and one past the 64th field of a record counts too.
    @Test(arguments: ImportSpec.Mode.allCases)
    func jsonFieldsNoAttributeReadsAreReportedFromEveryRecord(mode: ImportSpec.Mode) async throws {
        let fixture = try await ImportFixture()
        let padding = (1...64).map { #""p\#($0)": \#($0)"# }.joined(separator: ", ")
        let input = try fixture.file(
            "renamed.ndjson",
            #"""
            {"sku": "SKU-1", "name": "Espresso", "price": 24.9}
            {"sku": "SKU-2", "name": "Sencha", "title": "Sencha", "name": "again"}
            {"sku": "SKU-3", "name": "Mocha", "colour": "brown", "title": "Mocha"}
            {\#(padding), "sku": "SKU-4", "name": "Wide", "late": true}
            """# + "\n")

        let result = try await fixture.importProducts([input]) { $0.mode = mode }

        #expect(result.counts.inserted == 4 && result.counts.isBalanced)
        #expect(result.unreadColumns == ["title", "colour"] + (1...64).map { "p\($0)" } + ["late"])
    }

    static let flightsModel = """
        entities:
          Plane:
            attributes: { tailnum: { type: string, optional: false } }
            uniquenessConstraints: [[tailnum]]
          Flight:
            attributes:
              id: { type: integer64, optional: false }
              tailnum: string
            relationships:
              plane: { to: Plane }
            uniquenessConstraints: [[id]]
        """

    @Test(arguments: ImportSpec.Mode.allCases)
    func theColumnARelationshipResolvesByIsAlsoStoredInTheAttributeOfItsName(mode: ImportSpec.Mode) async throws {
        let folder = try TestSupport.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let container = PersistentContainer(
            name: "flights", model: try ModelFile(yaml: Self.flightsModel).model,
            storeDescription: PersistentStoreDescription(path: folder.appendingPathComponent("f.sqlite").path))
        try await container.loadPersistentStores()
        let input = folder.appendingPathComponent("flights.csv")
        try Data("id,tailnum\n1,N14228\n2,N24211\n".utf8).write(to: input)
        var spec = ImportSpec(entity: "Flight", sources: [input.path])
        spec.mode = mode
        spec.relationships = [
            RelationshipMapping(column: "tailnum", relationship: "plane", by: "tailnum", onMissing: .create)
        ]

        let result = try await Importer(container: container).run(spec, name: "flights")

        #expect(result.counts.inserted == 2 && result.counts.created == ["Plane": 2] && result.unreadColumns == [])
        let connection = try Connection(path: folder.appendingPathComponent("f.sqlite").path, mode: .readOnly)
        let rows = try connection.prepare(
            "SELECT f.tailnum, p.tailnum FROM Flight f JOIN Plane p ON p._pk = f.plane ORDER BY f.id"
        ).fetchAll().map { [$0[0], $0[1]] }
        #expect(rows == [[.text("N14228"), .text("N14228")], [.text("N24211"), .text("N24211")]])
    }

    @Test func countsFromALedgerWrittenBeforeKeptAndCreatedDecodeAsZero() throws {
        let counts = try JSONDecoder().decode(
            StepCounts.self,
            from: Data(#"{"read":3,"inserted":2,"updated":0,"unchanged":1,"rejected":0,"deleted":0}"#.utf8))
        #expect(counts.read == 3 && counts.kept == 0 && counts.created.isEmpty && counts.isBalanced)
    }
}

/// Persistent history of an import's updates names only the attributes the update changed.
struct ImporterHistoryTests {
    @Test(arguments: ImportSpec.Mode.allCases)
    func anUpdateRecordsOnlyTheAttributesThatChanged(mode: ImportSpec.Mode) async throws {
        let folder = try TestSupport.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var description = PersistentStoreDescription(path: folder.appendingPathComponent("h.sqlite").path)
        description.recordsHistory = true
        let container = PersistentContainer(
            name: "catalog", model: try ModelFile(yaml: ImportFixture.modelYAML).model, storeDescription: description)
        try await container.loadPersistentStores()
        let day1 = folder.appendingPathComponent("day1.csv")
        let day2 = folder.appendingPathComponent("day2.csv")
        try Data("sku,name,price,quantity\nSKU-1,Espresso,24.9,120\nSKU-2,Sencha,8.75,200\n".utf8).write(to: day1)
        try Data("sku,name,price,quantity\nSKU-1,Espresso,26.5,120\nSKU-2,Sencha,8.75,200\n".utf8).write(to: day2)
        for (path, name) in [(day1.path, "day1"), (day2.path, "day2")] {
            var spec = ImportSpec(entity: "Product", sources: [path])
            spec.mode = mode
            spec.mergePolicy = .mergeByPropertyObjectTrump
            _ = try await Importer(container: container).run(spec, name: name)
        }

        let last = try #require(try await container.persistentStore.fetchHistory(after: nil).last)
        #expect(last.author?.contains("day2") == true)
        #expect(last.changes.map(\.kind) == [.update])
        #expect(last.changes.first?.updatedProperties == ["price"])
    }

    /// With several uniqueness constraints, the stored row is found by any of them: history names what changed, a
    /// key attribute included when the row was met by the other key.
    @Test(arguments: ImportSpec.Mode.allCases)
    func anUpdateOfAnEntityWithSeveralKeysRecordsOnlyTheAttributesThatChanged(mode: ImportSpec.Mode) async throws {
        let folder = try TestSupport.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var description = PersistentStoreDescription(path: folder.appendingPathComponent("h.sqlite").path)
        description.recordsHistory = true
        let model = try ModelFile(
            yaml: """
                entities:
                  Item:
                    attributes:
                      sku: { type: string, optional: false }
                      barcode: { type: string, optional: false }
                      price: double
                      quantity: integer32
                    uniquenessConstraints: [[sku], [barcode]]
                """
        ).model
        let container = PersistentContainer(name: "items", model: model, storeDescription: description)
        try await container.loadPersistentStores()
        let day1 = folder.appendingPathComponent("day1.csv")
        let day2 = folder.appendingPathComponent("day2.csv")
        try Data("sku,barcode,price,quantity\nS-1,B-1,2.5,10\nS-2,B-2,4.0,20\n".utf8).write(to: day1)
        try Data("sku,barcode,price,quantity\nS-1,B-1,2.75,10\nS-2,B-9,4.0,20\n".utf8).write(to: day2)
        for (path, name) in [(day1.path, "day1"), (day2.path, "day2")] {
            var spec = ImportSpec(entity: "Item", sources: [path])
            spec.keys = ["sku"]
            spec.mode = mode
            spec.mergePolicy = .mergeByPropertyObjectTrump
            _ = try await Importer(container: container).run(spec, name: name)
        }

        let last = try #require(try await container.persistentStore.fetchHistory(after: nil).last)
        #expect(last.author?.contains("day2") == true)
        #expect(last.changes.map(\.kind) == [.update, .update])
        #expect(last.changes.map(\.updatedProperties).sorted { $0.count < $1.count } == [["price"], ["barcode"]])
    }
}

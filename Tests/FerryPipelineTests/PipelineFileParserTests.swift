import FerryStore
import Testing

@testable import FerryPipeline

/// Mistakes of form in a pipeline file: each is one issue at its own line, with a suggestion when a word is close
/// to a valid one.
struct PipelineFileParserTests {
    private func issues(_ yaml: String) -> [PipelineIssue] {
        do {
            _ = try PipelineFileParser.parse(yaml: yaml, path: "nightly.yml")
            return []
        } catch let error as PipelineFileError {
            return error.issues
        } catch {
            Issue.record("unexpected error \(error)")
            return []
        }
    }

    @Test func aKeyWrittenTwicePointsAtItsSecondLineAndNotAtTheWholeFile() {
        let found = issues(
            """
            store: catalog.sqlite
            steps:
              - batchDelete: { entity: Product, where: "price < 0" }
            store: other.sqlite
            """)
        #expect(found.count == 1)
        #expect(found.first?.line == 4)
        #expect(
            found.first?.description
                == "nightly.yml:4: 'store' appears twice in one mapping (first at line 1); each name may appear once")
    }

    @Test func migrationTakesAModeAloneOrAModeWithItsOwnDateFormats() throws {
        let plain = try PipelineFileParser.parse(
            yaml: "store: s.sqlite\nmigration: manual\nsteps:\n  - batchDelete: { entity: P, where: \"x < 0\" }\n",
            path: "nightly.yml")
        #expect(!plain.migratesAutomatically && plain.migrationDateFormats == [.iso8601])
        let mapped = try PipelineFileParser.parse(
            yaml: """
                store: s.sqlite
                migration: { mode: automatic, dateFormats: [dd/MM/yyyy, epochSeconds] }
                steps:
                  - batchDelete: { entity: P, where: "x < 0" }
                """, path: "nightly.yml")
        #expect(mapped.migratesAutomatically)
        #expect(mapped.migrationDateFormats == [.pattern(try DatePattern("dd/MM/yyyy")), .epochSeconds])
        let found = issues(
            """
            store: s.sqlite
            migration: { mode: manual, dateFormats: [MMM yyyy], formats: [iso8601] }
            steps:
              - batchDelete: { entity: P, where: "x < 0" }
            """)
        #expect(found.count == 2)
        #expect(found.contains { $0.keyPath == "migration.dateFormats" && $0.message.contains("'MMM yyyy'") })
        #expect(found.contains { $0.keyPath == "migration.formats" })
    }

    @Test func aMisspelledKeyIsAnsweredWithTheKeyItResembles() {
        let found = issues(
            """
            store: catalog.sqlite
            steps:
              - batchDelete: { entity: Product, were: "price < 0" }
            """)
        #expect(
            found.map(\.description).contains(
                "nightly.yml:3: steps[0].batchDelete.were: unknown key 'were'; did you mean 'where'?"))
    }

    @Test func aMisspelledChoiceIsAnsweredWithTheChoiceItResembles() {
        let found = issues(
            """
            store: catalog.sqlite
            steps:
              - import: { source: products.csv, entity: Product, mode: bacth }
            """)
        #expect(found.map(\.message).contains("expected batch or context, found 'bacth'; did you mean 'batch'?"))
    }

    @Test func mergePoliciesTakeTheCommandLinesSpellingsToo() throws {
        for (spelling, policy) in [
            ("store-trump", MergePolicy.mergeByPropertyStoreTrump), ("storeTrump", .mergeByPropertyStoreTrump),
            ("object-trump", .mergeByPropertyObjectTrump), ("objectTrump", .mergeByPropertyObjectTrump),
        ] {
            let file = try PipelineFileParser.parse(
                yaml: "store: s.sqlite\nsteps:\n  - import: { source: -, entity: E, mergePolicy: \(spelling) }\n",
                path: "nightly.yml")
            guard case .importRecords(let spec)? = file.steps.first?.action else {
                Issue.record("no import step")
                continue
            }
            #expect(spec.mergePolicy == policy, "\(spelling)")
        }
    }

    @Test func aKeyNothingResemblesListsTheValidKeys() {
        let found = issues("store: catalog.sqlite\nsteps: []\ncolour: blue\n")
        #expect(found.first?.message == "unknown key 'colour'; expected one of store, model, history, migration, steps")
    }
}

/// A relationship mapping's `onMissing` in a pipeline file.
struct PipelineFileOnMissingTests {
    private func relationships(_ mapping: String) throws -> [RelationshipMapping] {
        let file = try PipelineFileParser.parse(
            yaml: """
                store: catalog.sqlite
                steps:
                  - import:
                      source: "-"
                      entity: Flight
                      relationships:
                        plane: \(mapping)
                """, path: "nightly.yml")
        guard case .importRecords(let spec) = try #require(file.steps.first).action else { return [] }
        return spec.relationships
    }

    @Test func onMissingTakesRejectCreateOrNullAndCreateMissingStaysASynonym() throws {
        #expect(
            try relationships("{ entity: Plane, by: tailnum, column: tailnum, onMissing: null }").first?.onMissing
                == .null)
        #expect(try relationships("{ entity: Plane, by: tailnum, onMissing: create }").first?.onMissing == .create)
        #expect(try relationships("{ entity: Plane, by: tailnum, createMissing: true }").first?.onMissing == .create)
        #expect(try relationships("{ entity: Plane, by: tailnum }").first?.onMissing == .reject)
        #expect(try relationships("{ entity: Plane, by: tailnum, column: tailnum }").first?.column == "tailnum")
    }

    @Test func anUnknownOnMissingValueIsAnIssueWithASuggestion() {
        #expect {
            try relationships("{ entity: Plane, by: tailnum, onMissing: nul }")
        } throws: { error in
            "\(error)".contains("onMissing") && "\(error)".contains("did you mean 'null'")
        }
    }
}

import FerryIO
import FerryPipeline
import FerrySQLite
import FerryStore
import Foundation
import Testing

/// Every reject is its record exactly as read (its fields in the input's order, null tokens as written), in the
/// rejects file and in `ferry_rejects` alike, whatever stage refused it: packing, relationship resolution, the batch
/// insert or the context's save.
struct ImporterRejectsAsReadTests {
    /// The `fields` column of every row of `ferry_rejects`, in order.
    static func ledgerFields(_ fixture: ImportFixture) throws -> [String] {
        try fixture.rows("SELECT fields FROM ferry_rejects ORDER BY run, seq").compactMap { $0[0].text }
    }

    /// The JSON the ledger holds for fields `(name, kind, text)`.
    static func fieldsJSON(_ fields: [(String, FieldKind, String)]) -> String {
        let entries: [[Any]] = fields.map { [$0.0, Int($0.1.rawValue), $0.2] }
        return String(decoding: (try? JSONSerialization.data(withJSONObject: entries)) ?? Data(), as: UTF8.self)
    }

    /// Columns in an order of their own (not the model's), `NA` read as null: SKU-1's category is unknown (refused
    /// while resolving relationships), SKU-2's name is `NA` (refused while packing: a name is required).
    static let csv = """
        sku,category,price,name,quantity
        SKU-1,Nowhere,NA,Espresso,5
        SKU-2,Nowhere,1.00,NA,3
        """

    @Test(arguments: [ImportSpec.Mode.batch, .context])
    func csvRecordsRefusedWhilePackingOrResolvingAreWrittenAsRead(mode: ImportSpec.Mode) async throws {
        let fixture = try await ImportFixture()
        let input = try fixture.file("products.csv", Self.csv)
        let rejectsPath = fixture.path("rejects.csv")

        let result = try await fixture.importProducts([input]) {
            $0.mode = mode
            $0.relationships = [RelationshipMapping(column: "category", by: "name", createsMissing: false)]
            $0.dialect = RecordFormat.csv.defaultDialect
            $0.dialect?.nullTokens = ["", "NA"]
            $0.rejectsPath = rejectsPath
        }

        #expect(result.counts.read == 2 && result.counts.rejected == 2)
        let lines = try String(contentsOfFile: rejectsPath, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 3)
        #expect(lines[0] == "sku,category,price,name,quantity,_reason,_file,_record,_line")
        #expect(lines[1].hasPrefix("SKU-1,Nowhere,NA,Espresso,5,column 'category': no Category has name 'Nowhere'"))
        #expect(lines[2].hasPrefix("SKU-2,Nowhere,1.00,NA,3,\"column 'name': a value is required"))
        #expect(
            try Self.ledgerFields(fixture) == [
                Self.fieldsJSON([
                    ("sku", .string, "SKU-1"), ("category", .string, "Nowhere"), ("price", .string, "NA"),
                    ("name", .string, "Espresso"), ("quantity", .string, "5"),
                ]),
                Self.fieldsJSON([
                    ("sku", .string, "SKU-2"), ("category", .string, "Nowhere"), ("price", .string, "1.00"),
                    ("name", .string, "NA"), ("quantity", .string, "3"),
                ]),
            ])
    }

    /// A record refused by the batch insert (a new row without its required name) and one refused at the context's
    /// save (a custom validator), each with keys in an order of their own, a number written `1.00` and a null.
    @Test(arguments: [ImportSpec.Mode.batch, .context])
    func ndjsonRecordsRefusedByTheInsertOrTheSaveAreWrittenAsRead(mode: ImportSpec.Mode) async throws {
        let fixture = try await ImportFixture { container in
            container.addValidator(entity: "Product", key: "name") { value in
                guard case .string("Forbidden")? = value else { return nil }
                return ValidationError(.managedObjectValidation, message: "this name is not allowed")
            }
        }
        let refusedRecord =
            mode == .batch
            ? #"{"price":1.00,"sku":"SKU-1","quantity":null}"#
            : #"{"price":1.00,"name":"Forbidden","sku":"SKU-1","quantity":null}"#
        let input = try fixture.file("products.ndjson", refusedRecord + "\n" + #"{"sku":"SKU-2","name":"Fine"}"# + "\n")
        let rejectsPath = fixture.path("rejects.ndjson")

        let result = try await fixture.importProducts([input]) {
            $0.mode = mode
            $0.relationships = []
            $0.rejectsPath = rejectsPath
        }

        #expect(result.counts.read == 2 && result.counts.inserted == 1 && result.counts.rejected == 1)
        let line = try String(contentsOfFile: rejectsPath, encoding: .utf8).split(separator: "\n").first ?? ""
        #expect(line.hasPrefix(String(refusedRecord.dropLast()) + #","_reason":"#), "\(line)")
        var fields: [(String, FieldKind, String)] = [("price", .number, "1.00")]
        if mode == .context { fields.append(("name", .string, "Forbidden")) }
        fields += [("sku", .string, "SKU-1"), ("quantity", .null, "")]
        #expect(try Self.ledgerFields(fixture) == [Self.fieldsJSON(fields)])
    }

    /// A batch insert refuses new rows without a required value: here the input has no `name` column at all (so
    /// every row), and a ragged row gives no `price` field either. Both are written as read.
    @Test func csvRowsTheBatchInsertRefusesAreWrittenAsRead() async throws {
        let fixture = try await ImportFixture()
        let input = try fixture.file("products.csv", "sku,quantity,price\nSKU-1,NA,1.00\nSKU-2,2\n")
        let rejectsPath = fixture.path("rejects.csv")

        let result = try await fixture.importProducts([input]) {
            $0.relationships = []
            $0.dialect = RecordFormat.csv.defaultDialect
            $0.dialect?.nullTokens = ["", "NA"]
            $0.dialect?.allowsRaggedRows = true
            $0.rejectsPath = rejectsPath
        }

        #expect(result.counts.read == 2 && result.counts.rejected == 2)
        let lines = try String(contentsOfFile: rejectsPath, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 3)
        #expect(lines[1].hasPrefix("SKU-1,NA,1.00,"))
        #expect(lines[2].hasPrefix("SKU-2,2,,"))
        #expect(
            try Self.ledgerFields(fixture) == [
                Self.fieldsJSON([("sku", .string, "SKU-1"), ("quantity", .string, "NA"), ("price", .string, "1.00")]),
                Self.fieldsJSON([("sku", .string, "SKU-2"), ("quantity", .string, "2")]),
            ])

        // Every required column given: only the ragged row, without a name, is refused.
        let ragged = try fixture.file("ragged.csv", "sku,name,price\nSKU-3,Espresso,NA\nSKU-4\n")
        let raggedRejects = fixture.path("ragged-rejects.csv")
        let second = try await fixture.importProducts([ragged], name: "ragged") {
            $0.relationships = []
            $0.dialect = RecordFormat.csv.defaultDialect
            $0.dialect?.nullTokens = ["", "NA"]
            $0.dialect?.allowsRaggedRows = true
            $0.rejectsPath = raggedRejects
        }
        #expect(second.counts.inserted == 1 && second.counts.rejected == 1)
        let raggedLines = try String(contentsOfFile: raggedRejects, encoding: .utf8).split(separator: "\n")
        #expect(raggedLines.count == 2 && raggedLines[1].hasPrefix("SKU-4,,,"))
        #expect(try Self.ledgerFields(fixture).last == Self.fieldsJSON([("sku", .string, "SKU-4")]))
    }

    /// A record kept as read shares its string fields' text with its packed row (``RawRecords``): the rejects of a
    /// chunk whose rows were put in key order still read back each record's own text, quotes, spaces and all (and a
    /// relationship key of 300 bytes, kept in the records' own buffer).
    @Test func contextRejectsOfRowsReorderedByKeyAreEachTheirOwnRecordAsRead() async throws {
        let fixture = try await ImportFixture()
        let seed = try fixture.file("seed.csv", "sku,category,price,name,quantity\nSKU-0,,1.00,Seed,1\n")
        let input = try fixture.file(
            "products.csv",
            """
            sku,category,price,name,quantity
            SKU-9,Nowhere,1.00," Café, ""au lait"" ",5
            SKU-3,,2.00,Tea,NA
            SKU-5,\(String(repeating: "Elsewhere ", count: 30)),3.00,東京,7
            SKU-1,Nowhere,NA,"",2

            """)
        let mapping = [RelationshipMapping(column: "category", by: "name", createsMissing: false)]
        _ = try await fixture.importProducts([seed]) {
            $0.mode = .context
            $0.relationships = mapping
        }

        let result = try await fixture.importProducts([input]) {
            $0.mode = .context
            $0.relationships = mapping
            $0.dialect = RecordFormat.csv.defaultDialect
            $0.dialect?.nullTokens = ["", "NA"]
        }

        #expect(result.counts.read == 4 && result.counts.inserted == 1 && result.counts.rejected == 3)
        // Compared as decoded values: the ledger's JSON may escape non-ASCII text differently.
        let expected: Set<[[String]]> = [
            [
                ["sku", "1", "SKU-9"], ["category", "1", "Nowhere"], ["price", "1", "1.00"],
                ["name", "1", " Café, \"au lait\" "], ["quantity", "1", "5"],
            ],
            [
                ["sku", "1", "SKU-5"], ["category", "1", String(repeating: "Elsewhere ", count: 30)],
                ["price", "1", "3.00"], ["name", "1", "東京"],
                ["quantity", "1", "7"],
            ],
            [
                ["sku", "1", "SKU-1"], ["category", "1", "Nowhere"], ["price", "1", "NA"], ["name", "1", ""],
                ["quantity", "1", "2"],
            ],
        ]
        #expect(try Set(Self.ledgerFields(fixture).map(Self.decoded)) == expected)
    }

    /// A ledger fields JSON as `[name, kind, text]` strings.
    static func decoded(_ json: String) -> [[String]] {
        let entries = (try? JSONSerialization.jsonObject(with: Data(json.utf8))) as? [[Any]] ?? []
        return entries.map { $0.map { "\($0)" } }
    }
}

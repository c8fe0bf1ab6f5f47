import FerryPipeline
import FerrySQLite
import FerryStore
import FerryTestSupport
import Foundation
import Testing

/// `ferry export` to Parquet, run as the built binary, read back by DuckDB and pyarrow and compared with the store.
struct ParquetExportCommandTests {
    let ferry = BuiltCommand(product: "ferry")

    /// The store's value as the readers print it (see Tests/parquet_read.py), for a column of `type`.
    static func text(_ value: SQLiteValue, as type: AttributeType) -> String? {
        switch (value, type) {
        case (.null, _): nil
        case (.integer(let number), .boolean): number == 0 ? "false" : "true"
        case (.integer(let number), .date): "\(number * 1_000_000)"
        case (.real(let seconds), .date): "\(Int64((seconds * 1_000_000).rounded()))"
        case (.integer(let number), .double): "\(Double(number))"
        case (.integer(let number), _): "\(number)"
        case (.real(let number), _): "\(number)"
        case (.text(let text), _): text
        case (.blob(let bytes), _): bytes.map { String(format: "%02x", $0) }.joined()
        }
    }

    static func manifest(_ output: String) throws -> [String: Any] {
        let data = try Data(contentsOf: URL(fileURLWithPath: output + ".manifest.json"))
        return try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
    }

    @Test("The demo store's products exported to Parquet read back in DuckDB and pyarrow as the store holds them")
    func demoProductsReadBack() throws {
        let folder = try PipelineCommandTests.workspace()
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(try ferry.run(["run", "Pipelines/demo.yml", "--quiet"], in: folder).status == 0)
        let store = folder.appendingPathComponent("out/demo/catalog.sqlite")
        let output = folder.appendingPathComponent("products.parquet").path
        let fields: [(String, AttributeType)] = [
            ("sku", .string), ("name", .string), ("category.name", .string), ("price", .decimal),
            ("quantity", .integer32), ("weight", .double), ("active", .boolean), ("created_at", .date),
            ("description", .string), ("tags", .string),
        ]
        let result = try ferry.run([
            "export", "--store", store.path, "--entity", "Product", "--sort", "sku",
            "--fields", fields.map(\.0).joined(separator: ","), "--output", output,
        ])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardError.contains("exported 16 Product rows"))

        let rows = try PipelineCommandTests.rows(
            store,
            """
            SELECT p.sku, p.name, c.name, p.price, p.quantity, p.weight, p.active, p.created_at, p.description, p.tags
            FROM Product p LEFT JOIN Category c ON c._pk = p.category ORDER BY p.sku
            """)
        let readings = try ParquetReaders.read(output)
        for (reader, reading) in [("pyarrow", readings.pyarrow), ("duckdb", readings.duckdb)] {
            #expect(reading.rows == rows.count, "\(reader)")
            for (index, (name, type)) in fields.enumerated() {
                let seen = reading.column(name)
                let expected = rows.map { Self.text($0[index], as: type) }
                if type == .double {
                    #expect(seen.map { $0.flatMap(Double.init) } == expected.map { $0.flatMap(Double.init) }, "\(reader) \(name)")
                } else {
                    #expect(seen == expected, "\(reader) \(name)")
                }
            }
        }
        #expect(readings.duckdb.types["created_at"] == "TIMESTAMP WITH TIME ZONE")
        #expect(readings.duckdb.types["quantity"] == "INTEGER")
        #expect(readings.duckdb.types["active"] == "BOOLEAN")
        #expect(readings.duckdb.types["price"] == "VARCHAR")
        let nullable = Dictionary(
            uniqueKeysWithValues: readings.pyarrow.schema.map { ($0["name"] as? String ?? "", $0["nullable"] as? Bool) })
        #expect(nullable["sku"] == false && nullable["active"] == false)
        #expect(nullable["category.name"] == true && nullable["price"] == true)

        let manifest = try Self.manifest(output)
        #expect(manifest["format"] as? String == "parquet")
        #expect(manifest["rows"] as? Int == 16)
        #expect(manifest["bytes"] as? Int == (try FileManager.default.attributesOfItem(atPath: output)[.size] as? Int))
        #expect((manifest["sha256"] as? String)?.count == 64)
    }

    @Test("Photos, stored inline or in blob files, are exported as their bytes")
    func photosAreTheirBytes() throws {
        let folder = try PipelineCommandTests.workspace()
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(try ferry.run(["run", "Pipelines/demo.yml", "--quiet"], in: folder).status == 0)
        let store = folder.appendingPathComponent("out/demo/catalog.sqlite")
        let output = folder.appendingPathComponent("photos.parquet").path
        let result = try ferry.run([
            "export", "--store", store.path, "--entity", "Product", "--sort", "sku", "--fields", "sku,photo",
            "--where", "photo != nil", "--output", output, "--compression", "snappy",
        ])
        #expect(result.status == 0, "\(result.standardError)")
        let rows = try PipelineCommandTests.rows(store, "SELECT photo FROM Product WHERE photo IS NOT NULL ORDER BY sku")
        let expected: [String?] = try rows.map { row in
            switch row[0] {
            case .blob(let bytes): return bytes.map { String(format: "%02x", $0) }.joined()
            case .text(let reference):
                let relative = try #require(
                    Array(reference.utf8).withUnsafeBytes { ReadSnapshot.blobRelativePath(ofReference: $0) })
                let data = try Data(contentsOf: URL(fileURLWithPath: store.path + "-blobs/" + relative))
                return data.map { String(format: "%02x", $0) }.joined()
            default: return nil
            }
        }
        #expect(!expected.isEmpty)
        let readings = try ParquetReaders.read(output)
        #expect(readings.pyarrow.column("photo") == expected)
        #expect(readings.duckdb.column("photo") == expected)
        #expect(readings.pyarrow.chunk(group: 0, column: 1)["compression"] as? String == "SNAPPY")
    }

    @Test("An incremental Parquet export applied on top of the full one gives the store's current state")
    func incrementalOnTopOfFull() async throws {
        try await ExportCommandTests.withCatalogStore { folder, store in
            let arguments = { (output: String) in
                [
                    "export", "--store", store, "--entity", "Product", "--fields", "sku,name,quantity",
                    "--since-last", "lake", "--output", output,
                ]
            }
            let full = folder.appendingPathComponent("full.parquet").path
            #expect(try ferry.run(arguments(full)).status == 0)

            var description = PersistentStoreDescription(path: store)
            description.recordsHistory = true
            let model = try ManagedObjectModel.load(
                from: TestSupport.packageRoot.appendingPathComponent("Pipelines/catalog.model.yml").path)
            let container = PersistentContainer(name: "Catalog", model: model, storeDescription: description)
            try await container.loadPersistentStores()
            let persistent = container.persistentStore
            _ = try await persistent.execute(
                BatchInsertRequest(
                    entityName: "Product", objects: [["sku": .string("SKU-0004"), "name": .string("Kettle")]]),
                mergePolicy: .error)
            _ = try await persistent.execute(
                BatchUpdateRequest(
                    entityName: "Product", predicate: try FetchPredicate(format: "sku == 'SKU-0001'"),
                    propertiesToUpdate: ["name": .constant(.string("Green tea")), "quantity": .constant(.integer(9))]))
            _ = try await persistent.execute(
                BatchDeleteRequest(
                    fetchRequest: FetchRequest(
                        entityName: "Product", predicate: try FetchPredicate(format: "sku == 'SKU-0002'"))))

            let increment = folder.appendingPathComponent("increment.parquet").path
            let result = try ferry.run(arguments(increment))
            #expect(result.status == 0, "\(result.standardError)")
            #expect(result.standardError.contains("exported 2 Product rows in"))
            #expect(result.standardError.contains("(1 deleted since the previous export)"))

            // Apply: rows by key, the increment's rows over the full export's, the deleted keys removed.
            func rows(_ path: String) throws -> [String: [String?]] {
                let reading = try ParquetReaders.read(path).duckdb
                let skus = reading.column("sku")
                let names = reading.column("name")
                let quantities = reading.column("quantity")
                return Dictionary(
                    uniqueKeysWithValues: skus.indices.map { (skus[$0] ?? "", [names[$0], quantities[$0]]) })
            }
            var state = try rows(full)
            #expect(state.count == 3)
            state.merge(try rows(increment)) { _, new in new }
            let deleted = try Self.manifest(increment)["deleted"] as? [[String: Any]] ?? []
            for tombstone in deleted { state[tombstone["sku"] as? String ?? ""] = nil }

            let current = try PipelineCommandTests.rows(
                URL(fileURLWithPath: store), "SELECT sku, name, quantity FROM Product ORDER BY sku")
            let expected = Dictionary(
                uniqueKeysWithValues: current.map { row in
                    (Self.text(row[0], as: .string) ?? "", [Self.text(row[1], as: .string), Self.text(row[2], as: .integer32)])
                })
            #expect(state == expected)
            #expect(state.keys.sorted() == ["SKU-0001", "SKU-0003", "SKU-0004"])
        }
    }

    @Test("A Parquet export into a folder that does not exist fails as a CSV export does (66) and leaves nothing")
    func unwritableOutput() async throws {
        try await ExportCommandTests.withCatalogStore { folder, store in
            let output = folder.appendingPathComponent("missing/products.parquet").path
            let result = try ferry.run(["export", "--store", store, "--entity", "Product", "--output", output])
            #expect(result.status == 66)
            #expect(
                result.standardError.contains("missing/products.parquet: cannot create output"), "\(result.standardError)")
            #expect(!FileManager.default.fileExists(atPath: output))
        }
    }

    @Test("A Parquet export that runs out of disk fails with 74 and leaves no partial file")
    func diskFull() throws {
        let folder = try PipelineCommandTests.workspace()
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(try ferry.run(["run", "Pipelines/demo.yml", "--quiet"], in: folder).status == 0)
        let store = folder.appendingPathComponent("out/demo/catalog.sqlite")
        let before = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        let result = try ferry.runWithFileSizeLimit(
            kibibytes: 64,
            ["export", "--store", store.path, "--entity", "Product", "--output", "big.parquet", "--compression",
             "uncompressed"],
            in: folder)
        #expect(result.status == 74, "\(result.standardError)")
        #expect(result.standardError.contains("big.parquet"), "\(result.standardError)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == before)
    }

    @Test("Parquet is refused where Ferry would read it, or write it without a store's types, with what to give instead")
    func parquetOnlyFromExports() throws {
        try TestSupport.withTemporaryFolder { folder in
            let input = try TestSupport.write(Array("PAR1".utf8), to: "x.parquet", in: folder)
            let count = try ferry.run(["count", input])
            #expect(count.status == 65)
            #expect(count.standardError.contains("x.parquet: Ferry writes Parquet but does not read it"))
            let output = folder.appendingPathComponent("y.parquet").path
            let convert = try ferry.run(["convert", TestSupport.sampleData("products.csv").path, output])
            #expect(convert.status == 65)
            #expect(convert.standardError.contains("y.parquet: Parquet needs typed columns"))
            #expect(!FileManager.default.fileExists(atPath: output))
        }
    }

    @Test("--uuids-as-text writes a UUID attribute as a string column of its text, which DuckDB reads as VARCHAR")
    func uuidsAsText() throws {
        try TestSupport.withTemporaryFolder { folder in
            let model = folder.appendingPathComponent("model.yml")
            let yaml = """
                entities:
                  Item:
                    attributes: { sku: string, token: uuid }
                    uniquenessConstraints: [[sku]]
                """
            try yaml.write(to: model, atomically: true, encoding: .utf8)
            let source = folder.appendingPathComponent("items.csv")
            try "sku,token\nA,E621E1F8-C36C-495A-93FC-0C247A3E6E5F\nB,\n".write(
                to: source, atomically: true, encoding: .utf8)
            let store = folder.appendingPathComponent("items.sqlite").path
            let imported = try ferry.run([
                "import", "--quiet", source.path, "--store", store, "--model", model.path, "--entity", "Item", "--key",
                "sku",
            ])
            #expect(imported.status == 0, "\(imported.standardError)")
            for asText in [true, false] {
                let output = folder.appendingPathComponent(asText ? "text.parquet" : "uuid.parquet").path
                let export = try ferry.run(
                    ["export", "--quiet", "--store", store, "--entity", "Item", "--output", output]
                        + (asText ? ["--uuids-as-text"] : []))
                #expect(export.status == 0, "\(export.standardError)")
                let readings = try ParquetReaders.read(output)
                #expect(readings.duckdb.column("token") == ["e621e1f8-c36c-495a-93fc-0c247a3e6e5f", nil])
                #expect(readings.duckdb.types["token"] == (asText ? "VARCHAR" : "UUID"))
            }
        }
    }
}

extension ParquetExportCommandTests {
    /// A store of `Item { code, price: decimal(6, 2) }` (`declaring` the price's precision and scale) loaded from
    /// `csv`, in `folder`, or into `store`. The records the import rejects go to `STORE.rejects.csv`.
    @discardableResult
    func decimalStore(
        _ csv: String, declaring precision: String = ", precision: 6, scale: 2", store: String? = nil, in folder: URL
    ) throws -> String {
        let model = """
            entities:
              Item:
                attributes:
                  code: { type: string, optional: false }
                  price: { type: decimal\(precision) }
                uniquenessConstraints: [[code]]
            """
        try Data(model.utf8).write(to: folder.appendingPathComponent("items.model.yml"))
        try Data(csv.utf8).write(to: folder.appendingPathComponent("items.csv"))
        let store = store ?? folder.appendingPathComponent("items.sqlite").path
        let imported = try ferry.run(
            [
                "import", "items.csv", "--store", store, "--model", "items.model.yml", "--entity", "Item", "--key",
                "code", "--rejects", store + ".rejects.csv",
            ],
            in: folder)
        #expect(imported.status == 0, "\(imported.standardError)")
        return store
    }

    @Test("A decimal the model declares with precision and scale is DECIMAL in Parquet, exact at its limits")
    func declaredDecimals() throws {
        try TestSupport.withTemporaryFolder { folder in
            let store = try decimalStore("code,price\na,12.5\nb,9999.99\nc,-9999.99\nd,\ne,0.01\n", in: folder)
            let output = folder.appendingPathComponent("items.parquet").path
            let result = try ferry.run(
                ["export", "--store", store, "--entity", "Item", "--sort", "code", "--output", output])
            #expect(result.status == 0, "\(result.standardError)")
            let readings = try ParquetReaders.read(output)
            let expected: [String?] = ["12.50", "9999.99", "-9999.99", nil, "0.01"]
            #expect(readings.pyarrow.column("price") == expected)
            #expect(readings.duckdb.column("price") == expected)
            #expect(readings.duckdb.types["price"] == "DECIMAL(6,2)")
            #expect(readings.pyarrow.chunk(group: 0, column: 1)["min"] as? String == "-999999")
        }
    }

    @Test("A decimal with more digits than its declared precision is rejected on import, with its reason, not rounded")
    func decimalOverPrecisionOnImport() throws {
        try TestSupport.withTemporaryFolder { folder in
            let store = try decimalStore("code,price\na,12.5\nb,10000\nc,0.125\nd,-9999.99\n", in: folder)
            let rejects = try String(contentsOfFile: store + ".rejects.csv", encoding: .utf8)
            #expect(
                rejects.split(separator: "\n") == [
                    "code,price,_reason,_file,_record,_line",
                    #"b,10000,"column 'price' → 'price': must have at most 4 digits before the point (precision 6, "#
                        + #"scale 2)",items.csv,2,3"#,
                    #"c,0.125,"column 'price' → 'price': must have at most 2 digits after the point (precision 6, "#
                        + #"scale 2); it is not rounded",items.csv,3,4"#,
                ])
            let output = folder.appendingPathComponent("items.parquet").path
            let result = try ferry.run(
                ["export", "--store", store, "--entity", "Item", "--sort", "code", "--output", output])
            #expect(result.status == 0, "\(result.standardError)")
            #expect(try ParquetReaders.read(output).duckdb.column("price") == ["12.50", "-9999.99"])
        }
    }

    @Test("A stored decimal with more digits than a precision declared after it fails the export and leaves no file")
    func decimalOverPrecision() throws {
        try TestSupport.withTemporaryFolder { folder in
            // Stored while the model declared no precision; precision is a validation rule, which stored values
            // are not checked against when it is added.
            let store = try decimalStore("code,price\na,12.5\nb,10000\n", declaring: "", in: folder)
            try decimalStore("code,price\n", store: store, in: folder)
            let output = folder.appendingPathComponent("items.parquet").path
            let result = try ferry.run(["export", "--store", store, "--entity", "Item", "--output", output])
            #expect(result.status == 65, "\(result.standardError)")
            #expect(
                result.standardError.contains("column price holds decimals of at most 6 digits and a value has more"),
                "\(result.standardError)")
            #expect(!FileManager.default.fileExists(atPath: output))
            #expect(!FileManager.default.fileExists(atPath: output + ".manifest.json"))
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).allSatisfy { !$0.contains("ferry-tmp") })
            // The documented way to find them: decimals compare as numbers.
            let found = try ferry.run(
                [
                    "export", "--store", store, "--entity", "Item", "--format", "csv", "--where",
                    "price >= 10000 OR price <= -10000",
                ])
            #expect(found.status == 0, "\(found.standardError)")
            #expect(found.standardOutput == "code,price\nb,10000\n")
        }
    }
}

import FerrySQLite
import FerryStore
import FerryTestSupport
import Foundation
import Testing

/// `ferry export --partition-by`: hive-partitioned Parquet datasets, read back by DuckDB with hive_partitioning.
struct ParquetPartitionCommandTests {
    let ferry = BuiltCommand(product: "ferry")

    /// The demo pipeline's store in a fresh workspace.
    static func withDemoStore(_ body: (URL, String) throws -> Void) throws {
        let folder = try PipelineCommandTests.workspace()
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try BuiltCommand(product: "ferry").run(["run", "Pipelines/demo.yml", "--quiet"], in: folder)
        #expect(result.status == 0, "\(result.standardError)")
        try body(folder, folder.appendingPathComponent("out/demo/catalog.sqlite").path)
    }

    /// Every file under `folder`, relative, sorted.
    static func files(under folder: String) -> [String] {
        (FileManager.default.enumerator(atPath: folder)?.allObjects as? [String] ?? [])
            .filter { !($0.hasSuffix("/") || (try? FileManager.default.attributesOfItem(atPath: folder + "/" + $0)[.type] as? FileAttributeType) == .typeDirectory) }
            .sorted()
    }

    @Test("The demo pipeline writes its products as a Parquet dataset that DuckDB reads in one query")
    func demoDataset() throws {
        try Self.withDemoStore { folder, store in
            let dataset = folder.appendingPathComponent("out/demo/products.parquet").path
            #expect(FileManager.default.fileExists(atPath: dataset + "/_SUCCESS"))
            let reading = try ParquetReaders.readHive(dataset + "/**/*.parquet")
            let count = try PipelineCommandTests.rows(URL(fileURLWithPath: store), "SELECT count(*) FROM Product")
            #expect([[SQLiteValue.integer(Int64(reading.rows))]] == count)
            #expect(reading.types["created_at"] == "TIMESTAMP WITH TIME ZONE")
            #expect(reading.types["quantity"] == "INTEGER")
            #expect(Set(reading.column("category.name").compactMap { $0 }).contains("Coffee"))
        }
    }

    @Test("A dataset partitioned by category reads back in DuckDB with hive partitioning, row for row")
    func partitionedByCategory() throws {
        try Self.withDemoStore { folder, store in
            let output = folder.appendingPathComponent("products").path
            let result = try ferry.run([
                "export", "--store", store, "--entity", "Product", "--fields", "sku,name,quantity,category.name",
                "--partition-by", "category.name", "--format", "parquet", "--output", output,
            ])
            #expect(result.status == 0, "\(result.standardError)")
            let files = Self.files(under: output)
            #expect(files.contains("_SUCCESS"))
            #expect(files.contains("category.name=Coffee/part-00000.parquet"), "\(files)")
            // Products without a category go to Hive's default partition.
            let uncategorized = try PipelineCommandTests.rows(
                URL(fileURLWithPath: store), "SELECT count(*) FROM Product WHERE category IS NULL")
            if uncategorized != [[.integer(0)]] {
                #expect(files.contains("category.name=__HIVE_DEFAULT_PARTITION__/part-00000.parquet"), "\(files)")
            }

            let reading = try ParquetReaders.readHive(output + "/**/*.parquet")
            let rows = try PipelineCommandTests.rows(
                URL(fileURLWithPath: store),
                "SELECT p.sku, p.name, p.quantity, c.name FROM Product p LEFT JOIN Category c ON c._pk = p.category")
            let expected = Set(rows.map { row in
                row.map { value -> String in
                    switch value {
                    case .text(let text): text
                    case .integer(let number): "\(number)"
                    default: "null"
                    }
                }
            })
            let skus = reading.column("sku")
            let names = reading.column("name")
            let quantities = reading.column("quantity")
            let categories = reading.column("category.name")
            let seen = Set(skus.indices.map { index in
                [skus[index], names[index], quantities[index], categories[index]].map { $0 ?? "null" }
            })
            #expect(reading.rows == rows.count)
            #expect(seen == expected)

            let manifest = try ParquetExportCommandTests.manifest(output)
            let listed = manifest["files"] as? [[String: Any]] ?? []
            #expect(Set(listed.compactMap { $0["path"] as? String }) == Set(files.filter { $0 != "_SUCCESS" }))
            #expect(listed.reduce(0) { $0 + ($1["rows"] as? Int ?? 0) } == rows.count)
            for file in listed {
                let path = output + "/" + (file["path"] as? String ?? "")
                #expect(file["bytes"] as? Int == (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int))
                #expect((file["sha256"] as? String)?.count == 64)
            }
            #expect(manifest["partition_by"] as? [String] == ["category.name"])
            #expect(manifest["rows"] as? Int == rows.count)
        }
    }

    @Test("Partition values that are not safe path segments are escaped as Hive does and read back as they were")
    func unsafeValuesAreEscaped() async throws {
        try await ExportCommandTests.withCatalogStore { folder, store in
            let awkward = ["a/b", "..", "x=y:z", "100%", "é 😀", "", "new\nline", "#?*[]^{}\\'\""]
            var description = PersistentStoreDescription(path: store)
            description.recordsHistory = true
            let model = try ManagedObjectModel.load(
                from: TestSupport.packageRoot.appendingPathComponent("Pipelines/catalog.model.yml").path)
            let container = PersistentContainer(name: "Catalog", model: model, storeDescription: description)
            try await container.loadPersistentStores()
            _ = try await container.persistentStore.execute(
                BatchInsertRequest(
                    entityName: "Product",
                    objects: awkward.enumerated().map { index, tags in
                        ["sku": .string("SKU-10\(index)0"), "name": .string("n\(index)"), "tags": .string(tags)]
                    }),
                mergePolicy: .error)
            let output = folder.appendingPathComponent("by-tags").path
            let result = try ferry.run([
                "export", "--store", store, "--entity", "Product", "--fields", "sku,tags", "--partition-by", "tags",
                "--format", "parquet", "--output", output,
            ])
            #expect(result.status == 0, "\(result.standardError)")
            let folders = try FileManager.default.contentsOfDirectory(atPath: output).sorted()
            #expect(folders.contains("tags=a%2Fb"))
            #expect(folders.contains("tags=.."))
            #expect(folders.contains("tags=x%3Dy%3Az"))
            #expect(folders.contains("tags=100%25"))
            #expect(folders.contains("tags=new%0Aline"))
            #expect(folders.contains("tags=__HIVE_DEFAULT_PARTITION__"))
            #expect(folders.allSatisfy { !$0.contains("/") && !$0.contains("\n") })

            let reading = try ParquetReaders.readHive(output + "/**/*.parquet")
            let skus = reading.column("sku")
            let tags = reading.column("tags")
            let pairs = Dictionary(uniqueKeysWithValues: skus.indices.map { (skus[$0] ?? "", tags[$0]) })
            for (index, value) in awkward.enumerated() {
                // Hive reads the empty string's default partition as null, as it does for a null.
                #expect(pairs["SKU-10\(index)0"] == (value.isEmpty ? nil : value), "\(value)")
            }
        }
    }

    @Test("A partitioned export replaces the previous dataset whole, and a failed one leaves it untouched")
    func replacesWholeOrNotAtAll() throws {
        try Self.withDemoStore { folder, store in
            let output = folder.appendingPathComponent("products").path
            let arguments = [
                "export", "--store", store, "--entity", "Product", "--fields", "sku,active", "--partition-by",
                "active", "--format", "parquet", "--output", output,
            ]
            #expect(try ferry.run(arguments).status == 0)
            let first = Self.files(under: output)
            #expect(first.contains("active=true/part-00000.parquet"), "\(first)")

            // A partition key that cannot be a folder (binary) fails before anything moves.
            let refused = try ferry.run([
                "export", "--store", store, "--entity", "Product", "--fields", "sku", "--partition-by", "photo",
                "--format", "parquet", "--output", output,
            ])
            #expect(refused.status != 0)
            #expect(refused.standardError.contains("cannot partition by photo"), "\(refused.standardError)")
            #expect(Self.files(under: output) == first)
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.contains("ferry-tmp") }.isEmpty)

            let byName = try ferry.run([
                "export", "--store", store, "--entity", "Product", "--fields", "sku", "--partition-by", "quantity",
                "--format", "parquet", "--output", output,
            ])
            #expect(byName.status == 0, "\(byName.standardError)")
            let second = Self.files(under: output)
            #expect(second.allSatisfy { $0 == "_SUCCESS" || $0.hasPrefix("quantity=") }, "\(second)")
        }
    }

    @Test("A partitioned export out of disk for the rows it sets aside or SQLite sorts fails with 74, naming where")
    func outOfTemporarySpace() throws {
        try TestSupport.withTemporaryFolder { folder in
            // 40,000 rows of 200 letters: about 8 MB set aside, or sorted, past the 2 MiB SQLite sorts in memory.
            let text = String(repeating: "abcdefghij", count: 20)
            var csv = "code,grp,text\n"
            for row in 0..<40_000 { csv += "c\(row),g\(row % 5),\(text)\n" }
            try Data(csv.utf8).write(to: folder.appendingPathComponent("items.csv"))
            let imported = try ferry.run(
                ["import", "items.csv", "--store", "s.sqlite", "--entity", "Item", "--key", "code", "--quiet"],
                in: folder)
            #expect(imported.status == 0, "\(imported.standardError)")
            let arguments = [
                "export", "--store", "s.sqlite", "--entity", "Item", "--partition-by", "grp", "--format", "parquet",
                "--output", "items", "--quiet",
            ]
            #expect(try ferry.run(arguments, in: folder).status == 0)
            let before = Self.files(under: folder.appendingPathComponent("items").path)
            let temporary = folder.appendingPathComponent("sqlite-tmp")
            try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: false)
            func runOutOfSpace(_ arguments: [String]) throws -> BuiltCommand.Result {
                let full = try BuiltCommand(url: URL(fileURLWithPath: "/usr/bin/env")).runWithFileSizeLimit(
                    kibibytes: 1024, ["SQLITE_TMPDIR=\(temporary.path)", ferry.url.path] + arguments, in: folder)
                #expect(full.status == 74, "\(full.standardError)")
                #expect(Self.files(under: folder.appendingPathComponent("items").path) == before)
                let left = try FileManager.default.contentsOfDirectory(atPath: folder.path)
                #expect(left.filter { $0.contains("ferry-tmp") }.isEmpty, "\(left)")
                #expect(try FileManager.default.contentsOfDirectory(atPath: temporary.path).isEmpty)
                return full
            }

            let setAside = try runOutOfSpace(arguments)
            #expect(
                setAside.standardError.contains("items: writing a temporary file failed: File too large"),
                "\(setAside.standardError)")
            // Sorted by text, which no index orders, the rows are sorted by SQLite in its temporary folder first.
            let sorted = try runOutOfSpace(arguments + ["--sort", "text"])
            #expect(
                sorted.standardError.contains(
                    "reading Item failed: SQLite could not write the temporary files it sorts the rows in, in "
                        + "\(temporary.path) (the first of $SQLITE_TMPDIR, $TMPDIR and /var/tmp)"),
                "\(sorted.standardError)")
        }
    }

    @Test("--partition-by is refused for formats other than Parquet and for standard output")
    func partitionNeedsParquetFolder() throws {
        let csv = try ferry.run([
            "export", "--store", "s.sqlite", "--entity", "Product", "--partition-by", "sku", "--output", "x.csv",
        ])
        #expect(csv.status == 64)
        #expect(csv.standardError.contains("--partition-by writes a Parquet dataset folder"))
        let standardOutput = try ferry.run([
            "export", "--store", "s.sqlite", "--entity", "Product", "--partition-by", "sku", "--format", "parquet",
        ])
        #expect(standardOutput.status == 64)
        // A folder without an extension names no format: the error names the one that partitions.
        let folder = try ferry.run([
            "export", "--store", "s.sqlite", "--entity", "Product", "--partition-by", "sku", "--output", "products",
        ])
        #expect(folder.status == 64)
        #expect(
            folder.standardError.contains(
                "Cannot infer the format of 'products' from its extension; pass --format parquet."),
            "\(folder.standardError)")
        let file = try ferry.run(["export", "--store", "s.sqlite", "--entity", "Product", "--output", "products"])
        #expect(file.standardError.contains("pass --format csv|tsv|ndjson|json|parquet."), "\(file.standardError)")
    }
}

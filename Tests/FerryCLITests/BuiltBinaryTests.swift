import Foundation
import FerryIO
import FerryTestSupport
import Testing

/// The built `ferry` binary run on SampleData/, as a user or a cron job runs it.
struct BuiltBinaryTests {
    let ferry = BuiltCommand(product: "ferry")

    func sample(_ name: String) -> String { TestSupport.sampleData(name).path }

    @Test("ferry --version prints the release, FerryVersion.current")
    func versionIsTheRelease() throws {
        let result = try ferry.run(["--version"])
        #expect(result.status == 0)
        #expect(result.standardOutput == "\(FerryVersion.current)\n")
    }

    @Test func countPrintsRecordsNotLines() throws {
        let products = try ferry.run(["count", sample("products.csv")])
        #expect(products.status == 0)
        #expect(products.standardOutput == "20\n")
        #expect(products.standardError == "")
        // categories.csv has a quoted field spanning two lines: 9 lines of data, 8 records.
        #expect(try ferry.run(["count", sample("categories.csv")]).standardOutput == "8\n")
    }

    @Test func countReadsStandardInputWithAnExplicitFormat() throws {
        let result = try ferry.run(["count", "-", "--format", "csv"], input: Data("a,b\n1,2\n3,\"x\ny\"\n".utf8))
        #expect(result.status == 0)
        #expect(result.standardOutput == "2\n")
    }

    @Test func messagesInALogFileStartWithTheirTime() throws {
        let result = try ferry.run(["count", "/nonexistent/products.csv"])
        #expect(
            result.standardError.wholeMatch(
                of: /[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z ferry: error: [^\n]*\n/) != nil,
            "\(result.standardError)")
    }

    @Test func aMissingInputExitsWith66() throws {
        let result = try ferry.run(["count", "/nonexistent/products.csv"])
        #expect(result.status == 66)
        #expect(result.standardOutput == "")
        #expect(result.standardError.contains("/nonexistent/products.csv: cannot open for reading"))
    }

    @Test func malformedInputExitsWith65AndSaysWhere() throws {
        try TestSupport.withTemporaryFolder { folder in
            let bad = try TestSupport.write(Array("a,b\n1,2\n3,x\"y\n".utf8), to: "bad.csv", in: folder)
            let count = try ferry.run(["count", bad])
            #expect(count.status == 65)
            #expect(count.standardError.contains("bad.csv:3:4: quote inside an unquoted field"))

            let output = folder.appendingPathComponent("out.ndjson").path
            let convert = try ferry.run(["convert", bad, output])
            #expect(convert.status == 65)
            #expect(!FileManager.default.fileExists(atPath: output), "a failed conversion leaves no output")
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            #expect(leftovers.sorted() == ["bad.csv"], "no temporary file is left behind")
        }
    }

    /// An import rejects a bad NDJSON line alone and reads on; counting validates the whole file and stops at it.
    @Test func countingFailsAtTheFirstMalformedNDJSONLine() throws {
        try TestSupport.withTemporaryFolder { folder in
            let text = "{\"a\":1}\n{\"a\":2,}\n{\"a\":3}\n[4]\n"
            let bad = try TestSupport.write(Array(text.utf8), to: "bad.ndjson", in: folder)
            let count = try ferry.run(["count", bad])
            #expect(count.status == 65)
            #expect(count.standardOutput == "")
            #expect(count.standardError.contains("bad.ndjson:2:8: expected a string key after ','"))
            #expect(!count.standardError.contains("bad.ndjson:4:"))
        }
    }

    @Test func lenientCountingRepairsAndSaysHowOften() throws {
        try TestSupport.withTemporaryFolder { folder in
            let bad = try TestSupport.write(Array("a,b\n1,2\n3,x\"y\n".utf8), to: "bad.csv", in: folder)
            let result = try ferry.run(["count", bad, "--lenient"])
            #expect(result.status == 0)
            #expect(result.standardOutput == "2\n")
            #expect(result.standardError.hasSuffix(" ferry: repaired 1 malformed quotes (--lenient)\n"))
            #expect(result.standardError.split(separator: "\n").count == 1)
        }
    }

    @Test func anUnknownExtensionExitsWith64() throws {
        let result = try ferry.run(["count", "notes.txt"])
        #expect(result.status == 64)
        #expect(result.standardError.contains("--format"))
    }

    @Test func csvToCSVRoundTripsTheSampleFilesByteForByte() throws {
        for name in ["products.csv", "categories.csv"] {
            let result = try ferry.run(["convert", sample(name), "-", "--to", "csv", "--quiet"])
            #expect(result.status == 0)
            let original = try String(contentsOfFile: sample(name), encoding: .utf8)
            #expect(result.standardOutput == original, "\(name)")
        }
    }

    @Test func csvToNDJSONWritesStringsAndNulls() throws {
        try TestSupport.withTemporaryFolder { folder in
            let output = folder.appendingPathComponent("products.ndjson").path
            let result = try ferry.run(["convert", sample("products.csv"), output])
            #expect(result.status == 0)
            #expect(result.standardError.contains("converted 20 records (csv → ndjson)"))
            let lines = try String(contentsOfFile: output, encoding: .utf8).split(separator: "\n")
            #expect(lines.count == 20)
            #expect(
                lines[5] == """
                    {"sku":"SKU-0006","name":"Pain au chocolat","category":"Pâtisserie","price":"2.10",\
                    "quantity":null,"weight":"0.08","active":"true","created_at":"2026-01-08T06:05:00Z",\
                    "description":null,"tags":"bakery","photo":null}
                    """)
            #expect(lines[4].contains(#""description":"Baked daily\nSold out by 9am""#))
        }
    }

    @Test func helpTeachesTheExitCodes() throws {
        let result = try ferry.run(["--help"])
        #expect(result.status == 0)
        #expect(result.standardOutput.contains("65  bad input data"))
        #expect(result.standardOutput.contains("convert"))
        #expect(result.standardOutput.contains("count"))
    }

    @Test func ndjsonToCSVKeepsKeysThatAppearOnlyInLaterRecords() throws {
        let result = try ferry.run(["convert", sample("product_updates.ndjson"), "-", "--to", "csv", "-q"])
        #expect(result.status == 0)
        let lines = result.standardOutput.split(separator: "\n")
        #expect(lines.first == "sku,price,quantity,active,tags,name,category")
        #expect(lines.count == 7)
        #expect(lines[4] == #"SKU-0014,41.50,,true,"[""tea"",""green"",""japan""]",,"#)
        #expect(lines[5] == #"SKU-0016,12.00,50,true,"[""coffee""]","Cold Brew Bottle ""1L""",Coffee"#)
    }

    @Test func ndjsonFromStandardInputRefusesAKeyTheFirstRecordLacks() throws {
        let input = Data("{\"a\":1}\n{\"a\":2,\"b\":3}\n".utf8)
        let result = try ferry.run(["convert", "-", "-", "--from", "ndjson", "--to", "csv"], input: input)
        #expect(result.status == 65)
        #expect(result.standardError.contains("<stdin>:2: field 'b' is not among the 1 columns"))
    }

    @Test func nestedJSONFlattensToDottedColumns() throws {
        let result = try ferry.run(["convert", sample("orders.json"), "-", "--to", "csv", "--flatten", "-q"])
        #expect(result.status == 0)
        let lines = result.standardOutput.split(separator: "\n")
        let header = "order_id,placed_at,customer.name,customer.email,customer.address.city,customer.address.country,"
        #expect(lines.first.map(String.init) == header + "items,total,paid")
        #expect(lines.last == #"ORD-1003,2026-02-02T16:40:00Z,"Ana ""Nani"" Souza",,São Paulo,BR,[],0,false"#)
    }

    @Test func csvToJSONArrayAndBackGivesTheSameRecords() throws {
        try TestSupport.withTemporaryFolder { folder in
            let json = folder.appendingPathComponent("categories.json").path
            #expect(try ferry.run(["convert", sample("categories.csv"), json, "-q"]).status == 0)
            let back = try ferry.run(["convert", json, "-", "--to", "csv", "-q"])
            #expect(back.status == 0)
            #expect(back.standardOutput == (try String(contentsOfFile: sample("categories.csv"), encoding: .utf8)))
            #expect(try ferry.run(["count", json]).standardOutput == "8\n")
        }
    }
}

import FerryTestSupport
import Foundation
import Testing

/// Reading rules that every command must apply alike, on the built binary: a key repeated within one JSON object,
/// and ragged CSV rows converted to JSON.
struct ReadingRuleTests {
    let ferry = BuiltCommand(product: "ferry")

    @Test func aKeyRepeatedInOneJSONObjectKeepsItsFirstValueInCountConvertAndImport() throws {
        try TestSupport.withTemporaryFolder { folder in
            // The second record repeats `a` after `b`: a column-order fast path must not take its second value.
            try Data((#"{"a":1,"b":2,"a":3}"# + "\n" + #"{"b":5,"a":4,"a":6}"# + "\n").utf8)
                .write(to: folder.appendingPathComponent("dup.ndjson"))
            let count = try ferry.run(["count", "dup.ndjson"], in: folder)
            #expect(count.status == 0 && count.standardOutput == "2\n", "\(count.standardError)")

            for (output, expected) in [
                ("dup.csv", "a,b\n1,2\n4,5\n"), ("dup.json", "[\n{\"a\":1,\"b\":2},\n{\"a\":4,\"b\":5}\n]\n"),
            ] {
                let convert = try ferry.run(["convert", "dup.ndjson", output], in: folder)
                #expect(convert.status == 0, "\(output): \(convert.standardError)")
                let text = try String(contentsOf: folder.appendingPathComponent(output), encoding: .utf8)
                #expect(text == expected, "\(output)")
            }

            let imported = try ferry.run(
                ["import", "dup.ndjson", "--store", "d.sqlite", "--entity", "D", "--key", "b", "--quiet"], in: folder)
            #expect(imported.status == 0, "\(imported.standardError)")
            let export = try ferry.run(
                ["export", "--store", "d.sqlite", "--entity", "D", "--sort", "b", "--output", "-"], in: folder)
            #expect(export.standardOutput == "a,b\n1,2\n4,5\n", "\(export.standardError)")
        }
    }

    @Test func onlyTheByteOrderMarkAtTheStartOfTheFileIsSkippedAndEveryOtherFEFFIsDataCSVToCSV() throws {
        try TestSupport.withTemporaryFolder { folder in
            let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
            // A second mark opening the header, one opening a row, a field that is only the character, a quoted one.
            let body =
                bom + Array("a,b\n".utf8) + bom + Array("x,".utf8) + bom + Array("\n\"".utf8) + bom
                + Array("\",y\n".utf8)
            try Data(bom + body).write(to: folder.appendingPathComponent("bom.csv"))
            let convert = try ferry.run(["convert", "bom.csv", "out.csv"], in: folder)
            #expect(convert.status == 0, "\(convert.standardError)")
            let written = try Data(contentsOf: folder.appendingPathComponent("out.csv"))
            // The header's mark is data, so it is quoted: at the start of the file it would be read as a mark.
            let header = Array("\"".utf8) + bom + Array("a\",b\n".utf8)
            #expect(
                Array(written) == header + bom + Array("x,".utf8) + bom + Array("\n".utf8) + bom + Array(",y\n".utf8))
            // Read back, it gives the same records: converting the output again changes nothing.
            #expect(try ferry.run(["convert", "out.csv", "again.csv"], in: folder).status == 0)
            #expect(try Data(contentsOf: folder.appendingPathComponent("again.csv")) == written)
        }
    }

    @Test func aColumnNamedWithAByteOrderMarkThatIsDataIsRefusedBeforeAStoreIsMadeWithoutItsModel() throws {
        try TestSupport.withTemporaryFolder { folder in
            let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
            try Data(bom + bom + Array("id,name\n1,Tea\n".utf8)).write(to: folder.appendingPathComponent("two.csv"))
            let load = try ferry.run(
                ["import", "two.csv", "--store", "two.sqlite", "--entity", "T", "--key", "name"], in: folder)
            #expect(load.status == 78, "\(load.standardError)")
            #expect(load.standardError.contains("U+FEFF"), "\(load.standardError)")
            #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("two.sqlite").path))
        }
    }

    @Test func aRaggedRowLongerThanTheHeaderConvertedToJSONFailsNamingItsInputLine() throws {
        try TestSupport.withTemporaryFolder { folder in
            try Data("a,b\n1,2\n3\n4,5,6\n".utf8).write(to: folder.appendingPathComponent("rag.csv"))
            let short = try ferry.run(
                ["convert", "--allow-ragged-rows", "rag.csv", "--to", "csv", "rag.out"], in: folder)
            #expect(short.status == 0, "a CSV output keeps every field: \(short.standardError)")

            let json = try ferry.run(["convert", "--allow-ragged-rows", "rag.csv", "rag.ndjson"], in: folder)
            #expect(json.status == 65)
            #expect(json.standardError.contains("rag.csv:4:"), "\(json.standardError)")
            #expect(json.standardError.contains("record 3"), "\(json.standardError)")
            #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("rag.ndjson").path))

            // Short rows alone convert, their missing fields null.
            try Data("a,b\n1,2\n3\n".utf8).write(to: folder.appendingPathComponent("short.csv"))
            let padded = try ferry.run(["convert", "--allow-ragged-rows", "short.csv", "short.ndjson"], in: folder)
            #expect(padded.status == 0, "\(padded.standardError)")
            let text = try String(contentsOf: folder.appendingPathComponent("short.ndjson"), encoding: .utf8)
            #expect(text == "{\"a\":\"1\",\"b\":\"2\"}\n{\"a\":\"3\",\"b\":null}\n")
        }
    }
}

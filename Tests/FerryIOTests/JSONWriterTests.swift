import Foundation
import Testing

@testable import FerryIO
import FerryTestSupport

/// ``JSONWriter`` in both layouts: exact output, escaping, nulls and missing columns, errors, the
/// temporary file, and round trips through ``JSONReader``.
@Suite("JSON writers")
struct JSONWriterTests {
    /// Writes the same two records with `writer`: every kind, escapes, non-ASCII, and a short record.
    func writeSampleRecords(with writer: any RecordWriter) throws {
        try writer.begin(columns: ["s", "n", "b", "nil", "arr", "missing"])
        try writer.writeField("a\"b\\c\n\t\u{1}\u{1F} é😀 </>")
        try withBytes("1.50") { try writer.writeField($0, kind: .number) }
        try withBytes("true") { try writer.writeField($0, kind: .boolean) }
        try writer.writeNull()
        try withBytes(#"[1,{"k":"v"}]"#) { try writer.writeField($0, kind: .json) }
        try writer.endRecord()
        try writer.writeField("x")
        try writer.endRecord()
    }

    static let firstObject =
        #"{"s":"a\"b\\c\n\t\u0001\u001f é😀 </>","n":1.50,"b":true,"nil":null,"arr":[1,{"k":"v"}],"missing":null}"#
    static let secondObject = #"{"s":"x","n":null,"b":null,"nil":null,"arr":null,"missing":null}"#

    @Test("NDJSON output is one compact object per line, strings escaped, other kinds as given, gaps as null")
    func ndjsonOutput() throws {
        try TestSupport.withTemporaryFolder { folder in
            let path = folder.appendingPathComponent("out.ndjson").path
            let writer = try JSONWriter(path: path, layout: .ndjson)
            try writeSampleRecords(with: writer)
            try writer.finish()
            #expect(writer.recordsWritten == 2)
            let text = String(decoding: try fileBytes(path), as: UTF8.self)
            #expect(text == Self.firstObject + "\n" + Self.secondObject + "\n")
        }
    }

    @Test("JSON array output is '[', the objects separated by ',' and line breaks, then ']'")
    func arrayOutput() throws {
        try TestSupport.withTemporaryFolder { folder in
            let path = folder.appendingPathComponent("out.json").path
            let writer = try JSONWriter(path: path, layout: .array)
            try writeSampleRecords(with: writer)
            try writer.finish()
            let text = String(decoding: try fileBytes(path), as: UTF8.self)
            #expect(text == "[\n" + Self.firstObject + ",\n" + Self.secondObject + "\n]\n")
            // Foundation agrees that it is JSON, and on the escaped string.
            let parsed = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]]
            #expect(parsed?.first?["s"] as? String == "a\"b\\c\n\t\u{1}\u{1F} é😀 </>")
        }
    }

    @Test("An output with no records is an empty file for NDJSON and [] for a JSON array")
    func emptyOutputs() throws {
        try TestSupport.withTemporaryFolder { folder in
            let ndjson = folder.appendingPathComponent("empty.ndjson").path
            let array = folder.appendingPathComponent("empty.json").path
            let ndjsonWriter = try JSONWriter(path: ndjson, layout: .ndjson)
            try ndjsonWriter.begin(columns: ["a"])
            try ndjsonWriter.finish()
            let arrayWriter = try JSONWriter(path: array, layout: .array)
            try arrayWriter.begin(columns: ["a"])
            try arrayWriter.finish()
            #expect(try fileBytes(ndjson).isEmpty)
            #expect(try fileBytes(array) == Array("[]\n".utf8))
            #expect(try readJSONAtEverySize(path: array, layout: .automatic) == JSONReadResult(records: [], error: nil))
        }
    }

    @Test("Keys are escaped, and a record with no columns is {}")
    func keysAndEmptyObjects() throws {
        try TestSupport.withTemporaryFolder { folder in
            let path = folder.appendingPathComponent("keys.ndjson").path
            let writer = try JSONWriter(path: path, layout: .ndjson)
            try writer.begin(columns: ["we\"ird\\key", "tab\there", "é"])
            try writer.writeField("1")
            try writer.endRecord()
            try writer.finish()
            let expected = #"{"we\"ird\\key":"1","tab\there":null,"é":null}"# + "\n"
            #expect(String(decoding: try fileBytes(path), as: UTF8.self) == expected)

            let emptyPath = folder.appendingPathComponent("empty-objects.json").path
            let empty = try JSONWriter(path: emptyPath, layout: .array)
            try empty.begin(columns: [])
            try empty.endRecord()
            try empty.endRecord()
            try empty.finish()
            #expect(String(decoding: try fileBytes(emptyPath), as: UTF8.self) == "[\n{},\n{}\n]\n")
        }
    }

    @Test("Every control character is escaped and reads back as itself")
    func controlCharactersRoundTrip() throws {
        try TestSupport.withTemporaryFolder { folder in
            let text = String(decoding: (0..<128).map { UInt8($0) }, as: UTF8.self) + "Zürich 東京 😀"
            let path = folder.appendingPathComponent("controls.ndjson").path
            let writer = try JSONWriter(path: path, layout: .ndjson)
            try writer.begin(columns: ["t"])
            try writer.writeField(text)
            try writer.endRecord()
            try writer.finish()
            let written = try fileBytes(path)
            #expect(!written.dropLast().contains { $0 < 0x20 }, "only the final line break is a raw control byte")
            let result = try readJSONAtEverySize(path: path, layout: .ndjson)
            #expect(result.fields == [[.string("t", text)]])
        }
    }

    @Test("More fields than columns fail with unknownColumn naming the record")
    func tooManyFields() throws {
        try TestSupport.withTemporaryFolder { folder in
            for makeWriter in writerFactories {
                let path = folder.appendingPathComponent("too-many.json").path
                let writer = try makeWriter(path)
                try writer.begin(columns: ["a"])
                try writer.writeField("1")
                try writer.endRecord()
                try writer.writeField("2")
                do {
                    try writer.writeField("3")
                    Issue.record("a second field was written for one column")
                } catch let error as FerryIOError {
                    #expect(error.code == .unknownColumn)
                    #expect(error.record == 2)
                    #expect(error.file == path)
                }
            }
        }
    }

    @Test("A string that is not UTF-8 fails with invalidUTF8 instead of writing broken JSON")
    func invalidUTF8String() throws {
        try TestSupport.withTemporaryFolder { folder in
            let writer = try JSONWriter(path: folder.appendingPathComponent("bad.ndjson").path, layout: .ndjson)
            try writer.begin(columns: ["s"])
            let bytes: [UInt8] = [0x61, 0xC3, 0x28]
            do {
                try bytes.withUnsafeBytes { try writer.writeField($0, kind: .string) }
                Issue.record("invalid UTF-8 was written")
            } catch let error as FerryIOError {
                #expect(error.code == .invalidUTF8)
                #expect(error.record == 1)
            }
        }
    }

    @Test("The output file does not exist until finish(), and a writer dropped unfinished leaves nothing behind")
    func outputAppearsOnlyWhenFinished() throws {
        try TestSupport.withTemporaryFolder { folder in
            for (makeWriter, layout) in zip(writerFactories, [JSONReader.Layout.ndjson, .array]) {
                let path = folder.appendingPathComponent("out.json").path
                try? FileManager.default.removeItem(atPath: path)
                let writer = try makeWriter(path)
                try writer.begin(columns: ["a"])
                for index in 0..<20_000 {
                    try writer.writeField("value \(index)")
                    try writer.endRecord()
                }
                #expect(!FileManager.default.fileExists(atPath: path))
                try writer.finish()
                #expect(FileManager.default.fileExists(atPath: path))
                let result = try readJSON(path: path, layout: layout, readBufferSize: 64 * 1024)
                #expect(result.error == nil)
                #expect(result.records.count == 20_000)
                #expect(result.records.last?.fields == [.string("a", "value 19999")])
            }
            do {
                let abandoned = folder.appendingPathComponent("abandoned.ndjson").path
                let writer = try JSONWriter(path: abandoned, layout: .ndjson)
                try writer.begin(columns: ["a"])
                try writer.writeField("x")
                try writer.endRecord()
                #expect(!FileManager.default.fileExists(atPath: abandoned))
            }
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter {
                $0.contains("ferry-tmp")
            }
            #expect(leftovers.isEmpty)
        }
    }

    @Test("orders.json written as NDJSON and as a JSON array reads back as the same records, nested or flattened")
    func ordersRoundTrip() throws {
        for options in JSONReaderSplitTests.flattening {
            let source = TestSupport.sampleData("orders.json").path
            let original = try readJSON(path: source, layout: .array, options: options, readBufferSize: 4096)
            #expect(original.error == nil)
            let columns = try #require(original.records.first).fields.map(\.name)
            try TestSupport.withTemporaryFolder { folder in
                for (name, makeWriter) in zip(["orders.ndjson", "orders.json"], writerFactories) {
                    let path = folder.appendingPathComponent(name).path
                    try copyRecords(
                        from: source, layout: .array, options: options, to: makeWriter(path), columns: columns)
                    let layout: JSONReader.Layout = name.hasSuffix(".ndjson") ? .ndjson : .array
                    let copy = try readJSONAtEverySize(path: path, layout: layout)
                    #expect(copy.error == nil)
                    #expect(copy.fields == original.fields, "\(name)")
                }
            }
        }
    }

    @Test("product_updates.ndjson, whose records differ in keys, reads back with null for the keys a record lacked")
    func productUpdatesRoundTrip() throws {
        let source = TestSupport.sampleData("product_updates.ndjson").path
        let original = try readJSON(path: source, layout: .ndjson, readBufferSize: 4096)
        var columns: [String] = []
        for field in original.records.flatMap(\.fields) where !columns.contains(field.name) {
            columns.append(field.name)
        }
        #expect(columns == ["sku", "price", "quantity", "active", "tags", "name", "category"])
        try TestSupport.withTemporaryFolder { folder in
            let path = folder.appendingPathComponent("updates.ndjson").path
            let writer = try JSONWriter(path: path, layout: .ndjson)
            try writer.begin(columns: columns)
            let reader = try JSONReader(path: source, layout: .ndjson)
            while let record = try reader.next() {
                for column in columns {
                    if let field = record.field(named: column) {
                        try writer.writeField(field)
                    } else {
                        try writer.writeNull()
                    }
                }
                try writer.endRecord()
            }
            try writer.finish()
            let copy = try readJSONAtEverySize(path: path, layout: .ndjson)
            let expected = original.fields.map { fields in
                columns.map { column in fields.first { $0.name == column } ?? .null(column) }
            }
            #expect(copy.fields == expected)
        }
    }
}

/// Makers of each JSON writer: NDJSON first, then the JSON array.
private let writerFactories: [@Sendable (String) throws -> any RecordWriter] = [
    { try JSONWriter(path: $0, layout: .ndjson) }, { try JSONWriter(path: $0, layout: .array) },
]

/// Copies every record of `source` to `writer` under `columns`, and finishes it.
private func copyRecords(
    from source: String, layout: JSONReader.Layout, options: JSONReaderOptions, to writer: any RecordWriter,
    columns: [String]
) throws {
    let reader = try JSONReader(path: source, layout: layout, options: options)
    try writer.begin(columns: columns)
    while let record = try reader.next() { try writer.write(record) }
    try writer.finish()
}

/// Calls `body` with the UTF-8 bytes of `text`.
private func withBytes(_ text: String, _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
    var text = text
    try text.withUTF8 { try body(UnsafeRawBufferPointer($0)) }
}

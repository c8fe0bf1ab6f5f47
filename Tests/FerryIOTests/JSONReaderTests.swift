import Foundation
import Testing

@testable import FerryIO
import FerryTestSupport

/// ``JSONReader``'s layouts, field kinds, flattening and positions. Every input is read at every size in
/// ``jsonReadBufferSizes`` and the reads must agree (see ``readJSON(_:layout:options:sourceLocation:)``).
@Suite("JSONReader")
struct JSONReaderTests {
    @Test("NDJSON fields keep their JSON kinds: strings, exact numbers, booleans, null, and JSON text for the rest")
    func ndjsonFieldKinds() throws {
        let first = #"{"sku":"A-1","price":1.50,"active":true,"note":null,"tags":["x", "y"],"dims":{"w": 2, "h": [ ]}}"#
        let second = #"{"sku":"B-2","active":false}"#
        let result = try readJSON(first + "\n" + second + "\n", layout: .ndjson)
        #expect(result.error == nil)
        let expected: [[JSONFieldSnapshot]] = [
            [
                .string("sku", "A-1"), .number("price", "1.50"), .boolean("active", true), .null("note"),
                .json("tags", #"["x","y"]"#), .json("dims", #"{"w":2,"h":[]}"#),
            ],
            [.string("sku", "B-2"), .boolean("active", false)],
        ]
        #expect(result.fields == expected)
        #expect(
            result.records.map(\.position) == [
                RecordPosition(record: 1, line: 1, byteOffset: 0),
                RecordPosition(record: 2, line: 2, byteOffset: first.utf8.count + 1),
            ])
    }

    @Test("NDJSON skips a byte-order mark and blank lines, takes CRLF, and needs no final line break")
    func ndjsonLinesAndPositions() throws {
        // Bytes: BOM 0-2, CRLF 3-4, record at 5 (line 2), CRLF CRLF, "  \t" 16-18, record at 19 (line 4), LF LF,
        // record at 28 (line 6) with no line break after it.
        let text = "\u{FEFF}\r\n" + #"{"a":1}"# + "\r\n\r\n  \t" + #"{"a":2}"# + "\n\n" + #"{"a":3}"#
        let result = try readJSON(text, layout: .ndjson)
        #expect(result.error == nil)
        #expect(result.fields == [[.number("a", "1")], [.number("a", "2")], [.number("a", "3")]])
        #expect(
            result.records.map(\.position) == [
                RecordPosition(record: 1, line: 2, byteOffset: 5),
                RecordPosition(record: 2, line: 4, byteOffset: 19),
                RecordPosition(record: 3, line: 6, byteOffset: 28),
            ])
    }

    @Test("Empty inputs give no records: an empty NDJSON file, blank lines, [] and {}")
    func emptyInputs() throws {
        #expect(try readJSON("", layout: .ndjson) == JSONReadResult(records: [], error: nil))
        #expect(try readJSON("\n\r\n  \n", layout: .ndjson) == JSONReadResult(records: [], error: nil))
        #expect(try readJSON(" [ ] \n", layout: .array) == JSONReadResult(records: [], error: nil))
        #expect(try readJSON("[]", layout: .automatic) == JSONReadResult(records: [], error: nil))
        #expect(
            try readJSON("{ }\n", layout: .objectMembers(keyField: "id")) == JSONReadResult(records: [], error: nil))
        #expect(try readJSON("{}", layout: .automatic) == JSONReadResult(records: [], error: nil))
        #expect(try readJSON(#"{}"# + "\n" + #"{ }"#, layout: .ndjson).fields == [[], []])
    }

    @Test("An array's elements are records, positioned at their '{' across lines")
    func arrayLayout() throws {
        // Bytes: '[' 0, LF 1, two spaces, first '{' at 4 (line 2); it ends at 12, ',' 13, LF 14, two spaces,
        // second '{' at 17 (line 3).
        let text = "[\n  {\"id\": 1},\n  {\n    \"id\": 2\n  }\n]\n"
        for layout in [JSONReader.Layout.array, .automatic] {
            let result = try readJSON(text, layout: layout)
            #expect(result.error == nil)
            #expect(result.fields == [[.number("id", "1")], [.number("id", "2")]])
            #expect(
                result.records.map(\.position) == [
                    RecordPosition(record: 1, line: 2, byteOffset: 4),
                    RecordPosition(record: 2, line: 3, byteOffset: 17),
                ])
        }
    }

    @Test("An object's members are records whose first field is the member's name, under the key field's name")
    func objectMembersLayout() throws {
        // Bytes: the first value's '{' is at 7; the second member's name "k\u00e9" runs 17-25, its '{' is at 28;
        // the third's at 37.
        let text = #"{"k1": {"a": 1}, "k\u00e9": {}, "k3":{"b":[1, 2]}}"#
        let expectedPositions = [
            RecordPosition(record: 1, line: 1, byteOffset: 7),
            RecordPosition(record: 2, line: 1, byteOffset: 28),
            RecordPosition(record: 3, line: 1, byteOffset: 37),
        ]
        let named = try readJSON(text, layout: .objectMembers(keyField: "id"))
        #expect(named.error == nil)
        #expect(
            named.fields == [
                [.string("id", "k1"), .number("a", "1")], [.string("id", "ké")],
                [.string("id", "k3"), .json("b", "[1,2]")],
            ])
        #expect(named.records.map(\.position) == expectedPositions)
        let automatic = try readJSON(text, layout: .automatic)
        #expect(automatic.fields.map { $0.first?.name } == ["_key", "_key", "_key"])
        #expect(automatic.fields.map { $0.first?.bytes } == [Array("k1".utf8), Array("ké".utf8), Array("k3".utf8)])
        #expect(automatic.records.map(\.position) == expectedPositions)
    }

    @Test("Nested objects flatten to dotted key paths on request; arrays stay JSON text")
    func flatteningOrders() throws {
        let path = TestSupport.sampleData("orders.json").path
        let flat = try readJSONAtEverySize(
            path: path, layout: .automatic, options: JSONReaderOptions(flattensNestedObjects: true))
        #expect(flat.error == nil)
        let expected: [[JSONFieldSnapshot]] = [
            [
                .string("order_id", "ORD-1001"), .string("placed_at", "2026-02-01T09:15:00Z"),
                .string("customer.name", "Zoë Martin"), .string("customer.email", "zoe@example.com"),
                .string("customer.address.city", "Lyon"), .string("customer.address.country", "FR"),
                .json("items", #"[{"sku":"SKU-0001","quantity":2},{"sku":"SKU-0005","quantity":6}]"#),
                .number("total", "72.60"), .boolean("paid", true),
            ],
            [
                .string("order_id", "ORD-1002"), .string("placed_at", "2026-02-01T11:02:00Z"),
                .string("customer.name", "Kenji Sato"), .string("customer.email", "kenji@example.com"),
                .string("customer.address.city", "Kyōto"), .string("customer.address.country", "JP"),
                .json("items", #"[{"sku":"SKU-0014","quantity":1}]"#), .number("total", "39.00"),
                .boolean("paid", false),
            ],
            [
                .string("order_id", "ORD-1003"), .string("placed_at", "2026-02-02T16:40:00Z"),
                .string("customer.name", #"Ana "Nani" Souza"#), .null("customer.email"),
                .string("customer.address.city", "São Paulo"), .string("customer.address.country", "BR"),
                .json("items", "[]"), .number("total", "0"), .boolean("paid", false),
            ],
        ]
        #expect(flat.fields == expected)
        // Each record starts at the '{' two spaces into lines 2, 10 and 18.
        let bytes = try fileBytes(path)
        #expect(flat.records.map(\.position.line) == [2, 10, 18])
        for record in flat.records {
            #expect(bytes[record.position.byteOffset] == UInt8(ascii: "{"))
            #expect(bytes[record.position.byteOffset - 3] == 0x0A)
        }

        let nested = try readJSONAtEverySize(path: path, layout: .array)
        #expect(nested.error == nil)
        #expect(nested.records.map(\.position) == flat.records.map(\.position))
        #expect(
            nested.fields.map { $0.map(\.name) }.first == [
                "order_id", "placed_at", "customer", "items", "total", "paid",
            ])
        #expect(
            nested.fields.first?[2]
                == .json(
                    "customer",
                    #"{"name":"Zoë Martin","email":"zoe@example.com","address":{"city":"Lyon","country":"FR"}}"#))
    }

    @Test("Flattening keeps an empty nested object as {} under its path, and joins unescaped keys")
    func flatteningEdgeCases() throws {
        let text = #"{"a":{},"b":{"c":{"d":1},"e":{ }},"f\"g":{"h":true},"i":[{"j":{}}],"k":2}"# + "\n"
        let result = try readJSON(text, layout: .ndjson, options: JSONReaderOptions(flattensNestedObjects: true))
        #expect(result.error == nil)
        let expected: [[JSONFieldSnapshot]] = [
            [
                .json("a", "{}"), .number("b.c.d", "1"), .json("b.e", "{}"), .boolean(#"f"g.h"#, true),
                .json("i", #"[{"j":{}}]"#), .number("k", "2"),
            ]
        ]
        #expect(result.fields == expected)
    }

    @Test("Strings are fully unescaped, surrogate pairs included; numbers keep their exact text")
    func stringsAndNumbers() throws {
        let text =
            #"{"s":"tab\there \"q\" \\ \/ \u00e9 \ud83d\ude00 \u0000 \b\f\r\n end","raw":"Zoë 東京 😀","#
            + #""n1":1.0,"n2":-0,"n3":1E400,"n4":12345678901234567890123,"n5":-0.0e-0}"#
        let result = try readJSON(text, layout: .ndjson)
        #expect(result.error == nil)
        let expected: [[JSONFieldSnapshot]] = [
            [
                .string("s", "tab\there \"q\" \\ / é 😀 \u{0} \u{8}\u{C}\r\n end"),
                .string("raw", "Zoë 東京 😀"),
                .number("n1", "1.0"), .number("n2", "-0"), .number("n3", "1E400"),
                .number("n4", "12345678901234567890123"), .number("n5", "-0.0e-0"),
            ]
        ]
        #expect(result.fields == expected)
    }

    @Test("The first and last code points of each UTF-8 length are accepted, raw and escaped")
    func utf8Boundaries() throws {
        let boundaries = [
            "\u{7F}", "\u{80}", "\u{7FF}", "\u{800}", "\u{D7FF}", "\u{E000}", "\u{FFFF}", "\u{10000}", "\u{10FFFF}",
        ]
        let raw = boundaries.joined(separator: "|")
        let escaped = #"\u007f|\u0080|\u07FF|\u0800|\ud7ff|\uE000|\uffff|\ud800\udc00|\uDBFF\uDFFF"#
        let result = try readJSON(#"{"raw":""# + raw + #"","escaped":""# + escaped + #""}"#, layout: .ndjson)
        #expect(result.error == nil)
        #expect(result.fields == [[.string("raw", raw), .string("escaped", raw)]])
    }

    @Test("Fields are found by name without a column list, and the reader counts records and bytes")
    func fieldAccess() throws {
        try TestSupport.withTemporaryFolder { folder in
            let text = #"{"sku":"A","qty":3}"# + "\n" + #"{"qty":4,"sku":"B"}"# + "\n"
            let path = try TestSupport.write(Array(text.utf8), to: "in.ndjson", in: folder)
            let reader = try JSONReader(path: path, layout: .ndjson)
            #expect(reader.columnNames == nil)
            #expect(reader.path == path)
            var skus: [String] = []
            while let record = try reader.next() {
                skus.append(try #require(record.field(named: "sku")).string)
                #expect(record.field(named: "qty")?.kind == .number)
                #expect(record.field(named: "missing") == nil)
                #expect(record.names.count == 2)
            }
            #expect(skus == ["A", "B"])
            #expect(reader.recordsRead == 2)
            #expect(reader.bytesRead == text.utf8.count)
        }
    }

    @Test("A value far larger than the read buffer crosses reads anywhere and comes out whole")
    func largeValueAcrossReads() throws {
        let piece = #"é\n😀\"x\u00e9"#
        let text = #"[{"big":""# + String(repeating: piece, count: 1500) + #"","n":1}]"#
        let result = try readJSON(text, layout: .array)
        #expect(result.error == nil)
        let expected: [[JSONFieldSnapshot]] = [
            [
                .string("big", String(repeating: "é\n😀\"xé", count: 1500)), .number("n", "1"),
            ]
        ]
        #expect(result.fields == expected)
    }

    @Test("Memory stays flat: the window holds one record and one read however long the file")
    func windowStaysBounded() throws {
        try TestSupport.withTemporaryFolder { folder in
            let line = #"{"sku":"SKU-00000001","name":"Café \"Zürich\"","price":12.50,"tags":["a","b"]}"# + "\n"
            let ndjson = String(repeating: line, count: 30_000)
            let array = "[\n" + String(repeating: line.dropLast() + ",\n", count: 29_999) + line + "]\n"
            for (text, layout) in [(ndjson, JSONReader.Layout.ndjson), (array, .array)] {
                let path = try TestSupport.write(Array(text.utf8), to: "big.json", in: folder)
                let reader = try JSONReader(path: path, layout: layout, readBufferSize: 4096)
                var count = 0
                while try reader.next() != nil { count += 1 }
                #expect(count == 30_000)
                #expect(reader.bytesRead == text.utf8.count)
                #expect(reader.windowCapacity <= 64 * 1024, "the window grew to \(reader.windowCapacity) bytes")
            }
        }
    }

    @Test("Duplicate keys are kept as separate fields in order, and field(named:) finds the first")
    func duplicateKeys() throws {
        try TestSupport.withTemporaryFolder { folder in
            let path = try TestSupport.write(Array(#"{"a":1,"b":2,"a":3}"#.utf8), to: "d.ndjson", in: folder)
            let reader = try JSONReader(path: path, layout: .ndjson)
            let record = try #require(try reader.next())
            #expect(record.names == ["a", "b", "a"])
            #expect(record.field(named: "a")?.string == "1")
        }
    }
}

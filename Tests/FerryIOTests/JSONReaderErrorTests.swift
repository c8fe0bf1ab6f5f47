import Foundation
import Testing

@testable import FerryIO
import FerryTestSupport

/// Every way ``JSONReader`` refuses input: the code, the line and column (bytes, from 1), the byte offset, the record
/// when known, and a message that says what was expected. Each case is read at every read-buffer size and must fail
/// the same way at each.
@Suite("JSONReader errors")
struct JSONReaderErrorTests {
    /// One malformed input and where it must fail.
    struct Case: CustomTestStringConvertible, Sendable {
        var label: String
        var bytes: [UInt8]
        var layout: JSONReader.Layout
        var code: FerryIOError.Code
        var line: Int
        var column: Int
        var record: Int?
        /// Words the message must contain.
        var expectation: String
        /// Records read before the error.
        var recordsBefore = 0

        init(
            _ label: String, _ text: String, _ code: FerryIOError.Code, layout: JSONReader.Layout = .ndjson,
            line: Int = 1, column: Int, record: Int?, expecting expectation: String, recordsBefore: Int = 0
        ) {
            self.init(
                label, Array(text.utf8), code, layout: layout, line: line, column: column, record: record,
                expecting: expectation, recordsBefore: recordsBefore)
        }

        init(
            _ label: String, _ bytes: [UInt8], _ code: FerryIOError.Code, layout: JSONReader.Layout = .ndjson,
            line: Int = 1, column: Int, record: Int?, expecting expectation: String, recordsBefore: Int = 0
        ) {
            self.label = label
            self.bytes = bytes
            self.layout = layout
            self.code = code
            self.line = line
            self.column = column
            self.record = record
            self.expectation = expectation
            self.recordsBefore = recordsBefore
        }

        var testDescription: String { label }

        /// Whether the reader skips the bad record and goes on: in NDJSON, unless the bytes are not text.
        var isRecoverable: Bool {
            layout == .ndjson && ![.nulByte, .invalidUTF8, .unsupportedEncoding].contains(code)
        }
    }

    /// Syntax, with the record's number when the error is inside one.
    static let syntaxCases: [Case] = [
        Case(
            "a missing value", "{\"a\":1}\n{\"a\":}\n", .invalidJSON, line: 2, column: 6, record: 2,
            expecting: "expected a value", recordsBefore: 1),
        Case(
            "a missing comma between members", #"{"a":1 "b":2}"#, .invalidJSON, column: 8, record: 1,
            expecting: "expected ',' or '}' after an object member"),
        Case("a missing colon", #"{"a" 1}"#, .invalidJSON, column: 6, record: 1, expecting: "expected ':'"),
        Case(
            "a trailing comma in a record", #"{"a":1,}"#, .invalidJSON, column: 8, record: 1,
            expecting: "expected a string key after ','"),
        Case("an unquoted key", "{a:1}", .invalidJSON, column: 2, record: 1, expecting: "expected a string key or '}'"),
        Case("a bad literal", #"{"a":tru}"#, .invalidJSON, column: 9, record: 1, expecting: "true, false or null"),
        Case(
            "a bad separator in an array", "[{\"a\":1}\n {\"b\":2}]", .invalidJSON, layout: .array, line: 2, column: 2,
            record: nil, expecting: "expected ',' or ']' after a record", recordsBefore: 1),
        Case(
            "a bad separator between members", #"{"x":{} "y":{}}"#, .invalidJSON, layout: .objectMembers(keyField: "k"),
            column: 9, record: nil, expecting: "expected ',' or '}' after a record", recordsBefore: 1),
    ]

    static let numberCases: [Case] = [
        Case("a leading zero", #"{"n":012}"#, .invalidJSON, column: 6, record: 1, expecting: "leading zero"),
        Case(
            "a number ending in a point", #"{"n":1.}"#, .invalidJSON, column: 8, record: 1,
            expecting: "expected a digit after the decimal point"),
        Case(
            "a number starting with a point", #"{"n":.5}"#, .invalidJSON, column: 6, record: 1,
            expecting: "expected a value"),
        Case("a plus sign", #"{"n":+1}"#, .invalidJSON, column: 6, record: 1, expecting: "expected a value"),
        Case("a lone minus", #"{"n":-}"#, .invalidJSON, column: 7, record: 1, expecting: "expected a digit"),
        Case(
            "an empty exponent", #"{"n":1e}"#, .invalidJSON, column: 8, record: 1,
            expecting: "expected a digit in the exponent"),
        Case(
            "a hexadecimal number", #"{"n":0x1}"#, .invalidJSON, column: 7, record: 1,
            expecting: "expected ',' or '}' after an object member"),
    ]

    static let stringCases: [Case] = [
        Case("a bad escape", #"{"s":"a\x"}"#, .invalidJSON, column: 8, record: 1, expecting: "invalid escape"),
        Case(
            "a short \\u escape", #"{"s":"\u12G4"}"#, .invalidJSON, column: 7, record: 1,
            expecting: "four hex digits"),
        Case(
            "a lone high surrogate", #"{"s":"\ud800x"}"#, .invalidJSON, column: 7, record: 1,
            expecting: "lone high surrogate"),
        Case(
            "a high surrogate followed by a non-surrogate", #"{"s":"\ud800\u0041"}"#, .invalidJSON, column: 7,
            record: 1, expecting: "lone high surrogate"),
        Case(
            "a lone low surrogate", #"{"k\udc00":1}"#, .invalidJSON, column: 4, record: 1,
            expecting: "lone low surrogate"),
        Case(
            "a raw tab in a string", "{\"s\":\"a\tb\"}", .invalidJSON, column: 8, record: 1,
            expecting: "control character"),
        Case(
            "a raw line break in a string", "{\"s\":\"a\nb\"}", .invalidJSON, column: 8, record: 1,
            expecting: "control character"),
        Case(
            "invalid UTF-8 in a string", Array(#"{"s":"a"#.utf8) + [0xC3, 0x28] + Array(#""}"#.utf8),
            .invalidUTF8, column: 8, record: 1, expecting: "invalid UTF-8"),
        Case(
            "an encoded surrogate", Array(#"{"s":""#.utf8) + [0xED, 0xA0, 0x80] + Array(#""}"#.utf8),
            .invalidUTF8, column: 7, record: 1, expecting: "invalid UTF-8"),
        Case(
            "an overlong encoding", Array(#"{"s":""#.utf8) + [0xC0, 0xAF] + Array(#""}"#.utf8), .invalidUTF8,
            column: 7, record: 1, expecting: "invalid UTF-8"),
        Case(
            "a three-byte overlong encoding", Array(#"{"s":""#.utf8) + [0xE0, 0x80, 0xAF] + Array(#""}"#.utf8),
            .invalidUTF8, column: 7, record: 1, expecting: "invalid UTF-8"),
        Case(
            "a four-byte overlong encoding", Array(#"{"s":""#.utf8) + [0xF0, 0x80, 0x80, 0xAF] + Array(#""}"#.utf8),
            .invalidUTF8, column: 7, record: 1, expecting: "invalid UTF-8"),
        Case(
            "a code point past U+10FFFF", Array(#"{"s":""#.utf8) + [0xF4, 0x90, 0x80, 0x80] + Array(#""}"#.utf8),
            .invalidUTF8, column: 7, record: 1, expecting: "invalid UTF-8"),
        Case(
            "a lone continuation byte", Array(#"{"s":"x"#.utf8) + [0x80] + Array(#""}"#.utf8), .invalidUTF8,
            column: 8, record: 1, expecting: "invalid UTF-8"),
        Case(
            "a sequence cut by the end of the input", Array(#"{"s":""#.utf8) + [0xE6, 0x9D], .unexpectedEnd,
            column: 9, record: 1, expecting: "the rest of a UTF-8 sequence"),
        Case(
            "invalid UTF-8 outside a string", Array(#"{"a":1,"#.utf8) + [0xFF] + Array("}".utf8), .invalidUTF8,
            column: 8, record: 1, expecting: "invalid UTF-8"),
        Case(
            "a NUL byte in a string", Array(#"{"s":"a"#.utf8) + [0] + Array(#""}"#.utf8), .nulByte, column: 8,
            record: 1, expecting: "NUL"),
        Case(
            "a NUL byte between records", Array("{}\n".utf8) + [0], .nulByte, line: 2, column: 1, record: 2,
            expecting: "NUL", recordsBefore: 1),
    ]

    /// What follows a record or the document.
    static let trailingCases: [Case] = [
        Case(
            "garbage after the array", #"[{"a":1}] x"#, .trailingGarbage, layout: .array, column: 11, record: nil,
            expecting: "expected the end of the input", recordsBefore: 1),
        Case(
            "a second array", "[]\n[]", .trailingGarbage, layout: .automatic, line: 2, column: 1, record: nil,
            expecting: "expected the end of the input"),
        Case(
            "two objects on one NDJSON line", #"{"a":1} {"a":2}"#, .trailingGarbage, column: 9, record: 2,
            expecting: "expected a line break after a record", recordsBefore: 1),
        Case(
            "an NDJSON record over two lines", "{\"a\":1,\n\"b\":2}\n", .invalidJSON, column: 1, record: 1,
            expecting: "one JSON object per line"),
    ]

    /// Records that are not objects.
    static let notObjectCases: [Case] = [
        Case(
            "an array line in NDJSON", "{}\n[1]\n", .notAnObject, line: 2, column: 1, record: 2,
            expecting: "expected an object as the record, found an array", recordsBefore: 1),
        Case(
            "a number element", #"[{"a":1}, 2]"#, .notAnObject, layout: .array, column: 11, record: 2,
            expecting: "found a number", recordsBefore: 1),
        Case(
            "a string member value", #"{"k": "v"}"#, .notAnObject, layout: .objectMembers(keyField: "id"), column: 7,
            record: 1, expecting: "found a string"),
        Case(
            "an object where an array is expected", #"{"k": {}}"#, .notAnObject, layout: .array, column: 1,
            record: nil, expecting: "expected an array of records, found an object"),
        Case(
            "a scalar document", "  42", .notAnObject, layout: .automatic, column: 3, record: nil,
            expecting: "found a number"),
    ]

    static let deepRecord: String =
        "{\"a\":" + String(repeating: "[", count: 64) + String(repeating: "]", count: 64) + "}"
    static let deepArray: String = "[{\"a\":" + String(repeating: "[", count: 63)

    /// Limits and the end of the input.
    static let endCases: [Case] = [
        Case(
            "nesting past the limit", deepRecord, .depthExceeded, column: 69, record: 1,
            expecting: "nesting deeper than the limit of 64"),
        Case(
            "an array of records nesting past the limit", deepArray, .depthExceeded, layout: .array, column: 69,
            record: 1,
            expecting: "limit of 64"),
        Case(
            "a truncated array", "[{\"a\":1},\n", .unexpectedEnd, layout: .array, line: 2, column: 1, record: nil,
            expecting: "expected a record after ','", recordsBefore: 1),
        Case(
            "a truncated string", "{\"a\":\"abc", .unexpectedEnd, column: 10, record: 1,
            expecting: "expected '\"' to close a string"),
        Case(
            "a truncated record", "{\"a\":1", .unexpectedEnd, column: 7, record: 1,
            expecting: "expected ',' or '}' after an object member"),
        Case("a truncated literal", "{\"a\":nu", .unexpectedEnd, column: 8, record: 1, expecting: "null"),
        Case(
            "an empty array file", "", .unexpectedEnd, layout: .array, column: 1, record: nil,
            expecting: "expected an array of records"),
        Case(
            "a UTF-16 byte-order mark", [0xFF, 0xFE, 0x7B, 0x00, 0x7D, 0x00], .unsupportedEncoding, column: 1,
            record: nil, expecting: "UTF-16"),
    ]

    static let cases: [Case] = syntaxCases + numberCases + stringCases + trailingCases + notObjectCases + endCases

    @Test("Malformed input fails with its code, position, record and what was expected", arguments: cases)
    func malformedInput(_ testCase: Case) throws {
        let result = try readJSON(bytes: testCase.bytes, layout: testCase.layout)
        let error = try #require(result.error, "\(testCase.label) was read without an error")
        #expect(error.code == testCase.code)
        #expect(error.line == testCase.line)
        #expect(error.column == testCase.column)
        #expect(error.record == testCase.record)
        #expect(error.message.contains(testCase.expectation), "message: \(error.message)")
        #expect(error.isRecoverable == testCase.isRecoverable)
        #expect(result.records.count == testCase.recordsBefore)
        // The byte offset and the column agree: on line 1 the column is the offset plus one.
        if testCase.line == 1 { #expect(error.byteOffset == testCase.column - 1) }
    }

    @Test("A record over the size limit fails with fieldTooLarge at its start, and one at the limit is read")
    func sizeLimits() throws {
        let options = JSONReaderOptions(maxValueBytes: 120)
        // `{"s":"…"}` is 8 bytes around its x's: 112 x's make 120 bytes, 113 make 121.
        let atLimit = "{\"s\":\"" + String(repeating: "x", count: 112) + "\"}\n"
        let overLimit = "{\"s\":\"" + String(repeating: "x", count: 113) + "\"}\n"
        #expect(try readJSON(atLimit, layout: .ndjson, options: options).error == nil)
        let tooLarge = try readJSON("{\"a\":1}\n" + overLimit, layout: .ndjson, options: options)
        #expect(tooLarge.records.count == 1)
        #expect(tooLarge.error?.code == .fieldTooLarge)
        #expect(tooLarge.error?.line == 2 && tooLarge.error?.column == 1 && tooLarge.error?.record == 2)
        #expect(tooLarge.error?.message.contains("limit of 120 bytes") == true)

        let manyFields = "[\n" + "{" + (0..<40).map { "\"f\($0)\":\($0)" }.joined(separator: ",") + "}]"
        let record = try readJSON(manyFields, layout: .array, options: options)
        #expect(record.error?.code == .fieldTooLarge)
        #expect(record.error?.line == 2 && record.error?.column == 1 && record.error?.record == 1)

        // A syntax error past the limit is still a record over the limit: what the reader saw decides.
        let brokenLate = "{\"s\":\"" + String(repeating: "x", count: 200) + "\" oops}\n"
        #expect(try readJSON(brokenLate, layout: .ndjson, options: options).error?.code == .fieldTooLarge)

        let member = try readJSON(" {\"k\": " + overLimit + "}", layout: .automatic, options: options)
        #expect(member.error?.code == .fieldTooLarge)
        #expect(member.error?.column == 3 && member.error?.record == 1)
    }

    @Test("Error descriptions name the file and position but never a value")
    func errorsCarryNoRowData() throws {
        try TestSupport.withTemporaryFolder { folder in
            let text = #"{"secret":"hunter2-password","n":12,"x":hunter3}"#
            for layout in [JSONReader.Layout.ndjson, .array] {
                let path = try TestSupport.write(
                    Array((layout == .ndjson ? text : "[" + text + "]").utf8), to: "secret.json", in: folder)
                let reader = try JSONReader(path: path, layout: layout)
                do {
                    _ = try reader.next()
                    Issue.record("the malformed record was read")
                } catch let error as FerryIOError {
                    #expect(error.file == path)
                    #expect(error.description.hasPrefix("\(path):1:\(layout == .ndjson ? 41 : 42): "))
                    #expect(!error.description.contains("hunter"))
                    #expect(!error.description.contains("password"))
                    if layout == .ndjson {
                        // The skipped line's text travels apart from the description, for the rejects file.
                        #expect(error.isRecoverable && error.recordText == text)
                        #expect(try reader.next() == nil)
                    } else {
                        // The reader stays stopped on the same error.
                        #expect(!error.isRecoverable && error.recordText == nil)
                        #expect(throws: FerryIOError.self) { _ = try reader.next() }
                    }
                }
            }
        }
    }

    @Test("A depth limit counts the array around the records")
    func depthLimitCountsTheOuterArray() throws {
        let text = #"[{"a":{"b":1}}]"#
        #expect(try readJSON(text, layout: .array, options: JSONReaderOptions(maxDepth: 3)).error == nil)
        let tooDeep = try readJSON(text, layout: .array, options: JSONReaderOptions(maxDepth: 2))
        #expect(tooDeep.error?.code == .depthExceeded)
        #expect(tooDeep.error?.column == 7)
        let flattened = try readJSON(
            text, layout: .array, options: JSONReaderOptions(flattensNestedObjects: true, maxDepth: 2))
        #expect(flattened.error?.code == .depthExceeded)
        #expect(flattened.error?.column == 7)
    }

    @Test("A missing file fails with fileNotFound")
    func missingFile() throws {
        #expect(throws: FerryIOError.self) {
            _ = try JSONReader(path: "/nonexistent/ferry/input.json")
        }
        do {
            _ = try JSONReader(path: "/nonexistent/ferry/input.json")
        } catch let error as FerryIOError {
            #expect(error.code == .fileNotFound)
        }
    }
}

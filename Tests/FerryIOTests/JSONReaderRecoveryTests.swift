import Foundation
import Testing

@testable import FerryIO
import FerryTestSupport

/// A malformed NDJSON line is one bad record: the reader throws a recoverable error naming its line and column,
/// with the line's text, and reads on from the next line. Every input is read at every read-buffer size, so the
/// skipped line and its line break cross refills at every byte.
@Suite("JSONReader skipping malformed NDJSON lines")
struct JSONReaderRecoveryTests {
    /// A skipped line as a test expects it.
    struct Skip: Equatable, CustomStringConvertible {
        var code: FerryIOError.Code
        var line: Int
        var column: Int
        var record: Int
        var text: String

        init(_ code: FerryIOError.Code, line: Int, column: Int, record: Int, text: String) {
            self.code = code
            self.line = line
            self.column = column
            self.record = record
            self.text = text
        }

        init(_ error: JSONErrorSnapshot) {
            self.init(
                error.code, line: error.line ?? 0, column: error.column ?? 0, record: error.record ?? 0,
                text: error.recordText ?? "<none>")
        }

        var description: String { "\(code) at \(line):\(column) record \(record): \(text.debugDescription)" }
    }

    @Test("A bad line between good ones is skipped with its line, column, record number and text")
    func badLineBetweenGoodOnes() throws {
        let result = try readJSONThroughBadLines("{\"a\":1}\n{\"a\":2,}\n{\"a\":3}\n")

        #expect(result.error == nil)
        #expect(result.records.map(\.fields) == [[.number("a", "1")], [.number("a", "3")]])
        #expect(
            result.records.map(\.position) == [
                RecordPosition(record: 1, line: 1, byteOffset: 0), RecordPosition(record: 3, line: 3, byteOffset: 17),
            ])
        let skipped = try #require(result.skipped.first)
        #expect(result.skipped.count == 1)
        #expect(skipped.isRecoverable)
        #expect(Skip(skipped) == Skip(.invalidJSON, line: 2, column: 8, record: 2, text: #"{"a":2,}"#))
        #expect(skipped.byteOffset == 15)
        #expect(skipped.message == "expected a string key after ','")
    }

    @Test("Every kind of bad line is skipped alone, across CRLF, blank lines, multi-byte text and the input's end")
    func everyKindOfBadLine() throws {
        let text =
            "{\"a\":1}\n"  // 1
            + "[1,2]\n"  // 2: not an object
            + "hello \"é\" world\r\n"  // 3: not JSON; CRLF
            + "{\"a\":4} {\"b\":5}\n"  // 4: a record, then a second object on its line
            + "\n"  // 5: blank
            + "{\"s\":\"naïve ☕\",\"t\":tru}\n"  // 6: a bad literal after multi-byte text
            + "{\"a\":7}\r\n"  // 7
            + "{\"a\":1,\n"  // 8: a record over two lines, refused at its start…
            + "\"b\":2}\n"  // 9: …so its second line is a bad line of its own
            + "{\"a\":\n"  // 10: an error on the next line…
            + "]\n"  // 11: …skips both lines as one bad record
            + "{\"a\":12}\r"  // 12: CR alone ends a line
            + "{\"a\":\"cut"  // 13: the input ends inside a string
        let result = try readJSONThroughBadLines(text)

        #expect(result.error == nil, "\(result)")
        #expect(
            result.records.map(\.fields) == [
                [.number("a", "1")], [.number("a", "4")], [.number("a", "7")], [.number("a", "12")],
            ])
        #expect(result.records.map(\.position.line) == [1, 4, 7, 12])
        #expect(result.records.map(\.position.record) == [1, 4, 7, 11])
        let literalColumn = "{\"s\":\"naïve ☕\",\"t\":tru".utf8.count + 1
        #expect(
            result.skipped.map(Skip.init) == [
                Skip(.notAnObject, line: 2, column: 1, record: 2, text: "[1,2]"),
                Skip(.invalidJSON, line: 3, column: 1, record: 3, text: "hello \"é\" world"),
                Skip(.trailingGarbage, line: 4, column: 9, record: 5, text: "{\"b\":5}"),
                Skip(.invalidJSON, line: 6, column: literalColumn, record: 6, text: "{\"s\":\"naïve ☕\",\"t\":tru}"),
                Skip(.invalidJSON, line: 8, column: 1, record: 8, text: "{\"a\":1,"),
                Skip(.notAnObject, line: 9, column: 1, record: 9, text: "\"b\":2}"),
                Skip(.invalidJSON, line: 11, column: 1, record: 10, text: "{\"a\":\n]"),
                Skip(.unexpectedEnd, line: 13, column: 10, record: 12, text: "{\"a\":\"cut"),
            ], "\(result)")
        #expect(result.skipped.allSatisfy { $0.isRecoverable })
    }

    @Test("Bytes that are not text still end an NDJSON input", arguments: [[0xC3, 0x28], [0x00]] as [[UInt8]])
    func undecodableBytesEndTheInput(bad: [UInt8]) throws {
        let bytes = Array("{\"a\":1}\n{\"s\":\"".utf8) + bad + Array("\"}\n{\"a\":3}\n".utf8)
        let result = try readJSONThroughBadLines(bytes: bytes)

        #expect(result.records.map(\.fields) == [[.number("a", "1")]])
        #expect(result.skipped.isEmpty)
        let error = try #require(result.error)
        #expect(error.code == (bad == [0] ? .nulByte : .invalidUTF8) && error.line == 2 && error.record == 2)
        #expect(!error.isRecoverable && error.recordText == nil)
    }

    @Test(
        "An error in an array or object layout still ends the input",
        arguments: [JSONReader.Layout.array, .objectMembers(keyField: "k")])
    func documentLayoutsStayStrict(layout: JSONReader.Layout) throws {
        let text =
            layout == .array
            ? "[{\"a\":1},\n{\"a\":2,},\n{\"a\":3}]" : "{\"x\":{\"a\":1},\n\"y\":{\"a\":2,},\n\"z\":{\"a\":3}}"
        let result = try readJSONThroughBadLines(text, layout: layout)

        #expect(result.records.count == 1 && result.skipped.isEmpty)
        let error = try #require(result.error)
        #expect(error.code == .invalidJSON && error.line == 2 && error.record == 2)
        #expect(!error.isRecoverable && error.recordText == nil)
    }

    /// Long bad lines: over the record limit (refused at their start), and not JSON at all (refused at their
    /// first byte), followed by a CRLF.
    static func longBadLines(length: Int) -> (text: String, tooLarge: String, garbage: String) {
        let tooLarge = "{\"s\":\"" + String(repeating: "x", count: length) + "\"}"
        let garbage = String(repeating: "y", count: length)
        return ("{\"a\":1}\n" + tooLarge + "\n{\"a\":2}\n" + garbage + "\r\n{\"a\":3}", tooLarge, garbage)
    }

    @Test("A long bad line keeps only its first maxValueBytes bytes")
    func longBadLinesAreCut() throws {
        let (text, tooLarge, garbage) = Self.longBadLines(length: 5_000)
        let result = try readJSONThroughBadLines(text, options: JSONReaderOptions(maxValueBytes: 100))

        #expect(result.error == nil)
        #expect(result.records.map(\.fields) == [[.number("a", "1")], [.number("a", "2")], [.number("a", "3")]])
        #expect(result.records.map(\.position.line) == [1, 3, 5])
        #expect(
            result.skipped.map(Skip.init) == [
                Skip(.fieldTooLarge, line: 2, column: 1, record: 2, text: String(tooLarge.prefix(100))),
                Skip(.invalidJSON, line: 4, column: 1, record: 4, text: String(garbage.prefix(100))),
            ])
    }

    @Test("Skipping a line far longer than the window commits as it goes: the window never grows")
    func longBadLinesKeepTheWindow() throws {
        let (text, _, _) = Self.longBadLines(length: 300_000)
        try TestSupport.withTemporaryFolder { folder in
            let path = try TestSupport.write(Array(text.utf8), to: "long.ndjson", in: folder)
            let reader = try JSONReader(
                path: path, layout: .ndjson, options: JSONReaderOptions(maxValueBytes: 100), readBufferSize: 64)
            let capacity = reader.windowCapacity
            var texts: [Int] = []
            var records = 0
            while true {
                do {
                    guard try reader.next() != nil else { break }
                    records += 1
                } catch let error as FerryIOError where error.isRecoverable {
                    texts.append(error.recordText?.utf8.count ?? 0)
                }
            }
            #expect(records == 3 && texts == [100, 100])
            #expect(reader.windowCapacity == capacity)
        }
    }
}

import Foundation
import Testing

@testable import FerryIO
import FerryTestSupport

// Behaviour of `CSVReader`. Every input is read with read-buffer sizes 1, 2, 3, 7, 64 and the default
// (`CSVTestSupport.readAtEverySize`), so quotes, CRLF, multi-byte characters and errors also fall across
// buffer boundaries, and every read must give the same records, positions and errors.

/// A named input for parameterized tests.
struct CSVSample: Sendable, CustomTestStringConvertible {
    let name: String
    let bytes: [UInt8]
    var testDescription: String { name }
}

private func position(_ record: Int, line: Int, byte: Int) -> RecordPosition {
    RecordPosition(record: record, line: line, byteOffset: byte)
}

@Suite("CSVReader: encodings and line ends")
struct CSVReaderEncodingTests {
    @Test("A UTF-8 byte-order mark is skipped, and byte offsets still count it")
    func utf8ByteOrderMark() throws {
        let result = try CSVTestSupport.readAtEverySize("\u{FEFF}a,b\n1,2\n")
        #expect(result.columnNames == ["a", "b"])
        #expect(result.values == [["1", "2"]])
        #expect(result.records.map(\.position) == [position(1, line: 2, byte: 7)])
    }

    @Test("An input holding only a UTF-8 byte-order mark is empty")
    func onlyByteOrderMark() throws {
        let result = try CSVTestSupport.readAtEverySize("\u{FEFF}")
        #expect(result.columnNames == [])
        #expect(result.records.isEmpty && result.error == nil)
    }

    @Test(
        "A UTF-16 or UTF-32 byte-order mark is refused as an unsupported encoding",
        arguments: [
            CSVSample(name: "UTF-16LE", bytes: [0xFF, 0xFE, 0x61, 0x00, 0x0A, 0x00]),
            CSVSample(name: "UTF-16BE", bytes: [0xFE, 0xFF, 0x00, 0x61, 0x00, 0x0A]),
            CSVSample(name: "UTF-32LE", bytes: [0xFF, 0xFE, 0x00, 0x00, 0x61, 0x00, 0x00, 0x00]),
            CSVSample(name: "UTF-32BE", bytes: [0x00, 0x00, 0xFE, 0xFF, 0x00, 0x00, 0x00, 0x61]),
            CSVSample(name: "UTF-16LE mark alone", bytes: [0xFF, 0xFE]),
        ])
    func otherByteOrderMarks(_ sample: CSVSample) throws {
        let withHeader = try CSVTestSupport.readAtEverySize(sample.bytes, dialect: .csv)
        #expect(withHeader.error == CSVErrorSnapshot(.unsupportedEncoding, line: 1, column: 1, byteOffset: 0))
        #expect(withHeader.columnNames == nil)
        let withoutHeader = try CSVTestSupport.readAtEverySize(sample.bytes, dialect: CSVDialect(hasHeader: false))
        #expect(withoutHeader.error == CSVErrorSnapshot(.unsupportedEncoding, line: 1, column: 1, byteOffset: 0))
        #expect(withoutHeader.records.isEmpty)
    }

    @Test("Records after LF, CRLF or CR line ends have their line and byte offset", arguments: ["\n", "\r\n", "\r"])
    func lineEnds(_ ending: String) throws {
        let result = try CSVTestSupport.readAtEverySize("a,b\(ending)1,2\(ending)3,4\(ending)")
        let lineLength = 3 + ending.utf8.count
        #expect(result.columnNames == ["a", "b"])
        #expect(result.values == [["1", "2"], ["3", "4"]])
        #expect(
            result.records.map(\.position) == [
                position(1, line: 2, byte: lineLength), position(2, line: 3, byte: 2 * lineLength),
            ])
    }

    @Test("Mixed line ends each end one line, blank lines included")
    func mixedLineEnds() throws {
        // Lines: h (LF) | 1 (CRLF) | 2 (CR) | 3 (LF) | blank (CRLF) | 4 (no end)
        let text = "h\n1\r\n2\r3\n\r\n4"
        let skipping = try CSVTestSupport.readAtEverySize(text)
        #expect(skipping.values == [["1"], ["2"], ["3"], ["4"]])
        #expect(
            skipping.records.map(\.position) == [
                position(1, line: 2, byte: 2), position(2, line: 3, byte: 5), position(3, line: 4, byte: 7),
                position(4, line: 6, byte: 11),
            ])
        let keeping = try CSVTestSupport.readAtEverySize(text, dialect: CSVDialect(skipsEmptyLines: false))
        #expect(keeping.values == [["1"], ["2"], ["3"], [nil], ["4"]])
        #expect(
            keeping.records.map(\.position) == [
                position(1, line: 2, byte: 2), position(2, line: 3, byte: 5), position(3, line: 4, byte: 7),
                position(4, line: 5, byte: 9), position(5, line: 6, byte: 11),
            ])
    }

    @Test("Records after multi-line quoted fields start on the right line and byte")
    func recordsAfterMultiLineFields() throws {
        // Line 2-3: "a⏎b",1 (CRLF) | lines 4-6: "c⏎d⏎e",2 with CRLF, CR, CR | line 7: last,3
        let result = try CSVTestSupport.readAtEverySize("h1,h2\n\"a\nb\",1\r\n\"c\r\nd\re\",2\rlast,3")
        #expect(result.values == [["a\nb", "1"], ["c\r\nd\re", "2"], ["last", "3"]])
        #expect(
            result.records.map(\.position) == [
                position(1, line: 2, byte: 6), position(2, line: 4, byte: 15), position(3, line: 7, byte: 26),
            ])
    }

    @Test(
        "A final record without a line end is read", arguments: ["a,b\n1,2", "a,b\n1,", "a,b\n1,\"2\"", "a,b\n1,\"\""])
    func finalRecordWithoutLineEnd(_ text: String) throws {
        let result = try CSVTestSupport.readAtEverySize(text)
        let expected: [String: [String?]] = [
            "a,b\n1,2": ["1", "2"], "a,b\n1,": ["1", nil], "a,b\n1,\"2\"": ["1", "2"], "a,b\n1,\"\"": ["1", ""],
        ]
        #expect(result.values == [try #require(expected[text])])
        #expect(result.records.map(\.position) == [position(1, line: 2, byte: 4)])
    }

    @Test("Multi-byte characters are read whole wherever the buffer splits them")
    func multiByteCharacters() throws {
        let result = try CSVTestSupport.readAtEverySize("name,symbol\nCafé crème,😀ʤ€\n")
        #expect(result.values == [["Café crème", "😀ʤ€"]])
        #expect(result.records.map(\.position) == [position(1, line: 2, byte: 12)])
    }

    @Test("A file mixing a BOM, CRLF, quoted commas, nulls, empty strings and a multi-line field reads right")
    func mixedFile() throws {
        let text = "\u{FEFF}a,b,c\r\n1,\"x,y\",\r\n2,\"multi\nline\",\"\"\r\n3,q,z"
        let result = try CSVTestSupport.readAtEverySize(text)
        #expect(result.columnNames == ["a", "b", "c"])
        #expect(result.values == [["1", "x,y", nil], ["2", "multi\nline", ""], ["3", "q", "z"]])
        #expect(result.records.map(\.position.line) == [2, 3, 5])
        #expect(result.records.map(\.position.byteOffset) == [10, 20, 39])
    }
}

@Suite("CSVReader: fields and dialects")
struct CSVReaderDialectTests {
    @Test("Quoted fields keep delimiters, doubled quotes and line breaks")
    func quotedFields() throws {
        let result = try CSVTestSupport.readAtEverySize(
            "a,b,c,d\n\"x,y\",\"say \"\"hi\"\"\",\"l1\nl2\r\nl3\",\"\"\"\"\n")
        #expect(result.values == [["x,y", "say \"hi\"", "l1\nl2\r\nl3", "\""]])
    }

    @Test(
        "Tab, semicolon and pipe delimiters split fields and can be quoted",
        arguments: [UInt8(ascii: "\t"), UInt8(ascii: ";"), UInt8(ascii: "|")])
    func delimiters(_ delimiter: UInt8) throws {
        let separator = String(UnicodeScalar(delimiter))
        let text =
            ["a", "b", "c", "d"].joined(separator: separator) + "\n"
            + ["1", "\"x\(separator)y\"", "", "p,q"].joined(separator: separator) + "\n"
        let result = try CSVTestSupport.readAtEverySize(text, dialect: CSVDialect(delimiter: delimiter))
        #expect(result.columnNames == ["a", "b", "c", "d"])
        #expect(result.values == [["1", "x\(separator)y", nil, "p,q"]])
    }

    @Test("Without trimming, spaces around unquoted fields are kept")
    func trimmingOff() throws {
        let result = try CSVTestSupport.readAtEverySize("a,b,c\n x , y ,\tz\t\n")
        #expect(result.values == [[" x ", " y ", "\tz\t"]])
    }

    @Test("With trimming, spaces and tabs around fields go and quoted spaces stay")
    func trimmingOn() throws {
        let dialect = CSVDialect(trimsSpaces: true)
        let result = try CSVTestSupport.readAtEverySize("a,b,c\n  x  ,\t\"  y \"\t,  z z \n", dialect: dialect)
        #expect(result.values == [["x", "  y ", "z z"]])
        #expect(result.records.map(\.position) == [position(1, line: 2, byte: 6)], "the record starts at its line")
    }

    @Test("With trimming and tab as the delimiter, tabs still split fields")
    func trimmingWithTabs() throws {
        let dialect = CSVDialect(delimiter: UInt8(ascii: "\t"), trimsSpaces: true)
        let result = try CSVTestSupport.readAtEverySize("a\tb\tc\n x \t\t y \n", dialect: dialect)
        #expect(result.values == [["x", nil, "y"]])
    }

    @Test("Null tokens NA and empty make nulls, and a quoted empty field stays an empty string")
    func nullTokens() throws {
        let text = "a,b,c,d,e\nNA,,\"\",x,\"NA\"\n"
        let both = try CSVTestSupport.readAtEverySize(text, dialect: CSVDialect(nullTokens: ["", "NA"]))
        // Tokens other than "" match quoted fields too (libcsv does not report quoting of non-empty fields).
        #expect(both.values == [[nil, nil, "", "x", nil]])
        #expect(both.records.map(\.quotedEmptyFields) == [[false, false, true, false, false]])

        let byDefault = try CSVTestSupport.readAtEverySize(text)
        #expect(byDefault.values == [["NA", nil, "", "x", "NA"]])

        let none = try CSVTestSupport.readAtEverySize(text, dialect: CSVDialect(nullTokens: []))
        #expect(none.values == [["NA", "", "", "x", "NA"]])
        #expect(none.records.map(\.quotedEmptyFields) == [[false, false, true, false, false]])
    }

    @Test("Field kinds are null for null tokens and string for everything else")
    func fieldKinds() throws {
        try TestSupport.withTemporaryFolder { folder in
            let path = try TestSupport.write(Array("a,b,c\n,\"\",x\n".utf8), to: "kinds.csv", in: folder)
            let reader = try CSVReader(path: path)
            let record = try #require(try reader.next())
            #expect((0..<record.count).map { record[$0].kind } == [.null, .string, .string])
            #expect(record[2].equals("x") && record[1].equals("") && record[1].isQuoted)
        }
    }

    @Test("Blank lines are skipped by default")
    func blankLinesSkipped() throws {
        // Bytes: a⏎ (0) | blank (2) | 1⏎ (3) | blank CRLF (5) | 2⏎ (7) | blank (9)
        let result = try CSVTestSupport.readAtEverySize("a\n\n1\n\r\n2\n\n")
        #expect(result.values == [["1"], ["2"]])
        #expect(result.records.map(\.position) == [position(1, line: 3, byte: 3), position(2, line: 5, byte: 7)])
    }

    @Test("Blank lines are records with one empty field when skipsEmptyLines is off")
    func blankLinesKept() throws {
        let text = "a\n\n1\n\r\n2\n\n"
        let result = try CSVTestSupport.readAtEverySize(text, dialect: CSVDialect(skipsEmptyLines: false))
        #expect(result.values == [[nil], ["1"], [nil], ["2"], [nil]])
        #expect(
            result.records.map(\.position) == [
                position(1, line: 2, byte: 2), position(2, line: 3, byte: 3), position(3, line: 4, byte: 5),
                position(4, line: 5, byte: 7), position(5, line: 6, byte: 9),
            ])
        let noNulls = try CSVTestSupport.readAtEverySize(
            text, dialect: CSVDialect(nullTokens: [], skipsEmptyLines: false))
        #expect(noNulls.values == [[""], ["1"], [""], ["2"], [""]])
    }

    @Test("With trimming, a line of spaces between a CR and an LF is a blank line of its own")
    func trimmedBlankLineAfterCR() throws {
        // Line 1: a (CR) | line 2: two spaces (LF) | line 3: 1
        let keeping = try CSVTestSupport.readAtEverySize(
            "a\r  \n1", dialect: CSVDialect(trimsSpaces: true, skipsEmptyLines: false))
        #expect(keeping.values == [[nil], ["1"]])
        #expect(keeping.records.map(\.position) == [position(1, line: 2, byte: 2), position(2, line: 3, byte: 5)])
        let skipping = try CSVTestSupport.readAtEverySize("a\r  \n1", dialect: CSVDialect(trimsSpaces: true))
        #expect(skipping.values == [["1"]])
        #expect(skipping.records.map(\.position) == [position(1, line: 3, byte: 5)])
    }

    @Test("An empty file has no header and no records")
    func emptyFile() throws {
        let withHeader = try CSVTestSupport.readAtEverySize("")
        #expect(withHeader.columnNames == [] && withHeader.records.isEmpty && withHeader.error == nil)
        let withoutHeader = try CSVTestSupport.readAtEverySize("", dialect: CSVDialect(hasHeader: false))
        #expect(withoutHeader.columnNames == nil && withoutHeader.records.isEmpty && withoutHeader.error == nil)
        let blankLines = try CSVTestSupport.readAtEverySize("\n\r\n\r")
        #expect(blankLines.columnNames == [] && blankLines.records.isEmpty && blankLines.error == nil)
    }

    @Test("A header-only file has column names and no records", arguments: ["a,b", "a,b\n", "a,b\r\n", "a,b\r"])
    func headerOnly(_ text: String) throws {
        let result = try CSVTestSupport.readAtEverySize(text)
        #expect(result.columnNames == ["a", "b"])
        #expect(result.records.isEmpty && result.error == nil)
    }

    @Test("Without a header, the first record is data and sets the field count")
    func noHeader() throws {
        let result = try CSVTestSupport.readAtEverySize("1,2\n3,4\n", dialect: CSVDialect(hasHeader: false))
        #expect(result.columnNames == nil)
        #expect(result.values == [["1", "2"], ["3", "4"]])
        #expect(result.records.map(\.position) == [position(1, line: 1, byte: 0), position(2, line: 2, byte: 4)])
    }

    @Test("Ragged rows are read when allowed")
    func raggedRowsAllowed() throws {
        let result = try CSVTestSupport.readAtEverySize(
            "a,b\n1\n2,3,4\n", dialect: CSVDialect(allowsRaggedRows: true))
        #expect(result.values == [["1"], ["2", "3", "4"]])
        #expect(result.error == nil)
    }
}

@Suite("CSVReader: errors")
struct CSVReaderErrorTests {
    @Test("An unterminated quote at the end of the input points at the opening quote")
    func unterminatedQuote() throws {
        let result = try CSVTestSupport.readAtEverySize("a,b\n1,2\n3,\"x\ny")
        #expect(result.values == [["1", "2"]], "the records before the error are handed out")
        #expect(result.error == CSVErrorSnapshot(.unterminatedQuote, line: 3, column: 3, byteOffset: 10, record: 2))
    }

    @Test("An unterminated quote after doubled quotes and lines of its own still points at its opening quote")
    func unterminatedQuoteWithDoubledQuotes() throws {
        let result = try CSVTestSupport.readAtEverySize("h1,h2\n1,\"ab\"\"c\nd\n\"\"e")
        #expect(result.error == CSVErrorSnapshot(.unterminatedQuote, line: 2, column: 3, byteOffset: 8, record: 1))
        let closed = try CSVTestSupport.readAtEverySize("h1,h2\n\"a\",b\n1,\"ab\"\"")
        #expect(closed.values == [["a", "b"]])
        #expect(closed.error == CSVErrorSnapshot(.unterminatedQuote, line: 3, column: 3, byteOffset: 14, record: 2))
    }

    @Test("An unterminated quote after trimmed spaces points at the quote")
    func unterminatedQuoteAfterSpaces() throws {
        let result = try CSVTestSupport.readAtEverySize("a\n  \"x\n", dialect: CSVDialect(trimsSpaces: true))
        #expect(result.error == CSVErrorSnapshot(.unterminatedQuote, line: 2, column: 3, byteOffset: 4, record: 1))
    }

    @Test("An unterminated quote in the header fails opening the reader, with no record number")
    func unterminatedQuoteInHeader() throws {
        let result = try CSVTestSupport.readAtEverySize("\"a,b\n1,2\n")
        #expect(result.error == CSVErrorSnapshot(.unterminatedQuote, line: 1, column: 1, byteOffset: 0))
        #expect(result.columnNames == nil)
    }

    @Test("A quote inside an unquoted field is a malformed quote at that quote")
    func quoteInUnquotedField() throws {
        let result = try CSVTestSupport.readAtEverySize("a,b\n1,x\"y\n2,3\n")
        #expect(result.records.isEmpty)
        #expect(result.error == CSVErrorSnapshot(.malformedQuote, line: 2, column: 4, byteOffset: 7, record: 1))
    }

    @Test("Text after a closing quote is a malformed quote at that text")
    func textAfterClosingQuote() throws {
        let result = try CSVTestSupport.readAtEverySize("a,b\r\n0,1\r\n1,\"x\"y\r\n")
        #expect(result.values == [["0", "1"]])
        #expect(result.error == CSVErrorSnapshot(.malformedQuote, line: 3, column: 6, byteOffset: 15, record: 2))
        let space = try CSVTestSupport.readAtEverySize("a,b\n\"x\" ,y\n")
        #expect(space.error == CSVErrorSnapshot(.malformedQuote, line: 2, column: 4, byteOffset: 7, record: 1))
    }

    @Test("A quote after a closing quote and trimmed spaces is a malformed quote")
    func quoteAfterClosingQuoteAndSpaces() throws {
        try TestSupport.withTemporaryFolder { folder in
            let path = try TestSupport.write(Array("a\n\"x\"  \"\n".utf8), to: "q.csv", in: folder)
            let reader = try CSVReader(path: path, dialect: CSVDialect(trimsSpaces: true))
            let error = #expect(throws: FerryIOError.self) { try reader.next() }
            #expect(
                error.map(CSVErrorSnapshot.init)
                    == CSVErrorSnapshot(.malformedQuote, line: 2, column: 6, byteOffset: 7, record: 1))
            #expect(error?.message.contains("after a closing quote") == true)
        }
    }

    @Test("A record with too few or too many fields is a field-count error, and reading can go on")
    func raggedRows() throws {
        let result = try CSVTestSupport.readAtEverySize("a,b\n1,2\n3\n4,5,6\n7,8\n")
        #expect(result.values == [["1", "2"]])
        #expect(result.error == CSVErrorSnapshot(.fieldCount, line: 3, column: 1, byteOffset: 8, record: 2))

        try TestSupport.withTemporaryFolder { folder in
            let path = try TestSupport.write(Array("a,b\n1,2\n3\n4,5,6\n7,8\n".utf8), to: "r.csv", in: folder)
            let reader = try CSVReader(path: path)
            #expect(try reader.next()?.strings == ["1", "2"])
            let tooFew = #expect(throws: FerryIOError.self) { try reader.next() }
            #expect(
                tooFew.map(CSVErrorSnapshot.init)
                    == CSVErrorSnapshot(.fieldCount, line: 3, column: 1, byteOffset: 8, record: 2))
            let tooMany = #expect(throws: FerryIOError.self) { try reader.next() }
            #expect(
                tooMany.map(CSVErrorSnapshot.init)
                    == CSVErrorSnapshot(.fieldCount, line: 4, column: 1, byteOffset: 10, record: 3))
            let last = try #require(try reader.next())
            #expect(last.strings == ["7", "8"] && last.position == position(4, line: 5, byte: 16))
            #expect(try reader.next() == nil)
        }
    }

    @Test("Without a header, the first record's field count is the one expected")
    func raggedRowsWithoutHeader() throws {
        let result = try CSVTestSupport.readAtEverySize("1,2\n3\n", dialect: CSVDialect(hasHeader: false))
        #expect(result.values == [["1", "2"]])
        #expect(result.error == CSVErrorSnapshot(.fieldCount, line: 2, column: 1, byteOffset: 4, record: 2))
    }

    @Test(
        "Invalid UTF-8 is refused at the start of the broken character",
        arguments: [
            // (input, column on line 2, byte offset)
            CSVSample(name: "lead byte then ASCII", bytes: Array("a\nx".utf8) + [0xC3, 0x28, 0x0A]),
            CSVSample(name: "stray continuation byte", bytes: Array("a\n".utf8) + [0x80, 0x0A]),
            CSVSample(name: "invalid lead byte", bytes: Array("a\n".utf8) + [0xFF, 0x0A]),
            CSVSample(name: "overlong encoding", bytes: Array("a\n".utf8) + [0xC0, 0xAF, 0x0A]),
            CSVSample(name: "UTF-16 surrogate", bytes: Array("a\nx".utf8) + [0xED, 0xA0, 0x80, 0x0A]),
            CSVSample(name: "after multi-byte characters", bytes: Array("a\nüx".utf8) + [0xE2, 0x82, 0x41, 0x0A]),
            CSVSample(name: "truncated at the end of the input", bytes: Array("a\nüx".utf8) + [0xE2, 0x82]),
            CSVSample(name: "line end inside a character", bytes: Array("a\nx".utf8) + [0xF0, 0x9F, 0x0A]),
        ])
    func invalidUTF8(_ sample: CSVSample) throws {
        let expected: [String: (column: Int, byte: Int)] = [
            "lead byte then ASCII": (2, 3), "stray continuation byte": (1, 2), "invalid lead byte": (1, 2),
            "overlong encoding": (1, 2), "UTF-16 surrogate": (2, 3), "after multi-byte characters": (4, 5),
            "truncated at the end of the input": (4, 5), "line end inside a character": (2, 3),
        ]
        let location = try #require(expected[sample.name])
        let result = try CSVTestSupport.readAtEverySize(sample.bytes, dialect: .csv)
        #expect(
            result.error
                == CSVErrorSnapshot(
                    .invalidUTF8, line: 2, column: location.column, byteOffset: location.byte, record: 1))
        #expect(result.columnNames == ["a"] && result.records.isEmpty)
    }

    @Test("Invalid UTF-8 after valid records is refused once those are handed out")
    func invalidUTF8AfterRecords() throws {
        let result = try CSVTestSupport.readAtEverySize(
            Array("a,b\n1,2\r\n\"3\",\"".utf8) + [0xFE] + Array("\"\n".utf8), dialect: .csv)
        #expect(result.values == [["1", "2"]])
        #expect(result.error == CSVErrorSnapshot(.invalidUTF8, line: 3, column: 6, byteOffset: 14, record: 2))
    }

    @Test("A NUL byte is refused where it is")
    func nulByte() throws {
        let result = try CSVTestSupport.readAtEverySize(
            Array("a,b\n1,2\nx,\"y".utf8) + [0x00] + Array("\"\n".utf8), dialect: .csv)
        #expect(result.values == [["1", "2"]])
        #expect(result.error == CSVErrorSnapshot(.nulByte, line: 3, column: 5, byteOffset: 12, record: 2))
    }

    @Test("A field over maxFieldBytes is refused at the start of its record, which is not handed out")
    func fieldTooLarge() throws {
        let dialect = CSVDialect(maxFieldBytes: 1024)
        let big = String(repeating: "x", count: 1025)
        let unquoted = try CSVTestSupport.readAtEverySize("a,b\n1,2\n3,\(big)\n4,5\n", dialect: dialect)
        #expect(unquoted.values == [["1", "2"]])
        #expect(unquoted.error == CSVErrorSnapshot(.fieldTooLarge, line: 3, column: 1, byteOffset: 8, record: 2))

        let lastRecord = try CSVTestSupport.readAtEverySize("a,b\n1,2\n3,\(big)", dialect: dialect)
        #expect(lastRecord.values == [["1", "2"]])
        #expect(lastRecord.error == CSVErrorSnapshot(.fieldTooLarge, line: 3, column: 1, byteOffset: 8, record: 2))

        let inHeader = try CSVTestSupport.readAtEverySize("a,\(big)\n1,2\n", dialect: dialect)
        #expect(inHeader.error == CSVErrorSnapshot(.fieldTooLarge, line: 1, column: 1, byteOffset: 0))
    }

    @Test("A field of exactly maxFieldBytes is read, quoted or not, with quotes or trailing spaces")
    func fieldAtTheLimit() throws {
        let dialect = CSVDialect(maxFieldBytes: 1024)
        let exact = String(repeating: "x", count: 1024)
        let unquoted = try CSVTestSupport.readAtEverySize("a,b\n1,\(exact)\n", dialect: dialect)
        #expect(unquoted.values == [["1", exact]])
        // The closing quote sits in libcsv's buffer until the next byte shows that it closes the field.
        let quoted = try CSVTestSupport.readAtEverySize("a,b\n1,\"\(exact)\"\n2,3\n", dialect: dialect)
        #expect(quoted.values == [["1", exact], ["2", "3"]])
        let withQuotes = String(repeating: "x", count: 1022) + "\"\""
        let escaped = withQuotes.replacingOccurrences(of: "\"", with: "\"\"")
        let doubled = try CSVTestSupport.readAtEverySize("a\n\"\(escaped)\"", dialect: dialect)
        #expect(doubled.values == [[withQuotes]])
        // With trimming, spaces after a field sit in libcsv's buffer until the field ends.
        let trimming = CSVDialect(trimsSpaces: true, allowsRaggedRows: true, maxFieldBytes: 1024)
        let spaced = try CSVTestSupport.readAtEverySize(
            "a,b\n1,\(exact)      \n2,\"\(exact)\"     ,\n", dialect: trimming)
        #expect(spaced.values == [["1", exact], ["2", exact, nil]])
    }

    @Test("An unclosed quote that swallows the input stops at maxFieldBytes instead of exhausting memory")
    func unclosedQuoteHitsTheLimit() throws {
        let lines = String(repeating: "some text, more text\n", count: 100)
        let result = try CSVTestSupport.readAtEverySize(
            "a,b\n1,2\n3,\"\(lines)", dialect: CSVDialect(maxFieldBytes: 1024))
        #expect(result.values == [["1", "2"]])
        #expect(result.error == CSVErrorSnapshot(.fieldTooLarge, line: 3, column: 1, byteOffset: 8, record: 2))
    }

    @Test("Error descriptions give the place and never the row data")
    func errorsHoldNoRowData() throws {
        let inputs = [
            "a,b\nSECRET,SECRET\"SECRET\n", "a,b\n\"SECRET\"SECRET,x\n", "a,b\nSECRET,\"SECRET", "a,b\nSECRET\n",
        ]
        for input in inputs {
            try TestSupport.withTemporaryFolder { folder in
                let path = try TestSupport.write(Array(input.utf8), to: "secret.csv", in: folder)
                let reader = try CSVReader(path: path)
                let error = #expect(throws: FerryIOError.self) { while try reader.next() != nil {} }
                let description = try #require(error).description
                #expect(!description.contains("SECRET"), "\(description)")
                #expect(description.hasPrefix("\(path):2:"), "\(description)")
            }
        }
    }

    @Test("Strict mode makes no repairs")
    func strictModeRepairsNothing() throws {
        let result = try CSVTestSupport.readAtEverySize("a,b\n\"x\",\"y\"\"z\"\n")
        #expect(result.values == [["x", "y\"z"]])
        #expect(result.repairs == 0)
    }
}

@Suite("CSVReader: lenient mode")
struct CSVReaderLenientTests {
    static let lenient = CSVDialect(isStrict: false)

    @Test("A quote inside an unquoted field is kept and counted as a repair")
    func quoteInUnquotedField() throws {
        let result = try CSVTestSupport.readAtEverySize("a,b\n1,x\"y\n2,3\"\"\n", dialect: Self.lenient)
        #expect(result.error == nil)
        #expect(result.values == [["1", "x\"y"], ["2", "3\"\""]])
        #expect(result.repairs == 3)
    }

    @Test("An unterminated quote at the end closes the field and counts as a repair")
    func unterminatedQuote() throws {
        let result = try CSVTestSupport.readAtEverySize("a,b\n1,\"open\nfield", dialect: Self.lenient)
        #expect(result.error == nil)
        #expect(result.values == [["1", "open\nfield"]])
        #expect(result.repairs == 1)
    }

    @Test("Text after a closing quote is kept with the quote, and the field stays quoted, as libcsv does")
    func textAfterClosingQuote() throws {
        // libcsv's non-strict repair: the quote becomes data and the field goes on as a quoted field, so the
        // following comma and line end are data too, up to the next quote.
        let result = try CSVTestSupport.readAtEverySize(
            "a,b\n1,\"p\"q,r\n2,\"s\"\n", dialect: CSVDialect(isStrict: false, allowsRaggedRows: true))
        #expect(result.error == nil)
        #expect(result.values == [["1", "p\"q,r\n2,\"s"]])
        #expect(result.repairs == 2)
    }
}

@Suite("CSVReader: generated input")
struct CSVReaderGeneratedInputTests {
    /// A CSV file written by the test, with the values and positions it must read back as.
    struct GeneratedCSV {
        var bytes: [UInt8] = []
        var values: [[String?]] = []
        var positions: [RecordPosition] = []
    }

    /// Writes `count` records of four fields, mixing every kind of value and line end, with a plain
    /// pseudo-random generator so that the file is the same on every run.
    static func generate(count: Int, seed: UInt64) -> GeneratedCSV {
        let pool: [String?] = [
            "plain", "", nil, "with,comma", "with \"quotes\"", "multi\nline", "crlf\r\nline", "cr\rline",
            "Café ʤ 😀", " spaced ", "\"", String(repeating: "long", count: 80), "a\"\"b", ",", "\r\n",
        ]
        let endings = ["\n", "\r\n", "\r"]
        var state = seed
        func nextIndex(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        func lineEnds(in bytes: ArraySlice<UInt8>) -> Int {
            var count = 0
            var index = bytes.startIndex
            while index < bytes.endIndex {
                if bytes[index] == 0x0A {
                    count += 1
                } else if bytes[index] == 0x0D && (index + 1 == bytes.endIndex || bytes[index + 1] != 0x0A) {
                    count += 1
                }
                index += 1
            }
            return count
        }
        var csv = GeneratedCSV()
        csv.bytes = Array("a,b,c,d\r\n".utf8)
        var line = 2
        for record in 1...count {
            let start = csv.bytes.count
            let values = (0..<4).map { _ in pool[nextIndex(pool.count)] }
            let fields = values.map { value -> String in
                guard let value else { return "" }
                // Scalars, not Characters: "\r\n" is one Character, and a lone CR must be found too.
                let needsQuotes =
                    value.isEmpty || value.unicodeScalars.contains { ",\"\r\n".unicodeScalars.contains($0) }
                return needsQuotes ? "\"" + value.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : value
            }
            // The last record has no line end.
            let ending = record == count ? "" : endings[nextIndex(endings.count)]
            csv.bytes += Array((fields.joined(separator: ",") + ending).utf8)
            csv.values.append(values)
            csv.positions.append(RecordPosition(record: record, line: line, byteOffset: start))
            line += lineEnds(in: csv.bytes[start...])
        }
        return csv
    }

    @Test("A generated file larger than the default read buffer reads back exactly, at every read-buffer size")
    func generatedFile() throws {
        let csv = Self.generate(count: 4_000, seed: 2_026)
        #expect(csv.bytes.count > 256 * 1024, "the file crosses the default read buffer's end")
        let result = try CSVTestSupport.readAtEverySize(csv.bytes, dialect: .csv)
        #expect(result.error == nil)
        #expect(result.columnNames == ["a", "b", "c", "d"])
        #expect(result.values.count == csv.values.count)
        #expect(result.values == csv.values)
        #expect(result.records.map(\.position) == csv.positions)
    }

    @Test("Another quote character quotes fields and the double quote is data")
    func otherQuoteCharacter() throws {
        let dialect = CSVDialect(quote: UInt8(ascii: "'"))
        let result = try CSVTestSupport.readAtEverySize("a,b\n'x,''y''',\"z\"\n", dialect: dialect)
        #expect(result.values == [["x,'y'", "\"z\""]])
    }
}

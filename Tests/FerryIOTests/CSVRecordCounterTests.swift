import FerryTestSupport
import Foundation
import Testing

@testable import FerryIO

/// `CSVRecordCounter` against `CSVReader`: the same count whenever the reader reads the input without an error or
/// a repair, and `nil` (the reader's turn) whenever it does not, however the input is cut into parts and blocks.
@Suite("CSVRecordCounter: counting in parts")
struct CSVRecordCounterTests {
    /// Parts and read-buffer sizes every input is counted with: cuts and block ends fall on every kind of byte.
    static let partCounts = [1, 2, 3, 5, 8]
    static let bufferSizes = [1, 2, 3, 7, 64, 256 * 1024]

    /// What a counter must give for `path`: the reader's record count, or `nil` when the reader fails or repairs.
    static func expectedCount(path: String, dialect: CSVDialect) throws -> Int? {
        let result = try CSVTestSupport.read(path: path, dialect: dialect)
        return result.error == nil && result.repairs == 0 ? result.records.count : nil
    }

    /// Counts `path` in every part count and read-buffer size, parts as small as one byte, and expects `expected`.
    static func expectCounts(
        path: String, dialect: CSVDialect, expected: Int?, partCounts: [Int] = partCounts,
        bufferSizes: [Int] = bufferSizes, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        for parts in partCounts {
            for size in bufferSizes {
                let counter = CSVRecordCounter(
                    path: path, dialect: dialect, partCount: parts, readBufferSize: size, minimumPartBytes: 1)
                let count = counter.count()
                #expect(
                    count == expected, "\(parts) parts, \(size)-byte reads: \(String(describing: count))",
                    sourceLocation: sourceLocation)
            }
        }
    }

    static let dialects: [(String, CSVDialect)] = {
        var lenient = CSVDialect.csv
        lenient.isStrict = false
        var keepsBlankLines = CSVDialect.csv
        keepsBlankLines.skipsEmptyLines = false
        var ragged = CSVDialect.csv
        ragged.allowsRaggedRows = true
        var small = CSVDialect.csv
        small.maxFieldBytes = 8
        return [
            ("csv", .csv), ("no header", CSVDialect(hasHeader: false)), ("lenient", lenient),
            ("blank lines kept", keepsBlankLines), ("ragged", ragged), ("8-byte fields", small), ("tsv", .tsv),
        ]
    }()

    /// Inputs for every dialect: valid ones of each line end, quoting and encoding, and each kind of error.
    static let inputs: [(String, String)] = [
        ("empty", ""),
        ("header only", "a,b\n"),
        ("LF", "a,b\n1,2\n3,4\n"),
        ("CRLF", "a,b\r\n1,2\r\n3,4\r\n"),
        ("CR", "a,b\r1,2\r3,4\r"),
        ("no last line end", "a,b\n1,2\n3,4"),
        ("blank lines", "a,b\n\n1,2\r\n\r\n\n3,4\n\r\r\n"),
        ("byte-order mark", "\u{FEFF}a,b\n1,2\n"),
        ("byte-order mark only", "\u{FEFF}"),
        ("tabs", "a\tb\n1\t2\n\"x\ty\"\t3\n"),
        ("quoted line ends", "a,b\n\"1\n2\n3\",x\n\"4\r\n5\",\"\"\"y\"\"\n\"\n6,7\n"),
        ("a quoted field of many lines", "a,b\n1,\"" + String(repeating: "line,\n", count: 40) + "\"\n2,3\n"),
        ("quoted lines that look like records", "a,b\n\"x\n1,2\n3,4\n\",5\n6,7\n"),
        ("multi-byte characters", "name,note\né,日本\n\"ü\nß\",😀\n€,x\n"),
        ("quoted empty fields", "a,b\n\"\",\"\"\n,\n"),
        ("spaces kept", "a,b\n 1 , 2 \n\" 3 \",4\n"),
        ("a quote in an unquoted field", "a,b\n1,2\n3,x\"y\n4,5\n"),
        ("a character after a closing quote", "a,b\n1,\"2\"x\n"),
        ("an unterminated quote", "a,b\n1,\"2\n3,4\n"),
        ("a row too wide", "a,b\n1,2\n3,4,5\n6,7\n"),
        ("a row too narrow, late", "a,b\n" + String(repeating: "1,2\n", count: 30) + "3\n"),
        ("a long field", "a,b\n1,123456789012\n"),
        ("a long quoted field", "a,b\n1,\"12345\n6789012\"\n"),
    ]

    static let byteInputs: [(String, [UInt8])] = [
        ("invalid UTF-8", Array("a,b\n1,".utf8) + [0xC3, 0x28] + Array("\n2,3\n".utf8)),
        ("a cut-off character at the end", Array("a,b\n1,".utf8) + [0xE6, 0x97]),
        ("a NUL byte", Array("a,b\n1,".utf8) + [0] + Array("\n2,3\n".utf8)),
        ("a UTF-16 byte-order mark", [0xFF, 0xFE] + Array("a\0,\0b\0\n\0".utf8)),
        ("an invalid byte late", Array(String(repeating: "1,2\n", count: 40).utf8) + [0xFF, 0x0A]),
    ]

    @Test("Every input gives the reader's count, or nil where the reader fails, in every dialect, part and block")
    func countsMatchTheReader() throws {
        let all = Self.inputs.map { ($0.0, Array($0.1.utf8)) } + Self.byteInputs
        try TestSupport.withTemporaryFolder { folder in
            for (name, bytes) in all {
                let path = try TestSupport.write(bytes, to: "input.csv", in: folder)
                for (dialectName, dialect) in Self.dialects {
                    let expected = try Self.expectedCount(path: path, dialect: dialect)
                    Self.expectCounts(path: path, dialect: dialect, expected: expected)
                    if name.hasPrefix("a ") || name.hasPrefix("an ") || name.hasPrefix("invalid") {
                        continue
                    }
                    // The valid inputs are counted here at all in the dialects that read them without complaint.
                    let readsIt = name == "tabs" ? dialectName == "tsv" : dialectName == "csv" || dialectName == "no header"
                    if readsIt {
                        #expect(expected != nil, "\(name) is valid CSV")
                    }
                }
            }
        }
    }

    @Test("The inputs with an error are left to the reader: the counter gives nil")
    func errorsAreLeftToTheReader() throws {
        let texts = ["a,b\n1,2\n3,x\"y\n", "a,b\n1,\"2\n", "a,b\n1,2,3\n", "a,b\n1,\"2\"x\n"]
        let failing = texts.map { Array($0.utf8) } + Self.byteInputs.map(\.1)
        try TestSupport.withTemporaryFolder { folder in
            for bytes in failing {
                let path = try TestSupport.write(bytes, to: "input.csv", in: folder)
                #expect(try Self.expectedCount(path: path, dialect: .csv) == nil, "the reader fails")
                Self.expectCounts(path: path, dialect: .csv, expected: nil)
            }
        }
    }

    @Test("A file whose every cut falls inside a quoted field is counted as one parse from its start")
    func cutsInsideQuotedFields() throws {
        // One record of a thousand lines: every cut after an LF lies inside its quoted field.
        let text = "id,text\n1,\"" + String(repeating: "2,3\n", count: 1000) + "\"\n4,5\n"
        try TestSupport.withTemporaryFolder { folder in
            let path = try TestSupport.write(Array(text.utf8), to: "input.csv", in: folder)
            #expect(try Self.expectedCount(path: path, dialect: .csv) == 2)
            Self.expectCounts(path: path, dialect: .csv, expected: 2, bufferSizes: [5, 4096])
        }
    }

    @Test("Many records with quoted line ends, CRLFs and multi-byte characters are counted in up to eight parts")
    func aLargerMixedFile() throws {
        var text = "id,name,note\r\n"
        for index in 0..<3000 {
            switch index % 4 {
            case 0: text += "\(index),plain,x\r\n"
            case 1: text += "\(index),\"two\r\nlines\",\"日本語\"\r\n"
            case 2: text += "\(index),\"a \"\"quote\"\"\n\",é\n"
            default: text += "\(index),,\r\n"
            }
        }
        try TestSupport.withTemporaryFolder { folder in
            let path = try TestSupport.write(Array(text.utf8), to: "input.csv", in: folder)
            #expect(try Self.expectedCount(path: path, dialect: .csv) == 3000)
            Self.expectCounts(
                path: path, dialect: .csv, expected: 3000, partCounts: [1, 2, 3, 4, 8], bufferSizes: [7, 1000, 65536])
        }
    }

    @Test("Standard input, a folder, a missing file and a trimming dialect are left to the reader")
    func whatIsNotCountedInParts() throws {
        try TestSupport.withTemporaryFolder { folder in
            let path = try TestSupport.write(Array("a,b\n1,2\n".utf8), to: "input.csv", in: folder)
            #expect(CSVRecordCounter(path: path).count() == 1)
            #expect(CSVRecordCounter(path: "-").count() == nil)
            #expect(CSVRecordCounter(path: folder.path).count() == nil)
            #expect(CSVRecordCounter(path: folder.appendingPathComponent("missing.csv").path).count() == nil)
            var trimming = CSVDialect.csv
            trimming.trimsSpaces = true
            #expect(CSVRecordCounter(path: path, dialect: trimming).count() == nil)
        }
    }

    @Test("Progress reports bytes and records that end at the file's")
    func progressReachesTheEnd() throws {
        let text = "a,b\n" + String(repeating: "1,2\n", count: 500)
        try TestSupport.withTemporaryFolder { folder in
            let path = try TestSupport.write(Array(text.utf8), to: "input.csv", in: folder)
            let last = LastProgress()
            let counter = CSVRecordCounter(
                path: path, dialect: .csv, partCount: 1, readBufferSize: 100, minimumPartBytes: 1)
            #expect(counter.count { bytes, records in last.set(bytes: bytes, records: records) } == 500)
            #expect(last.value.0 == text.utf8.count)
            #expect(last.value.1 == 501, "the header is a record to libcsv")
        }
    }

    @Test("Every conformance corpus and sample file gives the reader's count, or nil where the reader fails")
    func corpusFiles() throws {
        let folders = ["csv-spectrum", "csvw-tests", "fastcsv-spec"].map { TestSupport.conformance($0) }
        var paths: [String] = []
        for folder in folders {
            let files = FileManager.default.enumerator(atPath: folder.path)?.compactMap { $0 as? String } ?? []
            paths += files.filter { $0.hasSuffix(".csv") }.map { folder.appendingPathComponent($0).path }
        }
        paths += ["products.csv", "categories.csv", "suppliers.csv"].map { TestSupport.sampleData($0).path }
            .filter { FileManager.default.fileExists(atPath: $0) }
        #expect(paths.count >= 20)
        for path in paths {
            for dialect in [Self.dialects[0].1, Self.dialects[1].1, Self.dialects[2].1] {
                let expected = try Self.expectedCount(path: path, dialect: dialect)
                Self.expectCounts(path: path, dialect: dialect, expected: expected, bufferSizes: [1, 7, 256 * 1024])
            }
        }
    }

    @Test("The FastCSV specification's inputs give the reader's count, or nil where the reader fails")
    func fastCSVInputs() throws {
        try TestSupport.withTemporaryFolder { folder in
            for fastCase in try FastCSVCase.all() {
                let path = try TestSupport.write(Array(fastCase.input.utf8), to: "input.csv", in: folder)
                var dialect = CSVDialect(hasHeader: false, nullTokens: [])
                dialect.skipsEmptyLines = fastCase.settings.skipEmptyLines
                let expected = try Self.expectedCount(path: path, dialect: dialect)
                Self.expectCounts(path: path, dialect: dialect, expected: expected, bufferSizes: [1, 3, 4096])
            }
        }
    }
}

/// The last progress a count reported.
private final class LastProgress: @unchecked Sendable {
    // @unchecked: a count reports progress on one thread at a time, and the test reads it after the count.
    private(set) var value: (Int, Int) = (0, 0)
    func set(bytes: Int, records: Int) { value = (bytes, records) }
}

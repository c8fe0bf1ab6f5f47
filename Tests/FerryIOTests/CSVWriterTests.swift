import Foundation
import FerryTestSupport
import Testing

@testable import FerryIO

/// CSVWriter: RFC 4180 quoting, null versus empty, line endings, and round trips through CSVReader.
struct CSVWriterTests {
    /// Writes `rows` (nil = null) under `columns` and returns the file's text.
    func written(
        _ rows: [[String?]], columns: [String] = ["a", "b"], dialect: CSVDialect = .csv,
        quoting: CSVWriter.Quoting = .minimal, lineEnding: CSVWriter.LineEnding = .lf
    ) throws -> String {
        try TestSupport.withTemporaryFolder { folder in
            let path = folder.appendingPathComponent("out.csv").path
            let writer = try CSVWriter(path: path, dialect: dialect, quoting: quoting, lineEnding: lineEnding)
            try writer.begin(columns: columns)
            for row in rows {
                for value in row {
                    if let value { try writer.writeField(value) } else { try writer.writeNull() }
                }
                try writer.endRecord()
            }
            try writer.finish()
            return try String(contentsOfFile: path, encoding: .utf8)
        }
    }

    @Test func quotesOnlyFieldsThatNeedIt() throws {
        let text = try written([["plain", "with,comma"], ["say \"hi\"", "two\nlines"], ["cr\rhere", "Zürich"]])
        #expect(text == "a,b\nplain,\"with,comma\"\n\"say \"\"hi\"\"\",\"two\nlines\"\n\"cr\rhere\",Zürich\n")
    }

    @Test func writesNullAsNothingAndEmptyStringAsTwoQuotes() throws {
        #expect(try written([[nil, ""], ["x", nil]]) == "a,b\n,\"\"\nx,\n")
    }

    @Test func quotesEveryNonNullFieldWhenAsked() throws {
        #expect(try written([["1", nil]], quoting: .always) == "\"a\",\"b\"\n\"1\",\n")
    }

    @Test func endsLinesWithCRLFWhenAsked() throws {
        #expect(try written([["1", "2"]], lineEnding: .crlf) == "a,b\r\n1,2\r\n")
    }

    @Test func writesTSVWithoutAHeaderWhenTheDialectHasNone() throws {
        var dialect = CSVDialect.tsv
        dialect.hasHeader = false
        #expect(try written([["1", "x\ty"]], dialect: dialect) == "1\t\"x\ty\"\n")
    }

    @Test func missingTrailingFieldsAreWrittenAsNull() throws {
        #expect(try written([["only"]], columns: ["a", "b", "c"]) == "a,b,c\nonly,,\n")
    }

    @Test func roundTripsValuesNullsAndRecordBoundariesThroughTheReader() throws {
        let rows: [[String?]] = [
            ["1", "plain"], ["2", "comma, inside"], ["3", "quote \" inside"], ["4", "multi\r\nline\nfield"],
            ["5", nil], ["6", ""], ["7", "  spaced  "], ["8", "日本語 ✓"],
        ]
        try TestSupport.withTemporaryFolder { folder in
            let path = folder.appendingPathComponent("round.csv").path
            let writer = try CSVWriter(path: path)
            try writer.begin(columns: ["id", "value"])
            for row in rows {
                for value in row {
                    if let value { try writer.writeField(value) } else { try writer.writeNull() }
                }
                try writer.endRecord()
            }
            try writer.finish()
            for size in [1, 2, 3, 7, 64, 256 * 1024] {
                let reader = try CSVReader(path: path, readBufferSize: size)
                #expect(reader.columnNames == ["id", "value"])
                var read: [[String?]] = []
                while let record = try reader.next() { read.append(record.strings) }
                #expect(read == rows, "read buffer \(size)")
            }
        }
    }
}

/// OutputFile: a destination appears only when committed, and an abandoned one leaves nothing behind.
struct OutputFileTests {
    @Test func theDestinationAppearsOnlyOnCommit() throws {
        try TestSupport.withTemporaryFolder { folder in
            let path = folder.appendingPathComponent("out.txt").path
            let output = try OutputFile(path: path, bufferSize: 64)
            for _ in 0..<100 { try output.write("0123456789") }
            try output.flush()
            #expect(!FileManager.default.fileExists(atPath: path))
            try output.commit()
            #expect(try String(contentsOfFile: path, encoding: .utf8) == String(repeating: "0123456789", count: 100))
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["out.txt"])
        }
    }

    @Test func everyByteReachesTheFileAndTheObserverInOrderWhileTheBuffersTakeTurns() throws {
        try TestSupport.withTemporaryFolder { folder in
            let path = folder.appendingPathComponent("out.bin").path
            let output = try OutputFile(path: path, bufferSize: 64)
            let observed = ObservedBytes()
            output.observer = { observed.bytes.append(contentsOf: $0) }
            var expected: [UInt8] = []
            // Pieces smaller than a buffer, one at a time, and larger than a buffer (written past the buffers,
            // after the write in flight), in a pattern that crosses every buffer boundary differently.
            for round in 0..<500 {
                let length = round % 7 == 0 ? 100 + round % 50 : round % 40
                let piece = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ round) }
                try piece.withUnsafeBytes { try output.write($0) }
                try output.write(byte: UInt8(truncatingIfNeeded: round))
                try output.withUnsafeSpace(atLeast: 3) { space in
                    space.storeBytes(of: 0xAB, toByteOffset: 0, as: UInt8.self)
                    return 1
                }
                expected += piece + [UInt8(truncatingIfNeeded: round), 0xAB]
            }
            #expect(output.bytesWritten == expected.count)
            try output.commit()
            #expect(try Array(Data(contentsOf: URL(fileURLWithPath: path))) == expected)
            #expect(observed.bytes == expected)
        }
    }

    @Test func anAbandonedOutputRemovesItsTemporaryFileAndKeepsTheOldDestination() throws {
        try TestSupport.withTemporaryFolder { folder in
            let path = try TestSupport.write(Array("old".utf8), to: "out.txt", in: folder)
            do {
                let output = try OutputFile(path: path)
                try output.write("new, but never committed")
                try output.flush()
            }
            #expect(try String(contentsOfFile: path, encoding: .utf8) == "old")
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["out.txt"])
        }
    }

    @Test func anOutputInAMissingFolderFailsWithItsPath() throws {
        #expect {
            try OutputFile(path: "/nonexistent-folder/out.csv")
        } throws: { error in
            (error as? FerryIOError)?.code == .fileNotFound
                && (error as? FerryIOError)?.file == "/nonexistent-folder/out.csv"
        }
    }
}

/// What an ``OutputFile``'s observer saw: written on the output's writing thread, read after `commit()`.
private final class ObservedBytes: @unchecked Sendable {
    var bytes: [UInt8] = []
}

import FerryTestSupport
import Foundation
import Testing

/// `ferry count` on files large enough to be counted in parts on every core: the count of one read from the start,
/// and for a malformed file the same message, line and column as a read from the start gives.
@Suite("ferry count in parts")
struct CountCommandTests {
    let ferry = BuiltCommand(product: "ferry")

    /// 120,000 records (about 9 MB, so more than one 4 MiB part): every third has a quoted field over two lines,
    /// every fifth a multi-byte character; `lines[n]` is record n's text (0: the header).
    static func lines() -> [String] {
        var lines = ["id,name,note"]
        for index in 1...120_000 {
            let name = index % 3 == 0 ? "\"first line\nsecond line\"" : "name \(index)"
            let note = index % 5 == 0 ? "café ☕" : "note"
            lines.append("\(index),\(name),\(note)")
        }
        return lines
    }

    /// The file's line number of record `record` (0: the header) in `lines`.
    static func lineNumber(of record: Int, in lines: [String]) -> Int {
        1 + lines[..<record].reduce(0) { $0 + 1 + $1.utf8.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) } }
    }

    func write(_ lines: [String], in folder: URL) throws -> String {
        try TestSupport.write(Array((lines.joined(separator: "\n") + "\n").utf8), to: "big.csv", in: folder)
    }

    @Test("A large valid file with quoted line ends and multi-byte characters counts its records")
    func largeValidFile() throws {
        try TestSupport.withTemporaryFolder { folder in
            let path = try write(Self.lines(), in: folder)
            let result = try ferry.run(["count", path])
            #expect(result.status == 0, "\(result.standardError)")
            #expect(result.standardOutput == "120000\n")
        }
    }

    @Test("A bare quote late in a large file is reported at its line and column")
    func bareQuoteLate() throws {
        try TestSupport.withTemporaryFolder { folder in
            var lines = Self.lines()
            lines[100_001] = "100001,bad\"name,note"
            let path = try write(lines, in: folder)
            let result = try ferry.run(["count", path])
            #expect(result.status == 65)
            let line = Self.lineNumber(of: 100_001, in: lines)
            #expect(
                result.standardError.contains("big.csv:\(line):11: quote inside an unquoted field"),
                "\(result.standardError)")
            #expect(result.standardOutput == "")
        }
    }

    @Test("A record of the wrong width late in a large file is reported at its line")
    func wrongWidthLate() throws {
        try TestSupport.withTemporaryFolder { folder in
            var lines = Self.lines()
            lines[90_001] = "90001,name"
            let path = try write(lines, in: folder)
            let result = try ferry.run(["count", path])
            #expect(result.status == 65)
            let line = Self.lineNumber(of: 90_001, in: lines)
            #expect(
                result.standardError.contains("big.csv:\(line):1: expected 3 fields (as in the header), found 2"),
                "\(result.standardError)")
        }
    }

    @Test("Invalid UTF-8 late in a large file is reported at its line and column")
    func invalidUTF8Late() throws {
        try TestSupport.withTemporaryFolder { folder in
            let lines = Self.lines()
            var bytes = Array((lines.joined(separator: "\n") + "\n").utf8)
            // Record 110,000's note is "café ☕": break the é (C3 A9) into C3 28.
            let line = Self.lineNumber(of: 110_000, in: lines)
            let start = lines[..<110_000].reduce(0) { $0 + $1.utf8.count + 1 }
            let column = "110000,name 110000,caf".utf8.count + 1
            bytes[start + column] = 0x28
            let path = try TestSupport.write(bytes, to: "big.csv", in: folder)
            let result = try ferry.run(["count", path])
            #expect(result.status == 65)
            #expect(
                result.standardError.contains("big.csv:\(line):\(column): invalid UTF-8 byte sequence"),
                "\(result.standardError)")
        }
    }
}

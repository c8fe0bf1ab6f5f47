import FerryTestSupport
import Foundation
import Testing

@testable import FerryIO

/// CSVWriter's quoting wherever in a field the character that needs it sits: the writer looks at eight bytes at a
/// time, so each position of a word, the tail after the last whole word and fields past its one-step limit are
/// checked against the rule (quotes when a field holds the delimiter, the quote, CR or LF; quotes doubled).
struct CSVWriterQuotingTests {
    /// The field as the rule writes it, spelled out plainly.
    static func expected(_ field: String, delimiter: Character = ",") -> String {
        guard field.contains(where: { $0 == delimiter || $0 == "\"" || $0 == "\n" || $0 == "\r" || $0 == "\r\n" })
        else { return field }
        return "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// Writes `fields` as one headerless record per field, after a first field `lead` on each line, and returns
    /// the text.
    static func written(_ fields: [String], dialect: CSVDialect) throws -> String {
        try TestSupport.withTemporaryFolder { folder in
            let path = folder.appendingPathComponent("out.csv").path
            var dialect = dialect
            dialect.hasHeader = false
            let writer = try CSVWriter(path: path, dialect: dialect)
            try writer.begin(columns: ["lead", "field"])
            for field in fields {
                try writer.writeField("lead")
                try writer.writeField(field)
                try writer.endRecord()
            }
            try writer.finish()
            return try String(contentsOfFile: path, encoding: .utf8)
        }
    }

    @Test func aCharacterThatNeedsQuotesIsFoundAtEveryPositionOfAFieldOfEveryShortLength() throws {
        var fields: [String] = []
        for length in 1...24 {
            for position in 0..<length {
                for special in [",", "\"", "\n", "\r", "\t"] {
                    var characters = Array(repeating: "x", count: length)
                    characters[position] = special
                    fields.append(characters.joined())
                }
            }
            fields.append(String(repeating: "é", count: length))
        }
        for (dialect, delimiter) in [(CSVDialect.csv, Character(",")), (CSVDialect.tsv, Character("\t"))] {
            let text = try Self.written(fields, dialect: dialect)
            let separator = String(delimiter)
            #expect(text == fields.map { "lead" + separator + Self.expected($0, delimiter: delimiter) + "\n" }.joined())
        }
    }

    @Test func quotesAreDoubledWhereverTheyAreAndHoweverManyFollowEachOther() throws {
        let fields = [
            "\"", "\"\"", "a\"b\"c", "\"starts", "ends\"", "twelve bytes\"\"\"", "comma, then \"quote\" at 20",
            String(repeating: "\"", count: 17),
        ]
        let text = try Self.written(fields, dialect: .csv)
        #expect(text == fields.map { "lead," + Self.expected($0) + "\n" }.joined())
    }

    @Test func aFieldLongerThanTheOneStepLimitIsQuotedTheSameWay() throws {
        let long = String(repeating: "abcdefgh", count: 3000)
        let fields = [long, long + ",", "\"" + long + "\"", long + "\n" + long]
        let text = try Self.written(fields, dialect: .csv)
        #expect(text == fields.map { "lead," + Self.expected($0) + "\n" }.joined())
    }

    @Test func theFirstFieldOfTheFileIsQuotedWhenItStartsWithAByteOrderMarkAndLaterOnesAreNot() throws {
        try TestSupport.withTemporaryFolder { folder in
            let path = folder.appendingPathComponent("out.csv").path
            var dialect = CSVDialect.csv
            dialect.hasHeader = false
            let writer = try CSVWriter(path: path, dialect: dialect)
            try writer.begin(columns: ["a", "b"])
            try writer.writeField("\u{FEFF}x")
            try writer.writeField("\u{FEFF}y")
            try writer.endRecord()
            try writer.writeField("\u{FEFF}z")
            try writer.endRecord()
            try writer.finish()
            #expect(try String(contentsOfFile: path, encoding: .utf8) == "\"\u{FEFF}x\",\u{FEFF}y\n\u{FEFF}z,\n")
        }
    }
}

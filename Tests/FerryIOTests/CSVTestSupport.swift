import Foundation
import Testing

@testable import FerryIO
import FerryTestSupport

/// Everything one read of a CSV input produced: header, records with positions, the error that ended it.
///
/// Two reads of the same input with different read-buffer sizes must give equal results.
struct CSVReadResult: Equatable, CustomStringConvertible {
    var columnNames: [String]?
    var records: [CSVRecordSnapshot]
    var error: CSVErrorSnapshot?
    var repairs: Int

    /// Every record's values, `nil` for null.
    var values: [[String?]] { records.map(\.values) }
    /// Every record's values with null read as the empty string (for corpora that know no null).
    var strings: [[String]] { records.map { $0.values.map { $0 ?? "" } } }

    var description: String {
        var lines = ["columns: \(columnNames.map { "\($0)" } ?? "none"), repairs: \(repairs)"]
        lines += records.map { "  \($0)" }
        if let error { lines.append("  error: \(error)") }
        return lines.joined(separator: "\n")
    }
}

/// A record copied out of the reader: values, null-ness (`nil`), quoting of empty fields, position.
struct CSVRecordSnapshot: Equatable, CustomStringConvertible {
    var values: [String?]
    var quotedEmptyFields: [Bool]
    var position: RecordPosition

    init(_ record: Record) {
        values = record.strings
        quotedEmptyFields = (0..<record.count).map { record[$0].byteCount == 0 && record[$0].isQuoted }
        position = record.position
    }

    var description: String { "\(position): \(values)" }
}

/// The parts of a ``FerryIOError`` a test asserts on.
struct CSVErrorSnapshot: Equatable, CustomStringConvertible {
    var code: FerryIOError.Code
    var line: Int?
    var column: Int?
    var byteOffset: Int?
    var record: Int?

    init(_ error: FerryIOError) {
        code = error.code
        line = error.line
        column = error.column
        byteOffset = error.byteOffset
        record = error.record
    }

    init(_ code: FerryIOError.Code, line: Int?, column: Int?, byteOffset: Int?, record: Int? = nil) {
        self.code = code
        self.line = line
        self.column = column
        self.byteOffset = byteOffset
        self.record = record
    }

    var description: String {
        "\(code) at line \(line.map(String.init) ?? "-"), column \(column.map(String.init) ?? "-"), "
            + "byte \(byteOffset.map(String.init) ?? "-"), record \(record.map(String.init) ?? "-")"
    }
}

enum CSVTestSupport {
    /// The read-buffer sizes every input is read with; `nil` is the reader's default.
    static let bufferSizes: [Int?] = [1, 2, 3, 7, 64, nil]

    /// Reads `path` to its end (or its first error) with one read-buffer size.
    ///
    /// A ``FerryIOError`` ends the result; one more call to `next()` after it must throw the same error again.
    static func read(path: String, dialect: CSVDialect, bufferSize: Int? = nil) throws -> CSVReadResult {
        let reader: CSVReader
        do {
            if let bufferSize {
                reader = try CSVReader(path: path, dialect: dialect, readBufferSize: bufferSize)
            } else {
                reader = try CSVReader(path: path, dialect: dialect)
            }
        } catch let error as FerryIOError {
            return CSVReadResult(columnNames: nil, records: [], error: CSVErrorSnapshot(error), repairs: 0)
        }
        var result = CSVReadResult(columnNames: reader.columnNames, records: [], error: nil, repairs: 0)
        do {
            while let record = try reader.next() {
                result.records.append(CSVRecordSnapshot(record))
            }
            #expect(try reader.next() == nil, "next() after the end must keep returning nil")
        } catch let error as FerryIOError {
            result.error = CSVErrorSnapshot(error)
            // A parse error leaves libcsv mid-record: the reader must not go on past it. (A field-count error
            // is about one record only, and reading may go on after it.)
            if error.code != .fieldCount {
                let again = #expect(throws: FerryIOError.self) { try reader.next() }
                #expect(again.map(CSVErrorSnapshot.init) == result.error, "a parse error is thrown again")
            }
        }
        result.repairs = reader.repairs
        return result
    }

    /// Reads `bytes` (written to a temporary file) with one read-buffer size.
    static func read(_ bytes: [UInt8], dialect: CSVDialect, bufferSize: Int? = nil) throws -> CSVReadResult {
        try TestSupport.withTemporaryFolder { folder in
            let path = try TestSupport.write(bytes, to: "input.csv", in: folder)
            return try read(path: path, dialect: dialect, bufferSize: bufferSize)
        }
    }

    /// Reads `path` with every size in ``bufferSizes``, expects every result to equal the default size's,
    /// and returns that one.
    static func readAtEverySize(
        path: String, dialect: CSVDialect, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> CSVReadResult {
        let reference = try read(path: path, dialect: dialect)
        for size in bufferSizes.compactMap({ $0 }) {
            let result = try read(path: path, dialect: dialect, bufferSize: size)
            #expect(
                result == reference, "read-buffer size \(size) gives\n\(result)\nthe default gives\n\(reference)",
                sourceLocation: sourceLocation)
        }
        return reference
    }

    /// Reads `bytes` with every size in ``bufferSizes`` (see ``readAtEverySize(path:dialect:sourceLocation:)``).
    static func readAtEverySize(
        _ bytes: [UInt8], dialect: CSVDialect, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> CSVReadResult {
        try TestSupport.withTemporaryFolder { folder in
            let path = try TestSupport.write(bytes, to: "input.csv", in: folder)
            return try readAtEverySize(path: path, dialect: dialect, sourceLocation: sourceLocation)
        }
    }

    /// Reads `text`'s UTF-8 with every size in ``bufferSizes``.
    static func readAtEverySize(
        _ text: String, dialect: CSVDialect = .csv, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> CSVReadResult {
        try readAtEverySize(Array(text.utf8), dialect: dialect, sourceLocation: sourceLocation)
    }
}

import FerryTestSupport
import Foundation
import Testing

@testable import FerryIO

/// `CSVReader.keepsFieldBytes` turned off, as `ferry count` reads: the same records, positions, field counts and
/// errors as a full read, at every read-buffer size, with no field's bytes kept.
@Suite("CSVReader: counting without field bytes")
struct CSVReaderCountingTests {
    /// What a read without field bytes gives: each record's field count and position, then the error if any.
    struct Counted: Equatable {
        var columnNames: [String]?
        var fieldCounts: [Int] = []
        var positions: [RecordPosition] = []
        /// Whether every field of a record past the first read (parsed once the bytes were turned off) is empty.
        var valuesAreEmpty = true
        var error: CSVErrorSnapshot?
    }

    func count(_ bytes: [UInt8], dialect: CSVDialect = .csv, bufferSize: Int?) throws -> Counted {
        try TestSupport.withTemporaryFolder { folder in
            let path = try TestSupport.write(bytes, to: "input.csv", in: folder)
            let reader =
                try bufferSize.map { try CSVReader(path: path, dialect: dialect, readBufferSize: $0) }
                ?? CSVReader(path: path, dialect: dialect)
            reader.keepsFieldBytes = false
            var counted = Counted(columnNames: reader.columnNames)
            do {
                while let record = try reader.next() {
                    counted.fieldCounts.append(record.count)
                    counted.positions.append(record.position)
                    // The read that held the header was parsed before the switch: its records keep their bytes.
                    guard record.position.byteOffset >= bufferSize ?? 256 * 1024 else { continue }
                    for index in 0..<record.count where record[index].byteCount != 0 { counted.valuesAreEmpty = false }
                }
            } catch let error as FerryIOError {
                counted.error = CSVErrorSnapshot(error)
            }
            return counted
        }
    }

    @Test("A generated file counts the records a full read finds, at their positions, at every read-buffer size")
    func generatedFile() throws {
        let csv = CSVReaderGeneratedInputTests.generate(count: 4_000, seed: 2_026)
        let full = try CSVTestSupport.readAtEverySize(csv.bytes, dialect: .csv)
        for size in CSVTestSupport.bufferSizes {
            let counted = try count(csv.bytes, bufferSize: size)
            #expect(counted.columnNames == ["a", "b", "c", "d"], "the header keeps its names")
            #expect(counted.fieldCounts == full.values.map(\.count))
            #expect(counted.positions == full.records.map(\.position))
            #expect(counted.valuesAreEmpty)
            #expect(counted.error == nil)
        }
    }

    @Test(
        "Errors are the full read's: a row of the wrong width, a stray quote, an unterminated quote",
        arguments: ["a,b\n1,2\n1,2,3\n", "a,b\n1,2\nx\"y,2\n", "a,b\n1,\"2\n3,4\n"])
    func errors(text: String) throws {
        let full = try CSVTestSupport.readAtEverySize(text, dialect: .csv)
        #expect(full.error != nil)
        for size in CSVTestSupport.bufferSizes {
            let counted = try count(Array(text.utf8), bufferSize: size)
            #expect(counted.error == full.error)
            #expect(counted.positions == full.records.map(\.position))
        }
    }
}

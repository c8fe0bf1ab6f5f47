import Foundation
import FerryTestSupport
import Testing

@testable import FerryIO

/// RecordCopier: columns from a header, from the first JSON record, or from every record's keys.
struct RecordCopierTests {
    func copy(_ ndjson: String, collectingColumns: Bool) throws -> String {
        try TestSupport.withTemporaryFolder { folder in
            let input = try TestSupport.write(Array(ndjson.utf8), to: "in.ndjson", in: folder)
            let output = folder.appendingPathComponent("out.csv").path
            let columns =
                collectingColumns
                ? try RecordCopier.collectFieldNames(from: JSONReader(path: input, layout: .ndjson)) : nil
            let copier = RecordCopier(
                from: try JSONReader(path: input, layout: .ndjson), to: try CSVWriter(path: output), columns: columns)
            _ = try copier.copyAll()
            return try String(contentsOfFile: output, encoding: .utf8)
        }
    }

    @Test func collectedColumnsAreEveryKeyInFirstSeenOrder() throws {
        let text = try copy(#"{"a":1,"b":"x"}"# + "\n" + #"{"c":true,"a":2}"# + "\n", collectingColumns: true)
        #expect(text == "a,b,c\n1,x,\n2,,true\n")
    }

    @Test func withoutCollectingANewKeyIsAnErrorNamingTheRecord() throws {
        #expect {
            try copy(#"{"a":1}"# + "\n" + #"{"a":2,"b":3}"# + "\n", collectingColumns: false)
        } throws: { error in
            let error = error as? FerryIOError
            return error?.code == .unknownColumn && error?.record == 2 && error?.line == 2
        }
    }

    @Test func aFailedCopyLeavesNoOutput() throws {
        try TestSupport.withTemporaryFolder { folder in
            let input = try TestSupport.write(Array("a,b\n1,2\n3\n".utf8), to: "in.csv", in: folder)
            let output = folder.appendingPathComponent("out.csv").path
            let copier = RecordCopier(from: try CSVReader(path: input), to: try CSVWriter(path: output))
            #expect(throws: FerryIOError.self) { try copier.copyAll() }
            #expect(!FileManager.default.fileExists(atPath: output))
        }
    }

    @Test func anEmptyInputWritesOnlyTheHeader() throws {
        try TestSupport.withTemporaryFolder { folder in
            let input = try TestSupport.write(Array("a,b\n".utf8), to: "in.csv", in: folder)
            let output = folder.appendingPathComponent("out.csv").path
            #expect(try RecordCopier(from: try CSVReader(path: input), to: try CSVWriter(path: output)).copyAll() == 0)
            #expect(try String(contentsOfFile: output, encoding: .utf8) == "a,b\n")
        }
    }
}

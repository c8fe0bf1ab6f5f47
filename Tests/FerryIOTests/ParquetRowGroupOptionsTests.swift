import Foundation
import Testing

@testable import FerryIO
import FerryTestSupport

/// `ParquetWriter.Options.rowGroupRows` and `rowGroupBytes`: sizes that leave no room for a row are refused, and the
/// size in mebibytes that `ferry` and pipelines give is the size in bytes.
@Suite("Parquet row group options")
struct ParquetRowGroupOptionsTests {
    static let columns = [ParquetColumn(name: "sku", type: .string, isOptional: false)]

    @Test(
        "A row group size of no rows or no bytes is refused before any file is made",
        arguments: [(0, 1024), (-1, 1024), (10, 0), (10, -5)])
    func emptyRowGroupsAreRefused(rows: Int, bytes: Int) throws {
        try TestSupport.withTemporaryFolder { folder in
            let path = folder.appendingPathComponent("refused.parquet").path
            var options = ParquetWriter.Options()
            options.rowGroupRows = rows
            options.rowGroupBytes = bytes
            do {
                _ = try ParquetWriter(path: path, columns: Self.columns, options: options)
                Issue.record("\(rows) rows and \(bytes) bytes were accepted")
            } catch let error as FerryIOError {
                #expect(error.code == .invalidValue)
                #expect(
                    error.message
                        == "a row group must be allowed at least one row and one byte; the options allow \(rows) rows "
                        + "and \(bytes) bytes")
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
        }
    }

    @Test("rowGroupMebibytes reads and sets rowGroupBytes in MiB, and a size past Int.max bytes sets Int.max")
    func mebibytes() {
        var options = ParquetWriter.Options()
        #expect(options.rowGroupMebibytes == 128)
        options.rowGroupMebibytes = 3
        #expect(options.rowGroupBytes == 3 * 1024 * 1024)
        options.rowGroupBytes = 3 * 1024 * 1024 + 1000
        #expect(options.rowGroupMebibytes == 3)
        options.rowGroupMebibytes = Int.max >> 20
        #expect(options.rowGroupBytes == (Int.max >> 20) << 20)
        options.rowGroupMebibytes = (Int.max >> 20) + 1
        #expect(options.rowGroupBytes == .max)
    }
}

import FerryStore
import Foundation

extension SnapshotRows {
    /// Steps through every row, calling `write` with the statement positioned on it, and `progress` with the rows
    /// written so far after each `batch` rows: the loop every export format shares. Returns the rows written.
    func exportEachRow(
        reportingEvery batch: Int, progress: (@Sendable (Int) -> Void)?, _ write: (SnapshotRows) throws -> Void
    ) throws -> Int {
        var count = 0
        var untilBatchEnd = batch
        while try next() {
            try write(self)
            count += 1
            untilBatchEnd -= 1
            if untilBatchEnd == 0 {
                untilBatchEnd = batch
                progress?(count)
            }
        }
        return count
    }

    /// The bytes of the external blob file at `relative` in `blobFolder`, which a row refers to.
    ///
    /// - Throws: ``StoreError`` `.fileNotFound` when the file is missing, `.openFailed` when it cannot be read.
    static func blobFileBytes(_ relative: String, in blobFolder: String) throws -> Data {
        let path = blobFolder + "/" + relative
        do {
            return try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw StoreError(
                FileManager.default.fileExists(atPath: path) ? .openFailed : .fileNotFound,
                "cannot read the external blob file a row refers to", path: path)
        }
    }
}

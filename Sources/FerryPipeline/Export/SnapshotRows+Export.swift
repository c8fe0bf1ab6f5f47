import FerryStore
import Foundation

extension SnapshotRows {
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

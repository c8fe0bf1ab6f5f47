import FerryStore
import Foundation
import Logging

extension StoreOpening {
    /// A loaded container for the existing store at `path`, for commands that only read (`export`, `snapshot`,
    /// `inspect`, `history`): they never create a store, even with a model file.
    ///
    /// - Throws: ``StoreError`` `.fileNotFound` (exit 66) when there is no file at `path`; as
    ///   ``container(storePath:modelPath:inferred:logger:)`` otherwise.
    static func existingContainer(storePath: String, modelPath: String?, logger: Logger) async throws
        -> PersistentContainer
    {
        guard FileManager.default.fileExists(atPath: storePath) else {
            throw StoreError(.fileNotFound, "there is no store at this path", path: storePath)
        }
        return try await container(storePath: storePath, modelPath: modelPath, logger: logger)
    }
}

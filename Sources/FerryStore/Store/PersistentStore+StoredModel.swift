import FerrySQLite
import Foundation
public import Logging

/// Opening a store without a model file: every store keeps the model it was opened with, as model-file YAML under
/// the `ferry_metadata` key `model_yaml` (see `StoreMetadata.prepare(_:schema:)`).
extension PersistentStore {
    /// The model that the store at `path` keeps, read through a read-only connection; the store is not changed.
    ///
    /// Tools that take no model file (`ferry export`, `ferry inspect`, `ferry history`) read a store's model this
    /// way. The model read back is checked against the store's version hash, so it is the model the store was
    /// created with (with the validation rules and fetch request templates of the model it was last opened with,
    /// which the hash does not cover).
    ///
    /// ```swift
    /// let model = try PersistentStore.storedModel(at: "catalog.sqlite")
    /// let entities = model.entities.map(\.name)
    /// ```
    ///
    /// Blocks the calling thread while it reads; from Swift concurrency, ``open(_:logger:)`` reads off the
    /// cooperative pool.
    /// - Throws: ``StoreError`` with ``StoreError/Code/fileNotFound`` when there is no file at `path`,
    ///   ``StoreError/Code/notAFerryStore`` for a file that is not a Ferry store (another SQLite database, or not
    ///   a database at all), ``StoreError/Code/noStoredModel`` for a store created before stores kept their models
    ///   and not opened with its model since, ``StoreError/Code/invalidStoredModel`` when the kept model does not
    ///   load or its version hash is not the store's, ``StoreError/Code/openFailed`` or ``StoreError/Code/sqlite``.
    public static func storedModel(at path: String) throws -> ManagedObjectModel {
        try checkFileExists(path)
        let connection: Connection
        do {
            connection = try Connection(path: path, mode: .readOnly)
        } catch let error as SQLiteError {
            throw StoreError(.openFailed, "cannot open the store to read its model", path: path, underlying: error)
        }
        return try storedModel(on: connection)
    }

    /// Opens an existing store with the model it keeps (see ``storedModel(at:)``), as
    /// ``open(_:model:logger:)`` would with that model.
    ///
    /// ```swift
    /// let store = try await PersistentStore.open(PersistentStoreDescription(path: "catalog.sqlite"))
    /// let count = try await store.fetch(FetchRequest(entityName: "Product", resultType: .count))
    /// ```
    ///
    /// - Throws: ``StoreError`` as ``storedModel(at:)`` (``StoreError/Code/noStoredModel`` for an in-memory
    ///   description, which is new on every open), then as ``open(_:model:logger:)``.
    public static func open(
        _ description: PersistentStoreDescription, logger: Logger = Logger(label: "ferry.store")
    ) async throws -> PersistentStore {
        let model = try await storedModel(of: description, logger: logger)
        return try await open(description, model: model, logger: logger)
    }

    /// The model kept by the store `description` names, read on a connection of its own off the cooperative pool.
    static func storedModel(of description: PersistentStoreDescription, logger: Logger) async throws
        -> ManagedObjectModel
    {
        guard case .file(let path) = description.location else {
            throw StoreError(
                .noStoredModel, "an in-memory store is new on every open and keeps no model; open it with a model")
        }
        try checkFileExists(path)
        let reader: SerializedConnection
        do {
            reader = try SerializedConnection(
                path: path, mode: .readOnly, busyTimeout: description.busyTimeout, label: "ferry.store.model",
                logger: logger)
        } catch let error as SQLiteError {
            throw StoreError(.openFailed, "cannot open the store to read its model", path: path, underlying: error)
        }
        return try await reader.runAndClose { try PersistentStore.storedModel(on: $0) }
    }

    /// The model kept in the store `connection` reads, checked against the store's version hash.
    static func storedModel(on connection: Connection) throws -> ManagedObjectModel {
        let path = connection.path
        let values: [String: SQLiteValue]?
        do {
            values = try StoreMetadata.readValues(connection)
        } catch let error as SQLiteError where error.code == .notADatabase {
            throw StoreError(.notAFerryStore, "the file is not an SQLite database", path: path, underlying: error)
        } catch let error as SQLiteError {
            throw StoreError(.sqlite, "cannot read the store's metadata", path: path, underlying: error)
        }
        guard let values, let hash = values["model_hash"]?.text else {
            throw StoreError(
                .notAFerryStore, "the file is an SQLite database without Ferry metadata, not a Ferry store",
                path: path)
        }
        guard let text = values[StoreMetadata.modelTextKey]?.text else {
            throw StoreError(
                .noStoredModel,
                "the store keeps no model: it was created before stores kept their models; open it once with its "
                    + "model file (for example with `--model`) and it keeps that model from then on",
                path: path)
        }
        let model: ManagedObjectModel
        do {
            model = try ManagedObjectModel(yaml: text, path: "\(path) (\(StoreMetadata.modelTextKey))")
        } catch let error as ModelError {
            throw StoreError(
                .invalidStoredModel, "the model the store keeps does not load", path: path, underlying: error)
        }
        guard model.versionHash == hash else {
            throw StoreError(
                .invalidStoredModel,
                "the model the store keeps (version hash \(model.versionHash.prefix(12))) is not the model the store "
                    + "was created with (\(hash.prefix(12))); open the store with its model file instead",
                path: path)
        }
        return model
    }

    private static func checkFileExists(_ path: String) throws {
        guard FileManager.default.fileExists(atPath: path) else {
            throw StoreError(
                .fileNotFound, "no such store file; a store is created by opening it with a model",
                path: path)
        }
    }
}

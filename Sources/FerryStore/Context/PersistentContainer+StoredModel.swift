public import Logging

extension PersistentContainer {
    /// A container for an existing store, with the model the store keeps (see
    /// ``PersistentStore/storedModel(at:)``), for tools that take no model file.
    ///
    /// ```swift
    /// let container = try await PersistentContainer(
    ///     name: "Catalog", storeDescription: PersistentStoreDescription(path: "catalog.sqlite"))
    /// try await container.loadPersistentStores()
    /// ```
    ///
    /// The model is read now, on a connection of its own off the cooperative pool; the store opens at
    /// ``loadPersistentStores()`` as usual (which checks the model against the store again).
    /// - Throws: ``StoreError`` as ``PersistentStore/storedModel(at:)``: ``StoreError/Code/fileNotFound``,
    ///   ``StoreError/Code/notAFerryStore``, ``StoreError/Code/noStoredModel`` (also for an in-memory description)
    ///   or ``StoreError/Code/invalidStoredModel``.
    public convenience init(
        name: String, storeDescription: PersistentStoreDescription, logger: Logger = Logger(label: "ferry.store")
    ) async throws {
        let model = try await PersistentStore.storedModel(of: storeDescription, logger: logger)
        self.init(name: name, model: model, storeDescription: storeDescription, logger: logger)
    }
}

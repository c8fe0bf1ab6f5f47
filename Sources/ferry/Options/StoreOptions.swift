import ArgumentParser
import FerryPipeline
import Logging

/// `--store PATH [--model FILE]`: the store a command works on, and the model file to open it with, for every
/// command that opens a store by path (`import`, `export`, `snapshot`, `inspect`, `history`).
struct StoreOptions: ParsableArguments {
    @Option(help: "The store file (ferry import creates it when missing).")
    var store: String

    @Option(
        help: ArgumentHelp(
            "A model file: YAML, an .xcdatamodeld or an .xcdatamodel folder.",
            discussion: """
                Default: the model the store keeps; for a store ferry import creates, one inferred from the first \
                records.
                """))
    var model: String?

    /// Runs `work` with the existing store opened to read (no lock: reads see one consistent snapshot while a run
    /// writes), and closes the store when `work` returns or throws. The store is opened read-only unless
    /// `recordsInStore` (see `BulkSession.openForReading(storePath:model:recordsInStore:logger:)`).
    ///
    /// - Throws: `StoreError` `.fileNotFound` (exit 66) when there is no store at `--store`, `.openFailed` (exit 74)
    ///   when `recordsInStore` and it cannot be written; what `work` throws.
    func reading<Value>(
        recordsInStore: Bool = false, logger: Logger, _ work: (BulkSession) async throws -> Value
    ) async throws -> Value {
        try await BulkSession.openForReading(
            storePath: store, model: model, recordsInStore: recordsInStore, logger: logger
        ).closing(after: work)
    }
}

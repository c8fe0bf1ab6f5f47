public import ArgumentParser
import FerryIO
public import FerryPipeline
import FerryStore
import Foundation

/// `ferry import FILE... --store PATH --entity NAME`: an ad-hoc import, the same engine as a pipeline's import
/// step.
struct ImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import CSV/TSV/NDJSON/JSON records into an entity of a store, in chunks.",
        discussion: """
            Every record read is inserted, updated, unchanged, kept or rejected; read = inserted + updated + \
            unchanged + kept + rejected (kept: its key is stored with other values, which the merge policy kept). Rejected records go to --rejects (in the input's format, with _reason, _file, \
            _record and _line) and to the store's ledger. Each chunk commits with its checkpoint: a killed run \
            leaves exactly its committed chunks, and --resume continues after them. Re-running the same input \
            changes nothing.

            Columns map to attributes of the same name. Without --model, an existing store's own model is used; \
            a new store gets a model inferred from the first records (an identifier such as 00123 stays text).

            Schema contracts (--schema: what input columns the entity lacks do). A column is new when the \
            entity has no attribute or relationship of its name. Into an entity that exists already, the default is \
            freeze: a new column fails the import before anything is written (exit 65), naming every new column and \
            every attribute the input lacks; a renamed column shows as one of each. --schema evolve adds the new \
            columns as optional attributes, typed from their first 1,000 values as a new store's model is, by a \
            migration recorded in the store's model history (ferry inspect lists it); later imports then read them. \
            --schema discard-columns ignores them (the report lists and counts them); --schema discard-rows \
            rejects each record that gives one a value, naming the column in its reason. An import that creates \
            the entity takes its columns from the records, so nothing is new. JSON fields are known only from the \
            records: the first 1,000 of each input are examined before anything is written, and a later record \
            with a field the entity lacks is rejected under freeze and evolve (import the rejects again with \
            --schema evolve to add it). Every run lists the input columns it did not read.

            Merge policies (what a record whose key is stored does): store-trump (default) keeps the stored row \
            (a record with other values counts as kept, with a warning unless --merge-policy is given); \
            object-trump updates the attributes the record gives; error fails the import.

            Examples:
              ferry import SampleData/products.csv --store catalog.sqlite --model Pipelines/catalog.model.yml \\
                  --entity Product --key sku --relationship category=Category.name --create-missing \\
                  --blob photo --rejects rejects.csv
              ferry import updates.ndjson --store catalog.sqlite --entity Product --merge-policy object-trump
              ferry import people.csv --store people.sqlite --entity Person --key id --json
              ferry import events.ndjson --store events.sqlite --entity Event --replace
              ferry import products-v2.csv --store catalog.sqlite --entity Product --schema evolve
            """
    )

    @Argument(help: "Input files, or - for standard input.")
    var files: [String]

    @OptionGroup var location: StoreOptions

    @Option(help: "The entity the records become.")
    var entity: String


    @Option(
        help: ArgumentHelp(
            "The key attribute(s), comma-separated: a uniqueness constraint (default: the entity's first; an "
                + "entity without one has its records appended, or with --replace replacing its rows)."))
    var key: String?

    @Option(help: "The input format: csv, tsv, ndjson or json (default: from each file's extension).")
    var format: RecordFormat?

    @OptionGroup var read: ReadOptions

    @Option(
        name: .customLong("relationship"),
        help: ArgumentHelp(
            "A to-one relationship set from a column holding the destination's key (repeatable).",
            discussion: "COLUMN=Entity.key, such as category=Category.name; the column names the relationship.",
            valueName: "column=Entity.key"))
    var relationships: [String] = []

    @Option(
        help: ArgumentHelp(
            "What a relationship key no stored destination has does: reject the record (default), create the "
                + "destination with just its key, or null (store the record with the relationship empty).",
            valueName: "reject|create|null"))
    var onMissing: RelationshipMapping.OnMissing?

    @Flag(help: "The same as --on-missing create.")
    var createMissing = false

    @Option(
        name: .customLong("blob"),
        help: ArgumentHelp(
            "A column holding a file path (relative to the input) whose bytes fill a binary attribute (repeatable).",
            valueName: "column[=attribute]"))
    var blobs: [String] = []

    @Option(
        name: .customLong("blob-root"),
        help: ArgumentHelp(
            "A folder --blob paths may lead into (repeatable); default: the folder of the input naming them.",
            valueName: "folder"))
    var blobRoots: [String] = []

    @Option(help: "context (managed objects, validation and callbacks) or batch (direct to the store).")
    var mode: ImportSpec.Mode = .batch

    @Option(
        help: """
            error, store-trump (default: a stored row is kept), object-trump, overwrite or rollback (storeTrump and \
            objectTrump as in pipeline files also work).
            """)
    var mergePolicy: MergePolicyArgument?

    @Option(
        help: """
            Records per chunk (and per transaction); default \(ImportSpec.defaultChunkSize(for: .batch)) in batch mode, \
            \(ImportSpec.defaultChunkSize(for: .context)) in context mode.
            """)
    var chunk: Int?

    @Option(
        help: ArgumentHelp(
            "What input columns the entity lacks do: evolve (add them as optional attributes), freeze (fail, the "
                + "default for an entity that exists), discard-columns (ignore them) or discard-rows (reject the "
                + "records that give them a value).",
            valueName: "evolve|freeze|discard-columns|discard-rows"))
    var schema: SchemaContract?

    @Option(help: "Write rejected records to this file (its extension gives the format).")
    var rejects: String?

    @Option(help: "Fail (exit 65) once more than this many records are rejected.")
    var maxRejects: Int?

    @Flag(help: "Delete the entity's rows whose key the inputs do not hold (after importing them).")
    var fullSync = false

    @Flag(
        help: ArgumentHelp(
            "For an entity without a key: the records replace its rows, all at once (a run that fails or is "
                + "killed leaves the old rows), instead of being appended."))
    var replace = false

    @Option(help: "With --full-sync: refuse to delete more than this fraction of the rows (0...1).")
    var maxDelete: Double = 0.1

    @Flag(help: "With --full-sync: delete past the --max-delete guard.")
    var forceSync = false

    @Option(help: "The store's page cache in MiB: more keeps a large uniqueness index in memory.")
    var cacheMb: Int = StoreSettings.defaultCacheMiB

    @OptionGroup var durability: SyncOption

    @Flag(
        help: "Record persistent history (for ferry history and export --since-last); a store that records it keeps on."
    )
    var history = false

    @Flag(help: "Continue the last unfinished import of these files into this entity after its last chunk.")
    var resume = false

    @Flag(help: "Print the report as JSON on standard output.")
    var json = false

    @OptionGroup var logging: LoggingOptions

    func validate() throws {
        if let chunk, chunk < 1 { throw ValidationError("--chunk must be at least 1.") }
        guard cacheMb > 0 else { throw ValidationError("--cache-mb must be at least 1.") }
        if let maxRejects, maxRejects < 0 { throw ValidationError("--max-rejects cannot be negative.") }
        if mode == .batch && mergePolicy?.policy == .overwrite {
            throw ValidationError(
                "--merge-policy overwrite works with --mode context only (in batch mode it would delete stored rows "
                    + "that other rows may refer to); use --mode context or --merge-policy object-trump.")
        }
        for file in files where file != "-" {
            _ = try resolveFormat(format, path: file, option: "--format")
        }
        _ = try relationshipMappings()
        guard (0...1).contains(maxDelete) else { throw ValidationError("--max-delete is a fraction between 0 and 1.") }
        if schema == .evolve && location.model != nil {
            throw ValidationError(
                "--schema evolve adds attributes to the store's own model, but --model names a model file, which says "
                    + "what \(entity) has: add the new columns to the model file (the store is migrated to it), or "
                    + "leave out --model.")
        }
    }

    /// The schema contract: --schema, or freeze for an entity that exists already (in the model file given, or in
    /// the store's model) and discard-columns for one this import creates (its columns come from the records).
    func schemaContract() -> SchemaContract {
        if let schema { return schema }
        let model: ManagedObjectModel?
        if let path = location.model {
            model =
                VersionedModelFolder.isVersionedModel(path)
                ? (try? VersionedModelFolder(contentsOf: path))?.current.model
                : (try? ModelFile(contentsOf: path))?.model
        } else if FileManager.default.fileExists(atPath: location.store) {
            model = try? StoreMigrator(storePath: location.store).storedModel()
        } else {
            model = nil
        }
        return model?.entity(named: entity) != nil ? .freeze : .discardColumns
    }

    /// `--relationship` values as mappings.
    func relationshipMappings() throws -> [RelationshipMapping] {
        try relationships.map { text in
            let parts = text.split(separator: "=", maxSplits: 1).map(String.init)
            let target = parts.count == 2 ? parts[1].split(separator: ".", maxSplits: 1).map(String.init) : []
            guard parts.count == 2, target.count == 2, !parts[0].isEmpty, !target[0].isEmpty, !target[1].isEmpty else {
                throw ValidationError(
                    "--relationship takes column=Entity.key, such as category=Category.name; got '\(text)'.")
            }
            return RelationshipMapping(
                column: parts[0], by: target[1], onMissing: onMissing ?? (createMissing ? .create : .reject),
                destinationEntity: target[0])
        }
    }

    func run() async throws {
        let logger = logging.bootstrap()
        let stop = SignalStop.install()
        let result = try await reportingFailures(
            { () async throws -> ImportResult in
                var spec = ImportSpec(entity: entity, sources: files)
                spec.format = format
                if let format {
                    spec.dialect = try read.dialect(for: format)
                } else if let first = files.first,
                    let inferred = RecordFormat(inferringFrom: first)
                {
                    spec.dialect = try read.dialect(for: inferred)
                }
                spec.jsonOptions = JSONReaderOptions(flattensNestedObjects: read.flatten)
                spec.keys =
                    key.map { $0.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) } } ?? []
                spec.relationships = try relationshipMappings()
                spec.blobs = blobs.map { text in
                    let parts = text.split(separator: "=", maxSplits: 1).map(String.init)
                    return BlobMapping(column: parts[0], attribute: parts.count == 2 ? parts[1] : nil)
                }
                spec.blobRoots = blobRoots
                spec.mode = mode
                if let mergePolicy { spec.mergePolicy = mergePolicy.policy }
                spec.chunkSize = chunk
                spec.rejectsPath = rejects
                spec.maxRejects = maxRejects.map { .count($0) }
                if fullSync { spec.fullSync = FullSync(maxDeleteFraction: maxDelete, force: forceSync) }
                spec.replacesRows = replace
                spec.schema = schemaContract()
                var settings = StoreSettings()
                settings.cacheMiB = cacheMb
                settings.synchronous = durability.synchronous
                settings.recordsHistory = history
                settings.migrationAppliedBy = "ferry import"
                settings.adHocEntity = entity
                if spec.schema == .evolve { settings.importsToEvolve = [spec] }
                let inferenceSpec = spec
                let session = try await BulkSession.open(
                    storePath: location.store, model: location.model, settings: settings,
                    inferredModel: { try ModelInference.model(entity: entity, keys: inferenceSpec.keys, spec: inferenceSpec) },
                    logger: logger)
                return try await session.closing { session in
                    let model = session.container.model
                    // An entity the model lacks is a wrong argument (64), as for ferry export.
                    guard model.entity(named: entity) != nil else {
                        throw ValidationError(
                            "--entity: the model has no entity '\(entity)' (it has "
                                + model.entities.map(\.name).joined(separator: ", ") + ")")
                    }
                    let progress = ProgressLine(quiet: logging.quiet)
                    defer { progress.clear() }
                    return try await session.importRecords(
                        spec, name: "import \(entity) " + files.joined(separator: " "), resume: resume, stop: stop
                    ) { progress.update($0) }
                }
            },
            failed: { error, code in
                if json { FailureReport(error, code).print() }
            })
        if json {
            print(RunReport.json(result), terminator: "")
        } else if !logging.quiet {
            printError(RunReport.summary(result))
        }
    }
}

/// A `--merge-policy` value, in any spelling that pipeline files accept (``MergePolicySpelling``).
struct MergePolicyArgument: ExpressibleByArgument {
    let policy: MergePolicy

    init?(argument: String) {
        guard let policy = MergePolicySpelling.policy(named: argument) else { return nil }
        self.policy = policy
    }

    static var allValueStrings: [String] { MergePolicySpelling.choices.map(\.0) }
}

extension ImportSpec.Mode: ExpressibleByArgument {}
extension SchemaContract: ExpressibleByArgument {}
extension RelationshipMapping.OnMissing: ExpressibleByArgument {}

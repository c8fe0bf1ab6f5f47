import FerryIO
import FerryStore
import Foundation
import Yams

/// Reads a pipeline file into a ``PipelineFile``, gathering every problem of form with its line and key path.
///
/// Top level: `store` (required), `model`, `history` (true/false), `steps` (a list; each item has exactly one of
/// `import`, `batchUpdate`, `batchDelete`, `export`, `snapshot`, `publish`). Relative paths are relative to the pipeline
/// file's folder. The keys of each step are listed in `importKeys` and the other `…Keys`.
public struct PipelineFileParser {
    static let topKeys = ["store", "model", "history", "migration", "steps"]
    static let stepKinds = ["import", "batchUpdate", "batchDelete", "export", "snapshot", "publish"]
    static let importKeys = [
        "name", "source", "format", "delimiter", "header", "null", "lenient", "flatten", "entity", "key", "fields",
        "relationships", "blobs", "blobRoots", "constants", "trim", "booleans", "dateFormats", "arraySeparator", "mode",
        "mergePolicy", "chunkSize", "rejects", "maxRejects", "fullSync", "replace", "schema",
    ]
    static let batchUpdateKeys = ["name", "entity", "where", "set"]
    static let batchDeleteKeys = ["name", "entity", "where"]
    static let exportKeys = [
        "name", "entity", "where", "sort", "fields", "format", "to", "fetchBatchSize", "sinceLast", "keep",
        "partitionBy",
    ] + parquetKeys
    static let snapshotKeys = ["name", "to", "replace", "keep", "format"] + parquetKeys
    /// How an export or snapshot step lays out Parquet files (see ``parquetOptions(_:_:writesParquet:hint:)``).
    static let parquetKeys = ["compression", "zstdLevel", "rowGroupRows", "rowGroupMiB", "uuidsAsText"]

    var reader: YAMLReader
    /// The folder relative paths start from.
    let folder: URL

    /// Parses the pipeline file at `path`.
    ///
    /// - Throws: ``PipelineFileError`` with every problem found; ``PipelineError`` `.inputMissing` when the file
    ///   cannot be read.
    public static func parse(contentsOf path: String) throws -> PipelineFile {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw PipelineError(.inputMissing, "cannot read the pipeline file \(path)")
        }
        return try parse(yaml: String(decoding: data, as: UTF8.self), path: path)
    }

    /// Parses pipeline YAML; `path` names it in messages and anchors relative paths.
    ///
    /// - Throws: ``PipelineFileError``.
    public static func parse(yaml: String, path: String) throws -> PipelineFile {
        var parser = PipelineFileParser(
            reader: YAMLReader(file: path), folder: URL(fileURLWithPath: path).deletingLastPathComponent())
        let root: Node?
        do {
            root = try Yams.compose(yaml: yaml)
        } catch let error as YamlError {
            let problem = YAMLSyntaxProblem(error, yaml: yaml)
            throw PipelineFileError(issues: [
                PipelineIssue(file: path, line: problem.line, keyPath: "", message: problem.message)
            ])
        } catch {
            throw PipelineFileError(issues: [
                PipelineIssue(file: path, line: nil, keyPath: "", message: "not valid YAML: \(error)")
            ])
        }
        let file = parser.parse(root, path: path)
        guard parser.reader.issues.isEmpty, let file else {
            throw PipelineFileError(issues: parser.reader.issues)
        }
        return file
    }

    private mutating func parse(_ root: Node?, path: String) -> PipelineFile? {
        guard let root, let top = reader.mapping(root, "", allowed: Self.topKeys) else {
            if root == nil { reader.report(nil, "", "the pipeline file is empty; expected store: and steps:") }
            return nil
        }
        let fields = Dictionary(top.map { ($0.key, $0.value) }) { first, _ in first }
        guard let storeNode = fields["store"], let store = reader.string(storeNode, "store") else {
            if fields["store"] == nil { reader.report(root, "store", "missing: the store file the steps work on") }
            return nil
        }
        var file = PipelineFile(
            path: path, store: resolve(store),
            model: fields["model"].flatMap { reader.string($0, "model") }.map(resolve))
        if let node = fields["history"] { file.recordsHistory = reader.bool(node, "history") ?? false }
        if let node = fields["migration"] { migration(node, into: &file) }
        guard let stepsNode = fields["steps"], case .sequence(let steps) = stepsNode, !steps.isEmpty else {
            reader.report(fields["steps"] ?? root, "steps", "expected a list of steps (- import: …)")
            return nil
        }
        var names: Set<String> = []
        for (index, node) in steps.enumerated() {
            let keyPath = "steps[\(index)]"
            guard let pairs = reader.mapping(node, keyPath, allowed: Self.stepKinds) else { continue }
            guard pairs.count == 1, let pair = pairs.first else {
                reader.report(node, keyPath, "each step has exactly one of \(YAMLReader.list(Self.stepKinds))")
                continue
            }
            guard
                let step = parseStep(
                    pair.key, pair.value, line: pair.keyNode.mark?.line ?? 0,
                    keyPath: YAMLReader.join(keyPath, pair.key))
            else {
                continue
            }
            if file.model != nil, case .importRecords(let spec) = step.action, spec.schema == .evolve {
                reader.report(
                    node, YAMLReader.join(keyPath, pair.key) + ".schema",
                    "evolve adds attributes to the store's own model, but this pipeline names a model file, which says "
                        + "what \(spec.entity) has: add the new columns to the model file (the store is migrated to "
                        + "it), or leave out model:")
            }
            if !names.insert(step.name).inserted {
                reader.report(node, keyPath, "another step is named '\(step.name)'; give this one a name: of its own")
            }
            file.steps.append(step)
        }
        return file
    }

    private mutating func parseStep(_ kind: String, _ node: Node, line: Int, keyPath: String) -> PipelineStep? {
        switch kind {
        case "import":
            guard let fields = fields(node, keyPath, Self.importKeys) else { return nil }
            guard let spec = parseImport(fields, node: node, keyPath: keyPath) else { return nil }
            let name = fields["name"].flatMap { reader.string($0, keyPath + ".name") } ?? "import \(spec.entity)"
            return PipelineStep(name: name, line: line, action: .importRecords(spec))
        case "batchUpdate":
            guard let fields = fields(node, keyPath, Self.batchUpdateKeys),
                let entity = required(fields, "entity", node, keyPath)
            else { return nil }
            var set: [(attribute: String, value: String)] = []
            if let setNode = fields["set"], let pairs = reader.mapping(setNode, keyPath + ".set") {
                for pair in pairs {
                    if let value = reader.string(pair.value, keyPath + ".set." + pair.key) {
                        set.append((pair.key, value))
                    }
                }
            }
            if set.isEmpty { reader.report(node, keyPath + ".set", "missing: attribute: value pairs to set") }
            let step = BatchUpdateStep(
                entity: entity, predicate: fields["where"].flatMap { reader.string($0, keyPath + ".where") }, set: set)
            let name = fields["name"].flatMap { reader.string($0, keyPath + ".name") } ?? "batchUpdate \(entity)"
            return PipelineStep(name: name, line: line, action: .batchUpdate(step))
        case "batchDelete":
            guard let fields = fields(node, keyPath, Self.batchDeleteKeys),
                let entity = required(fields, "entity", node, keyPath)
            else { return nil }
            let step = BatchDeleteStep(
                entity: entity, predicate: fields["where"].flatMap { reader.string($0, keyPath + ".where") })
            let name = fields["name"].flatMap { reader.string($0, keyPath + ".name") } ?? "batchDelete \(entity)"
            return PipelineStep(name: name, line: line, action: .batchDelete(step))
        case "export":
            guard let fields = fields(node, keyPath, Self.exportKeys),
                let entity = required(fields, "entity", node, keyPath), let to = required(fields, "to", node, keyPath)
            else { return nil }
            let output = to == "-" ? "-" : resolve(to)
            var step = ExportSpec(
                entity: entity, output: output, format: fields["format"].flatMap { format($0, keyPath + ".format") })
            step.predicate = fields["where"].flatMap { reader.string($0, keyPath + ".where") }
            if let sortNode = fields["sort"], let keys = reader.strings(sortNode, keyPath + ".sort") {
                do {
                    step.sort = try ExportSpec.sortDescriptors(parsing: keys.joined(separator: ","))
                } catch {
                    reader.report(sortNode, keyPath + ".sort", "\(error); expected keys such as sku or -price")
                }
            }
            step.fields = fields["fields"].flatMap { reader.strings($0, keyPath + ".fields") }
            if let node = fields["fetchBatchSize"] {
                step.fetchBatchSize = reader.int(node, keyPath + ".fetchBatchSize", minimum: 1) ?? 1000
            }
            step.sinceLast = fields["sinceLast"].flatMap { reader.string($0, keyPath + ".sinceLast") }
            step.partitionBy = fields["partitionBy"].flatMap { reader.strings($0, keyPath + ".partitionBy") } ?? []
            step.parquet = parquetOptions(
                fields, keyPath, writesParquet: step.format == .parquet,
                hint: "give format: parquet or a to: ending in .parquet")
            if !step.partitionBy.isEmpty && (step.format != .parquet || output == "-") {
                reader.report(
                    node, keyPath + ".partitionBy", "partitionBy writes a Parquet dataset folder; give format: parquet "
                        + "and a folder in to:")
            }
            step.keep = outputTemplate(output, keep: fields["keep"], node: node, keyPath: keyPath)
            if fields["format"] == nil && output != "-" && RecordFormat(inferringFrom: output) == nil {
                reader.report(
                    node, keyPath + ".to", "cannot tell the format from '\(to)'; add format: csv|tsv|ndjson|json|parquet")
            }
            let name = fields["name"].flatMap { reader.string($0, keyPath + ".name") } ?? "export \(entity)"
            return PipelineStep(name: name, line: line, action: .export(step))
        case "publish":
            return parsePublish(node, line: line, keyPath: keyPath)
        default:
            guard let fields = fields(node, keyPath, Self.snapshotKeys), let to = required(fields, "to", node, keyPath)
            else { return nil }
            let name = fields["name"].flatMap { reader.string($0, keyPath + ".name") } ?? "snapshot"
            var step = SnapshotStep(output: resolve(to))
            step.replacesExisting = fields["replace"].flatMap { reader.bool($0, keyPath + ".replace") } ?? false
            step.writesParquet =
                fields["format"].flatMap {
                    reader.choice($0, keyPath + ".format", [("sqlite", false), ("parquet", true)])
                } ?? false
            step.keep = outputTemplate(step.output, keep: fields["keep"], node: node, keyPath: keyPath)
            step.parquet = parquetOptions(
                fields, keyPath, writesParquet: step.writesParquet, hint: "give format: parquet")
            return PipelineStep(name: name, line: line, action: .snapshot(step))
        }
    }

    // MARK: Helpers

    /// The Parquet writer's options a step's ``parquetKeys`` give, the writer's defaults for the others; each key
    /// given is an issue, with `hint`, when the step writes no Parquet (`writesParquet` false), rather than ignored.
    mutating func parquetOptions(_ fields: [String: Node], _ keyPath: String, writesParquet: Bool, hint: String)
        -> ParquetWriter.Options
    {
        var options = ParquetWriter.Options()
        guard writesParquet else {
            for key in Self.parquetKeys {
                guard let node = fields[key] else { continue }
                reader.report(node, YAMLReader.join(keyPath, key), "\(key) lays out Parquet files only; \(hint)")
            }
            return options
        }
        if let node = fields["compression"],
            let compression = reader.choice(
                node, keyPath + ".compression", ParquetCompression.allCases.map { ($0.rawValue, $0) })
        {
            options.compression = compression
        }
        if let node = fields["zstdLevel"] {
            if let level = node.int, ParquetWriter.Options.zstdLevels.contains(level) {
                options.zstdLevel = level
            } else {
                reader.report(
                    node, keyPath + ".zstdLevel",
                    "expected a Zstandard level from 1 to 22, found '\(node.string ?? "…")'")
            }
        }
        if let node = fields["rowGroupRows"], let rows = reader.int(node, keyPath + ".rowGroupRows", minimum: 1) {
            options.rowGroupRows = rows
        }
        if let node = fields["rowGroupMiB"], let mebibytes = reader.int(node, keyPath + ".rowGroupMiB", minimum: 1) {
            options.rowGroupMebibytes = mebibytes
        }
        if let node = fields["uuidsAsText"], let asText = reader.bool(node, keyPath + ".uuidsAsText") {
            options.writesUUIDsAsText = asText
        }
        return options
    }

    /// Checks an output path that may name the run, and returns its `keep:` count.
    mutating func outputTemplate(_ output: String, keep node: Node?, node step: Node, keyPath: String) -> Int? {
        let template = OutputPathTemplate(output)
        if let problem = template.problem { reader.report(step, keyPath + ".to", problem) }
        guard let node else { return nil }
        let keep = reader.int(node, keyPath + ".keep", minimum: 1)
        if keep != nil && !template.isTemplated {
            reader.report(
                node, keyPath + ".keep",
                "keep needs an output path that names the run ({date}, {time} or {run}), such as out/catalog-{date}")
        }
        return keep
    }

    mutating func fields(_ node: Node, _ keyPath: String, _ allowed: [String]) -> [String: Node]? {
        guard let pairs = reader.mapping(node, keyPath, allowed: allowed) else { return nil }
        return Dictionary(pairs.map { ($0.key, $0.value) }) { first, _ in first }
    }

    mutating func required(_ fields: [String: Node], _ key: String, _ node: Node, _ keyPath: String) -> String? {
        guard let value = fields[key] else {
            reader.report(node, YAMLReader.join(keyPath, key), "missing")
            return nil
        }
        return reader.string(value, YAMLReader.join(keyPath, key))
    }

    mutating func format(_ node: Node, _ keyPath: String) -> RecordFormat? {
        reader.choice(node, keyPath, RecordFormat.allCases.map { ($0.rawValue, $0) })
    }

    /// `path` relative to the pipeline file's folder (absolute paths and `-` as they are).
    func resolve(_ path: String) -> String {
        if path == "-" || path.hasPrefix("/") { return path }
        return folder.appendingPathComponent(path).standardizedFileURL.path
    }

    /// `migration: automatic | manual`, or `migration: { mode: automatic | manual, dateFormats: [...] }` naming the
    /// formats a text attribute turned date is read in (not the import steps' formats).
    private mutating func migration(_ node: Node, into file: inout PipelineFile) {
        var modeNode: Node? = node
        if case .mapping = node {
            let fields = Dictionary(
                (reader.mapping(node, "migration", allowed: ["mode", "dateFormats"]) ?? []).map { ($0.key, $0.value) }
            ) { first, _ in first }
            modeNode = fields["mode"]
            if let formats = fields["dateFormats"] {
                file.migrationDateFormats = dateFormats(formats, "migration.dateFormats") ?? [.iso8601]
            }
        }
        guard let modeNode, let mode = reader.string(modeNode, "migration.mode") else { return }
        switch mode {
        case "automatic": file.migratesAutomatically = true
        case "manual": file.migratesAutomatically = false
        default: reader.report(modeNode, "migration", "expected automatic or manual, not '\(mode)'")
        }
    }
}

import FerryIO
import FerryStore
import Foundation
import Yams

extension PipelineFileParser {
    static let relationshipKeys = ["entity", "by", "column", "onMissing", "createMissing"]
    static let fieldKeys = ["attribute", "dateFormats", "default"]
    static let fullSyncKeys = ["scope", "maxDeleteFraction", "force"]

    /// An import step's spec. Keys: `source` (path, glob or list; `-` for standard input), `format`,
    /// `delimiter`, `header`, `null` (tokens), `lenient`, `flatten`, `entity`, `key`, `fields` (column: attribute,
    /// or column: { attribute, dateFormats, default }), `relationships` (relationship: { entity, by, column,
    /// createMissing }), `blobs` (column: attribute), `blobRoots` (folders blob files may be read from;
    /// default: the input's), `constants` (attribute: runID | runTime | text), `trim`,
    /// `booleans` ({ true: [...], false: [...] }), `dateFormats`, `arraySeparator`, `mode` (batch | context),
    /// `mergePolicy` (storeTrump | objectTrump | error | overwrite | rollback), `chunkSize`, `rejects` (path),
    /// `maxRejects` (a count, or a rate such as "5%"), `fullSync` ({ scope, maxDeleteFraction, force }), `replace`
    /// (true: the records replace a keyless entity's rows, see ``ImportSpec/replacesRows``), `schema` (evolve | freeze |
    /// discard-columns | discard-rows: what input columns the entity lacks do, see ``SchemaContract``; default
    /// discard-columns).
    mutating func parseImport(_ fields: [String: Node], node: Node, keyPath: String) -> ImportSpec? {
        guard let entity = required(fields, "entity", node, keyPath) else { return nil }
        guard let sourceNode = fields["source"], let patterns = reader.strings(sourceNode, keyPath + ".source") else {
            if fields["source"] == nil { reader.report(node, keyPath + ".source", "missing: the file(s) to import") }
            return nil
        }
        var sources: [String] = []
        for pattern in patterns {
            let expanded = pattern == "-" ? ["-"] : Glob.expand(resolve(pattern))
            if expanded.isEmpty {
                reader.report(
                    sourceNode, keyPath + ".source", "no file matches '\(pattern)' (looked for \(resolve(pattern)))",
                    isMissingInput: true)
            }
            sources += expanded
        }
        var spec = ImportSpec(entity: entity, sources: sources)
        spec.format = fields["format"].flatMap { format($0, keyPath + ".format") }
        spec.dialect = dialect(
            fields, format: spec.format ?? sources.first.flatMap(RecordFormat.init(inferringFrom:)), keyPath: keyPath)
        if let node = fields["flatten"] {
            spec.jsonOptions.flattensNestedObjects = reader.bool(node, keyPath + ".flatten") ?? false
        }
        if let node = fields["key"] { spec.keys = reader.strings(node, keyPath + ".key") ?? [] }
        if let node = fields["fields"], let pairs = reader.mapping(node, keyPath + ".fields") {
            spec.fields = pairs.compactMap { field($0.key, $0.value, keyPath: keyPath + ".fields." + $0.key) }
        }
        if let node = fields["relationships"], let pairs = reader.mapping(node, keyPath + ".relationships") {
            spec.relationships = pairs.compactMap {
                relationship($0.key, $0.value, keyPath: keyPath + ".relationships." + $0.key)
            }
        }
        if let node = fields["blobs"], let pairs = reader.mapping(node, keyPath + ".blobs") {
            spec.blobs = pairs.compactMap { pair in
                reader.string(pair.value, keyPath + ".blobs." + pair.key).map {
                    BlobMapping(column: pair.key, attribute: $0)
                }
            }
        }
        if let node = fields["blobRoots"], let roots = reader.strings(node, keyPath + ".blobRoots") {
            spec.blobRoots = roots.map { resolve($0) }
        }
        if let node = fields["constants"], let pairs = reader.mapping(node, keyPath + ".constants") {
            spec.constants = pairs.compactMap { pair in
                reader.string(pair.value, keyPath + ".constants." + pair.key).map { text in
                    let value: ConstantMapping.Value =
                        switch text {
                        case "runID": .runID
                        case "runTime": .runTime
                        default: .text(text)
                        }
                    return ConstantMapping(attribute: pair.key, value: value)
                }
            }
        }
        spec.conversion = conversion(fields, keyPath: keyPath)
        if let node = fields["mode"] {
            spec.mode = reader.choice(node, keyPath + ".mode", [("batch", .batch), ("context", .context)]) ?? .batch
        }
        if let node = fields["mergePolicy"] {
            spec.mergePolicy =
                reader.choice(node, keyPath + ".mergePolicy", MergePolicySpelling.choices) ?? spec.mergePolicy
        }
        if let node = fields["chunkSize"] {
            spec.chunkSize = reader.int(node, keyPath + ".chunkSize", minimum: 1)
        }
        if let node = fields["rejects"], let path = reader.string(node, keyPath + ".rejects") {
            spec.rejectsPath = resolve(path)
        }
        if let node = fields["maxRejects"] { spec.maxRejects = rejectLimit(node, keyPath + ".maxRejects") }
        if let node = fields["fullSync"] { spec.fullSync = fullSync(node, keyPath + ".fullSync") }
        if let node = fields["replace"] { spec.replacesRows = reader.bool(node, keyPath + ".replace") ?? false }
        if let node = fields["schema"] {
            spec.schema = reader.choice(node, keyPath + ".schema", SchemaContract.spellings) ?? spec.schema
        }
        return spec
    }

    private mutating func field(_ column: String, _ node: Node, keyPath: String) -> FieldMapping? {
        if case .scalar(let scalar) = node { return FieldMapping(column: column, attribute: scalar.string) }
        guard let pairs = reader.mapping(node, keyPath, allowed: Self.fieldKeys) else { return nil }
        let fields = Dictionary(pairs.map { ($0.key, $0.value) }) { first, _ in first }
        return FieldMapping(
            column: column, attribute: fields["attribute"].flatMap { reader.string($0, keyPath + ".attribute") },
            dateFormats: fields["dateFormats"].flatMap { dateFormats($0, keyPath + ".dateFormats") },
            defaultText: fields["default"].flatMap { reader.string($0, keyPath + ".default") })
    }

    private mutating func relationship(_ name: String, _ node: Node, keyPath: String) -> RelationshipMapping? {
        guard let pairs = reader.mapping(node, keyPath, allowed: Self.relationshipKeys) else { return nil }
        let fields = Dictionary(pairs.map { ($0.key, $0.value) }) { first, _ in first }
        guard let by = required(fields, "by", node, keyPath) else { return nil }
        return RelationshipMapping(
            column: fields["column"].flatMap { reader.string($0, keyPath + ".column") } ?? name, relationship: name,
            by: by,
            createsMissing: fields["createMissing"].flatMap { reader.bool($0, keyPath + ".createMissing") } ?? false,
            onMissing: fields["onMissing"].flatMap {
                reader.choice(
                    $0, keyPath + ".onMissing", RelationshipMapping.OnMissing.allCases.map { ($0.rawValue, $0) })
            },
            destinationEntity: fields["entity"].flatMap { reader.string($0, keyPath + ".entity") })
    }

    private mutating func dialect(_ fields: [String: Node], format: RecordFormat?, keyPath: String) -> CSVDialect? {
        guard var dialect = format?.defaultDialect else { return nil }
        if let node = fields["delimiter"], let text = reader.string(node, keyPath + ".delimiter") {
            if text == "tab" || text == "\t" {
                dialect.delimiter = UInt8(ascii: "\t")
            } else if text.utf8.count == 1, let byte = text.utf8.first, byte != UInt8(ascii: "\"") {
                dialect.delimiter = byte
            } else {
                reader.report(node, keyPath + ".delimiter", "expected one ASCII character other than a quote, or tab")
            }
        }
        if let node = fields["header"] { dialect.hasHeader = reader.bool(node, keyPath + ".header") ?? true }
        if let node = fields["null"], let tokens = reader.strings(node, keyPath + ".null") {
            dialect.nullTokens = tokens
        }
        if let node = fields["lenient"] { dialect.isStrict = !(reader.bool(node, keyPath + ".lenient") ?? false) }
        return dialect
    }

    private mutating func conversion(_ fields: [String: Node], keyPath: String) -> ConversionOptions {
        var options = ConversionOptions()
        if let node = fields["trim"] { options.trimsStrings = reader.bool(node, keyPath + ".trim") ?? false }
        if let node = fields["booleans"],
            let pairs = reader.mapping(node, keyPath + ".booleans", allowed: ["true", "false"])
        {
            for pair in pairs {
                guard let tokens = reader.strings(pair.value, keyPath + ".booleans." + pair.key) else { continue }
                if pair.key == "true" { options.trueTokens = tokens } else { options.falseTokens = tokens }
            }
        }
        if let node = fields["dateFormats"], let formats = dateFormats(node, keyPath + ".dateFormats") {
            options.dateFormats = formats
        }
        if let node = fields["arraySeparator"] {
            options.arraySeparator = reader.string(node, keyPath + ".arraySeparator")
        }
        if let problem = options.problem {
            reader.report(fields["booleans"] ?? fields["dateFormats"], keyPath, problem)
        }
        return options
    }

    mutating func dateFormats(_ node: Node, _ keyPath: String) -> [DateFormat]? {
        guard let texts = reader.strings(node, keyPath) else { return nil }
        var formats: [DateFormat] = []
        for text in texts {
            do {
                formats.append(try DateFormat(parsing: text))
            } catch {
                reader.report(
                    node, keyPath,
                    "'\(text)': \(error); expected iso8601, epochSeconds, epochMilliseconds or a pattern such as dd/MM/yyyy"
                )
            }
        }
        return formats
    }

    private mutating func rejectLimit(_ node: Node, _ keyPath: String) -> RejectLimit? {
        if let count = node.int, count >= 0 { return .count(count) }
        if let text = node.string, text.hasSuffix("%"), let percent = Double(text.dropLast()),
            (0...100).contains(percent)
        {
            return .rate(percent / 100)
        }
        reader.report(node, keyPath, "expected a count (10) or a percentage of the records read (\"5%\")")
        return nil
    }

    private mutating func fullSync(_ node: Node, _ keyPath: String) -> FullSync? {
        if let enabled = node.bool { return enabled ? FullSync() : nil }
        guard let pairs = reader.mapping(node, keyPath, allowed: Self.fullSyncKeys) else { return nil }
        let fields = Dictionary(pairs.map { ($0.key, $0.value) }) { first, _ in first }
        var sync = FullSync(scope: fields["scope"].flatMap { reader.string($0, keyPath + ".scope") })
        if let node = fields["maxDeleteFraction"], let fraction = reader.double(node, keyPath + ".maxDeleteFraction") {
            if (0...1).contains(fraction) {
                sync.maxDeleteFraction = fraction
            } else {
                reader.report(node, keyPath + ".maxDeleteFraction", "expected a fraction between 0 and 1")
            }
        }
        if let node = fields["force"] { sync.force = reader.bool(node, keyPath + ".force") ?? false }
        return sync
    }
}

import FerryIO
import FerryStore

/// How an import step's inputs differ from its entity, before a record is written: the new columns (no mapping
/// reads them, the entity has no attribute or relationship of their name, and they do not start with `_`), each typed from a sample of its
/// values, and the attributes no input column fills. What ``SchemaContract`` judges.
///
/// A CSV or TSV input is judged by its header (and, to type new columns, its first ``ModelInference/sampleSize``
/// records); a JSON input by its first ``ModelInference/sampleSize`` records, since its fields are known only from
/// them. Standard input cannot be read twice and is not examined: its records are judged one by one as they come
/// (see `NewColumnCheck`). Malformed records are skipped, as ``ModelInference`` skips them; the import rejects them.
struct SchemaDrift {
    /// An input column the entity lacks.
    struct NewColumn {
        /// The column's name in the input.
        var name: String
        /// The first input that has it.
        var input: String
        /// What its sampled values say about its type.
        var inference = TypeInference()

        /// The attribute it becomes: its name (the member names of an object of records, `_key`, become `key`).
        var attribute: String { MemberNameColumn.attribute(forColumn: name) }
    }

    /// The entity the step imports into.
    let entity: String
    /// The new columns, in the order they first appear.
    private(set) var newColumns: [NewColumn] = []
    /// The entity's stored attributes that no input column fills, in the model's order.
    private(set) var missingColumns: [String] = []

    /// The drift of `spec`'s inputs from `model`'s entity. With `typesNewColumns`, CSV inputs are sampled too, to
    /// type their new columns (JSON inputs always are).
    ///
    /// - Throws: ``PipelineError`` `.invalidSpec` when the spec does not fit the model; ``FerryIOError`` when an
    ///   input cannot be read.
    init(spec: ImportSpec, model: ManagedObjectModel, typesNewColumns: Bool) throws {
        entity = spec.entity
        var filled: Set<String> = []
        var settable: [String] = []
        for (index, path) in spec.sources.enumerated() where path != "-" {
            guard let format = spec.format ?? RecordFormat(inferringFrom: path) else { continue }
            let header = try spec.header(ofInput: index)
            let plan = try ImportPlan(
                spec: spec, model: model, inputColumns: header,
                storesMemberNames: MemberNameColumn.isStored(in: spec, input: index, header: header))
            let known = plan.knownNames
            settable = model.allAttributes(of: spec.entity).filter { $0.isStored && $0.derivation == nil }.map(\.name)
            // The plan's column (attribute or relationship) each source name fills.
            var fills: [String: String] = [:]
            for column in plan.columns {
                switch column.source {
                case .field(let name, _, _), .relationshipKey(let name, _), .blobPath(let name):
                    fills[name] = column.name
                case .constant: filled.insert(column.name)
                }
            }
            if let header {
                for name in header {
                    if let attribute = fills[name] { filled.insert(attribute) }
                    if ImportPlan.isNew(name, known: known) { note(name, input: path) }
                }
                guard typesNewColumns, newColumns.contains(where: { header.contains($0.name) }) else { continue }
            }
            let reader = try format.openReader(path: path, dialect: spec.dialect, jsonOptions: spec.jsonOptions)
            try sample(reader, header: header, known: known, fills: fills, filled: &filled, input: path)
        }
        missingColumns = settable.filter { !filled.contains($0) }
    }

    /// Whether there is anything new.
    var hasNewColumns: Bool { !newColumns.isEmpty }

    private mutating func note(_ name: String, input: String) {
        guard !newColumns.contains(where: { $0.name == name }) else { return }
        newColumns.append(NewColumn(name: name, input: input))
    }

    /// Reads the first records of `reader`: the new fields of JSON records, the values of every new column.
    private mutating func sample(
        _ reader: any RecordReader, header: [String]?, known: Set<String>, fills: [String: String],
        filled: inout Set<String>, input: String
    ) throws {
        var sampled = 0
        var skipped = 0
        while sampled < ModelInference.sampleSize && skipped < ModelInference.sampleSize {
            let record: Record?
            do {
                record = try reader.next()
            } catch let error as FerryIOError where error.isRecoverable {
                skipped += 1
                continue
            }
            guard let record else { return }
            sampled += 1
            for index in 0..<record.count {
                let field = record[index]
                let name: String
                if let header {
                    guard index < header.count else { continue }
                    name = header[index]
                } else {
                    name = field.name ?? Record.positionalName(ofField: index)
                    if let attribute = fills[name] { filled.insert(attribute) }
                    if ImportPlan.isNew(name, known: known) { note(name, input: input) }
                }
                guard let offset = newColumns.firstIndex(where: { $0.name == name }) else { continue }
                newColumns[offset].inference.add(field)
            }
        }
    }

    /// The model with each new column added to the entity as an optional attribute of its inferred type; `nil` when
    /// nothing is new.
    func evolvedModel(of model: ManagedObjectModel) -> ManagedObjectModel? {
        guard hasNewColumns, let index = model.entities.firstIndex(where: { $0.name == entity }) else { return nil }
        var evolved = model
        for column in newColumns {
            evolved.entities[index].attributes.append(
                AttributeDescription(name: column.attribute, type: column.inference.inferredType, isOptional: true))
        }
        return evolved
    }

    /// The failure of a ``SchemaContract/freeze`` step whose inputs have new columns; `nil` when they have none.
    func freezeViolation() -> PipelineError? {
        guard hasNewColumns else { return nil }
        let new = newColumns.map { "'\($0.name)' (in \($0.input))" }.joined(separator: ", ")
        let missing =
            missingColumns.isEmpty
            ? "none" : missingColumns.map { "'\($0)'" }.joined(separator: ", ")
        return PipelineError(
            .schemaViolation,
            "schema: freeze: the input has columns that \(entity) lacks, so nothing was written; new columns: \(new); "
                + "missing columns (attributes no column fills): \(missing). To add the new columns as optional "
                + "attributes, import with --schema evolve (schema: evolve in a pipeline file); to ignore them, "
                + "--schema discard-columns; to reject the records that give them a value, --schema discard-rows")
    }
}

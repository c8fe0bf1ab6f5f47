public import FerryStore
import FerryIO

/// A model for `ferry import` into a new store without a model file: one entity named as asked, one attribute
/// per input column named exactly as the header writes it, each typed conservatively from a sample of records
/// (see ``TypeInference``: `00123` stays text), and the key as its uniqueness constraint. Without a key the entity
/// has no uniqueness constraint: its records are kept as they come, each import appending them (or replacing
/// them all; see `ImportSpec/replacesRows`).
///
/// One exception to the names: the member names of an object-of-records JSON file, which the reader puts in the
/// column `_key` (a name the store reserves), are stored as the attribute `key`, which is the natural key when no
/// key is given (see `MemberNameColumn`).
///
/// The store keeps the model, so later runs use the same types, and a later value that does not fit is rejected
/// with its reason, never coerced.
///
/// A malformed record among the sampled ones (a CSV record of the wrong width, an NDJSON line that is not one
/// well-formed JSON object: a `FerryIOError/isRecoverable` error, after which the reader reads on) is skipped as
/// the import skips it: it adds no column, types nothing and does not count toward the sample, and the import that
/// follows rejects it with its reason.
public enum ModelInference {
    /// How many well-formed records are sampled. At most as many malformed ones are skipped on the way.
    public static let sampleSize = 1_000

    /// The inferred model for `spec`'s first input, from its first ``sampleSize`` well-formed records.
    ///
    /// Malformed records are skipped (see ``ModelInference``), except in a full sync, where the import stops at one
    /// rather than skip it, and so does the inference, before a store is made for it. When no well-formed record
    /// comes before the input ends (or before ``sampleSize`` malformed ones), the inference fails rather than guess,
    /// since the store would keep types that no record gave, even for a CSV header's columns. An input with no
    /// record at all (a CSV header alone) still gives its header's columns as strings.
    ///
    /// ```swift
    /// var spec = ImportSpec(entity: "Product", sources: ["products.csv"])
    /// spec.keys = ["sku"]
    /// let model = try ModelInference.model(entity: "Product", keys: spec.keys, spec: spec)
    /// ```
    ///
    /// - Throws: ``PipelineError`` `.invalidSpec` without keys for a full sync, with a key that is not a column, or when the input
    ///   cannot be sampled (standard input); `FerryIOError` for unreadable input (a missing file, a malformed
    ///   spot that ends the input such as an unterminated CSV quote), for a malformed record in a full sync, and
    ///   for a sample of malformed records only: then the first of them, not `FerryIOError/isRecoverable`, its
    ///   message saying that no model could be inferred.
    public static func model(entity: String, keys: [String], spec: ImportSpec) throws -> ManagedObjectModel {
        guard let path = spec.sources.first, path != "-" else {
            throw PipelineError(
                .invalidSpec, "a model cannot be inferred from standard input; give --model or import a file first")
        }
        guard let format = spec.format ?? RecordFormat(inferringFrom: path) else {
            throw PipelineError(.invalidSpec, "cannot infer the format of '\(path)'; give --format")
        }
        let reader = try format.openReader(path: path, dialect: spec.dialect, jsonOptions: spec.jsonOptions)
        var names = reader.columnNames ?? []
        var inferences = Array(repeating: TypeInference(), count: names.count)
        var sampled = 0
        var skipped = 0
        var firstSkipped: FerryIOError?
        while sampled < sampleSize && skipped < sampleSize {
            let record: Record?
            do {
                record = try reader.next()
            } catch let error as FerryIOError where error.isRecoverable && spec.fullSync == nil {
                // The importer's own recovery (see ChunkProducer): the reader has skipped the malformed record and
                // reads on; the import rejects it. A full sync stops at it instead, so the error goes through.
                skipped += 1
                if firstSkipped == nil { firstSkipped = error }
                continue
            }
            guard let record else { break }
            sampled += 1
            for index in 0..<record.count {
                let field = record[index]
                var column = index
                if reader.columnNames == nil {
                    // A CSV file without a header names its columns by position.
                    let name = field.name ?? Record.positionalName(ofField: index)
                    if let known = names.firstIndex(of: name) {
                        column = known
                    } else {
                        names.append(name)
                        inferences.append(TypeInference())
                        column = names.count - 1
                    }
                }
                guard column < inferences.count else { continue }
                inferences[column].add(field)
            }
        }
        if sampled == 0, var first = firstSkipped {
            first.isRecoverable = false
            first.recordText = nil
            first.message =
                skipped == 1
                ? "no model can be inferred: the only record read is malformed (fix it or give --model): "
                    + first.message
                : "no model can be inferred: all \(skipped) records read are malformed (fix them or give --model); "
                    + "the first: " + first.message
            throw first
        }
        // The member names of an object of records (the column `_key`) are stored as the attribute `key`, the
        // natural key unless another is given.
        if names.contains(MemberNameColumn.column) && names.contains(MemberNameColumn.attribute) {
            throw PipelineError(
                .invalidSpec,
                "\(path) has a column '\(MemberNameColumn.column)' and a column '\(MemberNameColumn.attribute)', "
                    + "and the first is stored as the attribute '\(MemberNameColumn.attribute)'; give --model with "
                    + "fields that map them")
        }
        var keys = keys.map(MemberNameColumn.attribute(forColumn:))
        if keys.isEmpty && MemberNameColumn.readsMemberNames(reader) { keys = [MemberNameColumn.attribute] }
        guard !keys.isEmpty || spec.fullSync == nil else {
            throw PipelineError(
                .invalidSpec,
                "a full sync into a new store without a model needs --key: the column(s) that identify a record, "
                    + "which become the entity's uniqueness constraint")
        }
        let attributeNames = names.map(MemberNameColumn.attribute(forColumn:))
        for key in keys where !attributeNames.contains(key) {
            throw PipelineError(
                .invalidSpec,
                "the key '\(key)' is not a column of \(path) (its columns: \(names.joined(separator: ", ")))")
        }
        let attributes = zip(attributeNames, inferences).map { name, inference in
            AttributeDescription(name: name, type: inference.inferredType, isOptional: !keys.contains(name))
        }
        return ManagedObjectModel(entities: [
            EntityDescription(
                name: entity, attributes: attributes, uniquenessConstraints: keys.isEmpty ? [] : [keys])
        ])
    }
}

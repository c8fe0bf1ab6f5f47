public import FerryStore
import FerryIO

/// A model for `ferry import` into a new store without a model file: one entity named as asked, one attribute
/// per input column named exactly as the header writes it, each typed conservatively from a sample of records
/// (see ``TypeInference``: `00123` stays text), and the key as its uniqueness constraint.
///
/// The store keeps the model, so later runs use the same types, and a later value that does not fit is rejected
/// with its reason, never coerced.
public enum ModelInference {
    /// How many records are sampled.
    public static let sampleSize = 1_000

    /// The inferred model for `spec`'s first input.
    ///
    /// - Throws: ``PipelineError`` `.invalidSpec` without keys, with a key that is not a column, or when the input
    ///   cannot be sampled (standard input); ``FerryIOError`` for unreadable input.
    public static func model(entity: String, keys: [String], spec: ImportSpec) throws -> ManagedObjectModel {
        guard !keys.isEmpty else {
            throw PipelineError(
                .invalidSpec,
                "a new store without a model needs --key: the column(s) that identify a record, which become the "
                    + "entity's uniqueness constraint")
        }
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
        while sampled < sampleSize, let record = try reader.next() {
            sampled += 1
            for index in 0..<record.count {
                let field = record[index]
                var column = index
                if reader.columnNames == nil {
                    guard let name = field.name else { continue }
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
        for key in keys where !names.contains(key) {
            throw PipelineError(
                .invalidSpec,
                "the key '\(key)' is not a column of \(path) (its columns: \(names.joined(separator: ", ")))")
        }
        let attributes = zip(names, inferences).map { name, inference in
            AttributeDescription(name: name, type: inference.inferredType, isOptional: !keys.contains(name))
        }
        return ManagedObjectModel(entities: [
            EntityDescription(name: entity, attributes: attributes, uniquenessConstraints: [keys])
        ])
    }
}

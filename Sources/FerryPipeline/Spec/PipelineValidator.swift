import FerryIO
public import FerryStore

/// Checks a parsed pipeline against its model without touching data: every import mapping resolves, every
/// batch update and delete names real attributes and parses, every export names real fields. Each problem is
/// an issue at its step's line.
public enum PipelineValidator {
    /// The problems of `file` against `model`, in step order (empty when it can run).
    public static func issues(in file: PipelineFile, model: ManagedObjectModel) -> [PipelineIssue] {
        var issues: [PipelineIssue] = []
        for (index, step) in file.steps.enumerated() {
            let keyPath = "steps[\(index)].\(step.kind)"
            func issue(_ message: String) {
                issues.append(PipelineIssue(file: file.path, line: step.line, keyPath: keyPath, message: message))
            }
            do {
                switch step.action {
                case .importRecords(let spec):
                    let header = try spec.header(ofInput: 0)
                    let plan = try ImportPlan(
                        spec: spec, model: model, inputColumns: header,
                        storesMemberNames: MemberNameColumn.isStored(in: spec, input: 0, header: header))
                    if let header, let path = spec.sources.first {
                        _ = try RecordPacker(plan: plan, inputPath: path, columnNames: header)
                    }
                case .batchUpdate(let update):
                    try entity(update.entity, in: model)
                    _ = try update.predicate.map { try FetchPredicate(format: $0) }
                    let expressions = try PipelineRunner.expressions(update, model: model)
                    let attributes = Set(model.allAttributes(of: update.entity).map(\.name))
                    for name in expressions.keys.sorted() where !attributes.contains(name) {
                        issue("set: \(update.entity) has no attribute '\(name)'")
                    }
                    // The rest of the model's rules are checked on the new values when the step runs.
                    for attribute in model.allAttributes(of: update.entity) where !attribute.isOptional {
                        if case .constant(nil)? = expressions[attribute.name] {
                            issue("set: \(update.entity).\(attribute.name) is not optional; it cannot be set to nil")
                        }
                    }
                case .batchDelete(let delete):
                    try entity(delete.entity, in: model)
                    _ = try delete.predicate.map { try FetchPredicate(format: $0) }
                case .export(let export):
                    try entity(export.entity, in: model)
                    if export.sinceLast != nil && !file.recordsHistory {
                        issue("sinceLast exports what changed from persistent history: add 'history: true' at the top")
                    }
                    _ = try export.predicate.map { try FetchPredicate(format: $0) }
                    let known = Set(model.allAttributes(of: export.entity).map(\.name))
                    for field in export.fields ?? [] where !field.contains(".") && !known.contains(field) {
                        issue("fields: \(export.entity) has no attribute '\(field)'")
                    }
                case .snapshot:
                    break
                }
            } catch let error as PipelineError {
                issue(error.message)
            } catch {
                issue("\(error)")
            }
        }
        return issues
    }

    private static func entity(_ name: String, in model: ManagedObjectModel) throws {
        guard model.entity(named: name) != nil else {
            throw PipelineError(
                .invalidSpec,
                "the model has no entity '\(name)' (it has \(model.entities.map(\.name).joined(separator: ", ")))")
        }
    }
}

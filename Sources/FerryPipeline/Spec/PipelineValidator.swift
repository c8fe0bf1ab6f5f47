import FerryIO
import Foundation
public import FerryStore

/// Checks a parsed pipeline against its model without touching data, so that a mistake in a later step fails the
/// run before its first step writes: every import mapping resolves against its input's header, every predicate
/// (batch updates and deletes, full-sync scopes, exports) and batch-update expression fits the model's attributes
/// and types, every export names real fields and sort keys, and every output's folder exists or can be made. Each
/// problem is an issue at its step's line.
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
                    if let scope = spec.fullSync?.scope {
                        try predicate(scope, of: spec.entity, in: model, "fullSync.scope")
                    }
                    if let rejects = spec.rejectsPath, let problem = outputFolderProblem(rejects) {
                        issue("rejects: \(problem)")
                    }
                case .batchUpdate(let update):
                    try entity(update.entity, in: model)
                    let expressions = try PipelineRunner.expressions(update, model: model)
                    let attributes = Set(model.allAttributes(of: update.entity).map(\.name))
                    for name in expressions.keys.sorted() where !attributes.contains(name) {
                        issue("set: \(update.entity) has no attribute '\(name)'")
                    }
                    let request = BatchUpdateRequest(
                        entityName: update.entity,
                        predicate: try update.predicate.map { try FetchPredicate(format: $0) },
                        propertiesToUpdate: expressions.filter { attributes.contains($0.key) })
                    do {
                        try request.validate(in: model)
                    } catch let error as FetchPredicateError {
                        issue("where: \(error.message)")
                    } catch let error as StoreError {
                        issue("set: \(error.message)")
                    }
                    // The rest of the model's rules are checked on the new values when the step runs.
                    for attribute in model.allAttributes(of: update.entity) where !attribute.isOptional {
                        if case .constant(nil)? = expressions[attribute.name] {
                            issue("set: \(update.entity).\(attribute.name) is not optional; it cannot be set to nil")
                        }
                    }
                case .batchDelete(let delete):
                    try entity(delete.entity, in: model)
                    if let text = delete.predicate { try predicate(text, of: delete.entity, in: model, "where") }
                case .export(let export):
                    try entity(export.entity, in: model)
                    if export.sinceLast != nil && !file.recordsHistory {
                        issue("sinceLast exports what changed from persistent history: add 'history: true' at the top")
                    }
                    if let text = export.predicate { try predicate(text, of: export.entity, in: model, "where") }
                    let known = Set(model.allAttributes(of: export.entity).map(\.name))
                    for field in export.fields ?? [] where !field.contains(".") && !known.contains(field) {
                        issue("fields: \(export.entity) has no attribute '\(field)'")
                    }
                    // A key path reached through relationships, or a sort key, must lead to a value: checked as a
                    // predicate on it would be.
                    for path in (export.fields ?? []).filter({ $0.contains(".") }) + export.sort.map(\.key) {
                        do {
                            try FetchPredicate(format: "%K == nil", .string(path))
                                .validate(forEntity: export.entity, in: model)
                        } catch {
                            issue("'\(path)': \(error)")
                        }
                    }
                    if export.output != "-", let problem = outputFolderProblem(export.output) {
                        issue("to: \(problem)")
                    }
                case .snapshot(let snapshot):
                    if let problem = outputFolderProblem(snapshot.output) { issue("to: \(problem)") }
                case .publish(let publish):
                    if let text = publish.predicate { try predicate(text, of: publish.entity, in: model, "where") }
                    _ = try PublishTable(publish, model: model)
                    if let rejects = publish.rejectsPath, let problem = outputFolderProblem(rejects) {
                        issue("rejects: \(problem)")
                    }
                }
            } catch let error as PipelineError {
                issue(error.message)
            } catch {
                issue("\(error)")
            }
        }
        return issues
    }

    /// Parses `text` and checks it against `entity`'s attributes and their types.
    ///
    /// - Throws: ``PipelineError`` `.invalidSpec` naming `key`.
    private static func predicate(_ text: String, of entity: String, in model: ManagedObjectModel, _ key: String)
        throws
    {
        do {
            try FetchPredicate(format: text).validate(forEntity: entity, in: model)
        } catch let error as FetchPredicateError {
            throw PipelineError(.invalidSpec, "\(key): \(error.message)")
        }
    }

    /// Why an output at `path` could not be written, or `nil`: its folder must be a folder, or not exist yet below
    /// one that can be written (the run makes it).
    static func outputFolderProblem(_ path: String) -> String? {
        let manager = FileManager.default
        var folder = URL(fileURLWithPath: path).deletingLastPathComponent()
        var isFolder: ObjCBool = false
        while !manager.fileExists(atPath: folder.path, isDirectory: &isFolder) {
            let parent = folder.deletingLastPathComponent()
            if parent.path == folder.path { return "no folder can be made for \(path)" }
            folder = parent
        }
        guard isFolder.boolValue else { return "\(folder.path) is a file, so \(path) cannot be written" }
        guard manager.isWritableFile(atPath: folder.path) else {
            return "the folder \(folder.path) cannot be written, so \(path) cannot be made"
        }
        return nil
    }

    private static func entity(_ name: String, in model: ManagedObjectModel) throws {
        guard model.entity(named: name) != nil else {
            throw PipelineError(
                .invalidSpec,
                "the model has no entity '\(name)' (it has \(model.entities.map(\.name).joined(separator: ", ")))")
        }
    }
}

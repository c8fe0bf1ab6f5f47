public import Foundation

extension PipelineFile {
    /// A dry run of this pipeline in `folder`: its store is a copy placed there (with its blob files), and every
    /// file a step would write (rejects, exports, manifests, snapshots) goes there too. Running it reports what
    /// the real run would change; deleting `folder` afterwards leaves the real store and outputs untouched.
    ///
    /// Publish steps are left out: they write to a PostgreSQL server, which a copy of the store cannot stand in for.
    ///
    /// Departure: rather than one transaction rolled back, the run works on a copy, so its cost grows with the
    /// store's size; the result is the same for every step.
    ///
    /// - Throws: an error from `FileManager` when the store cannot be copied.
    public func preparingDryRun(in folder: URL) throws -> PipelineFile {
        var copy = self
        let manager = FileManager.default
        let storeName = URL(fileURLWithPath: store).lastPathComponent
        copy.store = folder.appendingPathComponent(storeName).path
        for suffix in ["", "-wal", "-blobs"] where manager.fileExists(atPath: store + suffix) {
            try manager.copyItem(atPath: store + suffix, toPath: copy.store + suffix)
        }
        func inFolder(_ path: String) -> String {
            path == "-" ? path : folder.appendingPathComponent("outputs").appendingPathComponent(path).path
        }
        try manager.createDirectory(at: folder.appendingPathComponent("outputs"), withIntermediateDirectories: true)
        copy.steps = steps.filter { step in
            if case .publish = step.action { return false }
            return true
        }.map { step in
            var step = step
            switch step.action {
            case .importRecords(var spec):
                spec.rejectsPath = spec.rejectsPath.map { inFolder(URL(fileURLWithPath: $0).lastPathComponent) }
                step.action = .importRecords(spec)
            case .export(var spec):
                spec.output = inFolder(URL(fileURLWithPath: spec.output).lastPathComponent)
                step.action = .export(spec)
            case .snapshot(var snapshot):
                snapshot.output = inFolder(URL(fileURLWithPath: snapshot.output).lastPathComponent)
                step.action = .snapshot(snapshot)
            case .batchUpdate, .batchDelete, .publish:
                break
            }
            return step
        }
        return copy
    }
}

public import FerryStore
import FerryIO
import Foundation
public import Logging

#if canImport(Glibc)
    import Glibc
#endif

/// Copies a store into a folder as a consistent snapshot: the SQLite file (`VACUUM INTO`, while writers carry on),
/// the external blob files the copy refers to, and `manifest.json`. The folder appears complete or not at all.
///
/// ```
/// DIR/catalog.sqlite
/// DIR/catalog.sqlite-blobs/9f/9f86d0…
/// DIR/manifest.json
/// ```
///
/// ```swift
/// let manifest = try await StoreSnapshotter(store: store).snapshot(into: "/backups/2026-01-05")
/// ```
public struct StoreSnapshotter: Sendable {
    /// The store copied.
    public let store: PersistentStore
    let logger: Logger

    /// A snapshotter for `store`.
    public init(store: PersistentStore, logger: Logger = Logger(label: "ferry.snapshot")) {
        self.store = store
        self.logger = logger
    }

    /// Copies the store into `folder` and returns the manifest written there.
    ///
    /// The snapshot is built in a hidden folder beside `folder` (`.NAME.ferry-tmp-PID-RAND`) and renamed into place
    /// whole, so `folder` either holds a complete snapshot or does not exist: a snapshot killed or out of disk
    /// space leaves only that hidden folder, which the next snapshot to the same place removes. `folder` must not
    /// exist yet or be empty. The copy's counts, history token and runs in the manifest are read from the copy
    /// itself, so they describe exactly what it holds.
    ///
    /// - Parameters:
    ///   - folder: the snapshot's folder.
    ///   - replacing: when `true`, a snapshot already in `folder` is replaced (the new one is complete
    ///     before the old one goes; a kill between the two renames leaves no snapshot at `folder`, never part of
    ///     one). When `false`, a snapshot is never overwritten.
    /// - Throws: ``PipelineError`` `.outputExists` when `folder` already holds a snapshot (and `replacing` is
    ///   false) or anything else, `.invalidExport` for an in-memory store; `StoreError` when copying or reading
    ///   fails (`.fileNotFound` when a blob file the copy refers to is missing).
    public func snapshot(into folder: String, replacing: Bool = false) async throws -> SnapshotManifest {
        guard case .file(let storePath) = store.description.location else {
            throw PipelineError(.invalidExport, "an in-memory store cannot be snapshotted")
        }
        let fileName = URL(fileURLWithPath: storePath).lastPathComponent
        let destination = Self.withoutTrailingSlashes(folder)
        let files = FileManager.default
        // What a killed snapshot to this place left: nothing else ever removes it.
        for leftover in TemporarySibling.abandoned(for: destination) { try? files.removeItem(atPath: leftover) }
        let replaces = try checkDestination(destination, fileName: fileName, replacing: replacing)
        let staging = TemporarySibling.path(for: destination)
        do {
            try files.createDirectory(atPath: staging, withIntermediateDirectories: true)
        } catch {
            throw StoreError(
                .openFailed, "cannot create the snapshot folder: \(error.localizedDescription)", path: folder)
        }
        let manifest: SnapshotManifest
        do {
            manifest = try await write(into: staging, fileName: fileName, storePath: storePath)
            try install(staging, at: destination, replacing: replaces)
        } catch {
            try? files.removeItem(atPath: staging)
            throw error
        }
        logger.info("snapshot of \(storePath) written", metadata: ["folder": "\(folder)"])
        return manifest
    }

    /// Whether `destination` holds a snapshot to replace; throws when it may not be written.
    private func checkDestination(_ destination: String, fileName: String, replacing: Bool) throws -> Bool {
        let files = FileManager.default
        var isFolder: ObjCBool = false
        guard files.fileExists(atPath: destination, isDirectory: &isFolder) else { return false }
        guard isFolder.boolValue else {
            throw PipelineError(.outputExists, "\(destination) already exists and is not a folder")
        }
        let contents = (try? files.contentsOfDirectory(atPath: destination)) ?? []
        guard !contents.isEmpty else { return false }
        let isSnapshot = contents.contains { $0 == fileName || $0 == fileName + "-blobs" || $0 == "manifest.json" }
        if isSnapshot && replacing { return true }
        throw PipelineError(
            .outputExists,
            isSnapshot
                ? "\(destination) already exists and holds a snapshot; a snapshot never overwrites one, so choose a new "
                    + "folder"
                : "\(destination) already exists and is not empty; a snapshot goes into a new or empty folder")
    }

    /// Renames the complete snapshot at `staging` to `destination`, moving a snapshot there aside first when
    /// `replacing` (and removing it once the new one is in place).
    private func install(_ staging: String, at destination: String, replacing: Bool) throws {
        var previous: String?
        if replacing {
            let aside = TemporarySibling.path(for: destination)
            guard rename(destination, aside) == 0 else { throw renameFailure(destination) }
            previous = aside
        }
        // An empty folder at `destination` is replaced by the rename; anything else in its way makes it fail.
        guard rename(staging, destination) == 0 else {
            let code = errno
            if let previous { rename(previous, destination) }
            if code == ENOTEMPTY || code == EEXIST || code == ENOTDIR {
                throw PipelineError(
                    .outputExists, "\(destination) was written by someone else meanwhile; a snapshot never overwrites")
            }
            throw renameFailure(destination, code)
        }
        if let previous { try? FileManager.default.removeItem(atPath: previous) }
    }

    private func renameFailure(_ path: String, _ code: Int32 = errno) -> StoreError {
        StoreError(.openFailed, "moving the snapshot into place failed: \(String(cString: strerror(code)))", path: path)
    }

    /// Writes the copy, its blob files and the manifest into the folder `staging`.
    private func write(into staging: String, fileName: String, storePath: String) async throws -> SnapshotManifest {
        let files = FileManager.default
        let copyPath = staging + "/" + fileName
        let manifestPath = staging + "/manifest.json"
        let started = Date()
        try await store.copy(to: copyPath)
        let read = try await store.withReadSnapshot(ofCopyAt: copyPath) { snapshot in
            let counts = try snapshot.schema.model.entities.map { entity in
                SnapshotManifest.EntityCount(name: entity.name, rows: try snapshot.count(of: entity.name))
            }
            return (
                counts, snapshot.historyToken, try RunLedger.succeededRuns(in: snapshot),
                try snapshot.blobReferences()
            )
        }
        let (counts, token, runs, blobs) = read
        let sourceFolder = storePath + "-blobs"
        var blobBytes = 0
        for relative in blobs {
            let source = sourceFolder + "/" + relative
            let target = copyPath + "-blobs/" + relative
            guard files.fileExists(atPath: source) else {
                throw StoreError(
                    .fileNotFound,
                    "the snapshot refers to an external blob file that is missing (deleted by a write since the copy "
                        + "began?); take the snapshot again", path: source)
            }
            do {
                try files.createDirectory(
                    atPath: (target as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                try files.copyItem(atPath: source, toPath: target)
                blobBytes += ((try? files.attributesOfItem(atPath: target))?[.size] as? Int) ?? 0
            } catch {
                throw StoreError(.openFailed, "copying a blob file failed: \(error.localizedDescription)", path: target)
            }
        }
        let manifest = SnapshotManifest(
            file: fileName, sha256: try FileDigest.sha256Hex(ofFileAt: copyPath),
            bytes: ((try? files.attributesOfItem(atPath: copyPath))?[.size] as? Int) ?? 0, entities: counts,
            historyToken: token, runs: runs, blobFiles: blobs.count, blobBytes: blobBytes,
            createdAt: ISO8601Text.string(seconds: started.timeIntervalSince1970.rounded(.down)))
        try ManifestJSON.write(manifest.jsonText, to: manifestPath)
        return manifest
    }

    /// `path` without trailing slashes (`/` stays `/`).
    private static func withoutTrailingSlashes(_ path: String) -> String {
        var trimmed = Substring(path)
        while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        return String(trimmed)
    }
}

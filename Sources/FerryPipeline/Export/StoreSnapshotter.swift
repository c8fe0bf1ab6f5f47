public import FerryStore
import Foundation
public import Logging

/// Copies a store into a folder as a consistent snapshot: the SQLite file (`VACUUM INTO`, while writers carry on),
/// the external blob files the copy refers to, and `manifest.json`.
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

    /// Copies the store into `folder` (created when missing) and returns the manifest written there.
    ///
    /// The copy's counts, history token and runs in the manifest are read from the copy itself, so they describe
    /// exactly what it holds.
    /// - Throws: ``PipelineError`` `.outputExists` when the folder already holds a store of that name or a
    ///   manifest (a snapshot is never overwritten), `.invalidExport` for an in-memory store; ``StoreError`` when
    ///   copying or reading fails (`.fileNotFound` when a blob file the copy refers to is missing).
    public func snapshot(into folder: String) async throws -> SnapshotManifest {
        guard case .file(let storePath) = store.description.location else {
            throw PipelineError(.invalidExport, "an in-memory store cannot be snapshotted")
        }
        let fileName = URL(fileURLWithPath: storePath).lastPathComponent
        let folderURL = URL(fileURLWithPath: folder, isDirectory: true)
        let copyPath = folderURL.appendingPathComponent(fileName).path
        let manifestPath = folderURL.appendingPathComponent("manifest.json").path
        let files = FileManager.default
        for existing in [copyPath, copyPath + "-blobs", manifestPath] where files.fileExists(atPath: existing) {
            throw PipelineError(
                .outputExists, "\(existing) already exists; a snapshot never overwrites one, so choose an empty folder")
        }
        do {
            try files.createDirectory(at: folderURL, withIntermediateDirectories: true)
        } catch {
            throw StoreError(
                .openFailed, "cannot create the snapshot folder: \(error.localizedDescription)", path: folder)
        }
        let started = Date()
        try await store.copy(to: copyPath)
        let read = try await store.withReadSnapshot(ofCopyAt: copyPath) { snapshot in
            let counts = try snapshot.schema.model.entities.map { entity in
                SnapshotManifest.EntityCount(name: entity.name, rows: try snapshot.count(of: entity.name))
            }
            return (
                counts, snapshot.historyToken, try Exporter.succeededRuns(in: snapshot),
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
        logger.info("snapshot of \(storePath) written", metadata: ["folder": "\(folder)"])
        return manifest
    }
}

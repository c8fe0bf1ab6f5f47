public import FerryStore
import Foundation

/// What `ferry inspect` reports about a store, read from one snapshot: each entity's object count, the latest runs
/// of the ledger, the persistent history's extent, and the external blob folder's size.
public struct StoreInspection: Sendable, Hashable, Encodable {
    /// One ledger run.
    public struct Run: Sendable, Hashable, Encodable {
        public var id: Int64
        public var pipeline: String
        /// `import`, `pipeline` (a whole `ferry run`), or the kind of another pipeline step (`export`, `snapshot`…).
        public var kind: String
        public var status: String
        public var startedAt: String
        public var finishedAt: String?
        public var seconds: Double?
        /// The run's counts (`inserted`, `updated`, `kept`, `rejected`…, and `created <Entity>`), as the ledger keeps
        /// them.
        public var counts: [String: Int]

        enum CodingKeys: String, CodingKey {
            case id, pipeline, kind, status, seconds, counts
            case startedAt = "started_at"
            case finishedAt = "finished_at"
        }
    }

    /// The persistent history's extent.
    public struct History: Sendable, Hashable, Encodable {
        /// The latest token (`nil` when nothing was recorded).
        public var latestToken: Int64?
        /// The transactions kept.
        public var transactions: Int

        enum CodingKeys: String, CodingKey {
            case transactions
            case latestToken = "latest_token"
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(latestToken, forKey: .latestToken)
            try container.encode(transactions, forKey: .transactions)
        }
    }

    /// One model version the store has had (its `ferry_model_history`).
    public struct ModelVersion: Sendable, Hashable, Encodable {
        public var version: Int
        /// The model's version hash.
        public var hash: String
        /// `created`, `adopted` or `migrated`.
        public var kind: String
        public var appliedAt: String
        public var appliedBy: String

        enum CodingKeys: String, CodingKey {
            case version, hash, kind
            case appliedAt = "applied_at"
            case appliedBy = "applied_by"
        }
    }

    /// The external blob folder: its files (temporary ones left out) and their bytes.
    public struct Blobs: Sendable, Hashable, Encodable {
        public var folder: String
        public var files: Int
        public var bytes: Int
    }

    public var store: String
    public var entities: [SnapshotManifest.EntityCount]
    /// The latest runs, newest first (at most 10).
    public var runs: [Run]
    /// `nil` when the store has no history tables.
    public var history: History?
    public var blobs: Blobs
    /// Every model version the store has had, oldest first (empty for a store without a model history).
    public var modelVersions: [ModelVersion] = []

    enum CodingKeys: String, CodingKey {
        case store, entities, runs, history, blobs
        case modelVersions = "model_versions"
    }

    /// Reads the inspection of `store` from one snapshot.
    ///
    /// - Throws: `StoreError` when reading fails.
    public static func read(_ store: PersistentStore, path: String) async throws -> StoreInspection {
        let (entities, runs, history, versions) = try await store.withReadSnapshot { snapshot in
            let entities = try snapshot.schema.model.entities.map { entity in
                SnapshotManifest.EntityCount(name: entity.name, rows: try snapshot.count(of: entity.name))
            }
            let runs = try RunLedger.recentRuns(in: snapshot, limit: 10)
            var history: History?
            if snapshot.hasHistory {
                history = History(
                    latestToken: snapshot.historyToken, transactions: try snapshot.historyTransactionCount())
            }
            let versions = try snapshot.modelHistory().entries.map { entry in
                ModelVersion(
                    version: entry.version, hash: entry.modelHash, kind: entry.kind, appliedAt: entry.appliedAt,
                    appliedBy: entry.appliedBy)
            }
            return (entities, runs, history, versions)
        }
        return StoreInspection(
            store: path, entities: entities, runs: runs, history: history, blobs: blobFolder(path + "-blobs"),
            modelVersions: versions)
    }

    /// The inspection as pretty-printed JSON with sorted keys.
    public var jsonText: String { ManifestJSON.text(of: self) }

    static func counts(from json: String) -> [String: Int]? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any] else {
            return nil
        }
        var counts = object.compactMapValues { ($0 as? NSNumber)?.intValue }
        // The destinations created, by entity: `created Plane`.
        for (entity, value) in object["created"] as? [String: Any] ?? [:] {
            counts["created \(entity)"] = (value as? NSNumber)?.intValue
        }
        return counts
    }

    private static func blobFolder(_ folder: String) -> Blobs {
        var blobs = Blobs(folder: folder, files: 0, bytes: 0)
        guard let walker = FileManager.default.enumerator(atPath: folder) else { return blobs }
        while let relative = walker.nextObject() as? String {
            guard walker.fileAttributes?[.type] as? FileAttributeType == .typeRegular, !relative.hasSuffix(".tmp")
            else { continue }
            blobs.files += 1
            blobs.bytes += (walker.fileAttributes?[.size] as? Int) ?? 0
        }
        return blobs
    }
}

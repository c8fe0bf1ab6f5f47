import Foundation

/// `manifest.json` of a snapshot folder: the copy's file name, size and SHA-256, each entity's row count, the
/// history token and ledger runs the copy holds, and its blob files.
public struct SnapshotManifest: Sendable, Hashable, Encodable {
    /// One entity's object count (sub-entities' objects included).
    public struct EntityCount: Sendable, Hashable, Encodable {
        public var name: String
        public var rows: Int
    }

    public var file: String
    public var sha256: String
    public var bytes: Int
    public var entities: [EntityCount]
    public var historyToken: Int64?
    public var runs: [Int64]
    public var blobFiles: Int
    public var blobBytes: Int
    public var createdAt: String

    enum CodingKeys: String, CodingKey {
        case file, sha256, bytes, entities, runs
        case historyToken = "history_token"
        case blobFiles = "blob_files"
        case blobBytes = "blob_bytes"
        case createdAt = "created_at"
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(file, forKey: .file)
        try container.encode(sha256, forKey: .sha256)
        try container.encode(bytes, forKey: .bytes)
        try container.encode(entities, forKey: .entities)
        try container.encode(historyToken, forKey: .historyToken)
        try container.encode(runs, forKey: .runs)
        try container.encode(blobFiles, forKey: .blobFiles)
        try container.encode(blobBytes, forKey: .blobBytes)
        try container.encode(createdAt, forKey: .createdAt)
    }

    /// The manifest as pretty-printed JSON with sorted keys.
    public var jsonText: String { ManifestJSON.text(of: self) }
}

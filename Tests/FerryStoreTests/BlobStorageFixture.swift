import FerrySQLite
import FerryTestSupport
import Foundation

@testable import FerryStore

/// A container on a fresh store file in a temporary folder for the external-storage tests, with a small threshold
/// (1 KiB unless a test asks otherwise) so values on either side of it are cheap to make, and helpers that look at
/// the blob folder and `ferry_blobs` directly.
///
/// The model: `Album` (unique `name`, `cover` binary with external storage; `photos` to-many, cascade) and `Photo`
/// (`title`, `image` binary with external storage, `thumbnail` binary without; `album` to-one).
final class BlobStorageFixture: Sendable {
    let folder: URL
    let container: PersistentContainer

    static let model = ManagedObjectModel(entities: [
        EntityDescription(
            name: "Album",
            attributes: [
                AttributeDescription(name: "name", type: .string, isOptional: false),
                AttributeDescription(name: "cover", type: .binary, allowsExternalStorage: true),
            ],
            relationships: [
                RelationshipDescription(
                    name: "photos", destinationEntity: "Photo", inverseName: "album", isToMany: true,
                    deleteRule: .cascade)
            ],
            uniquenessConstraints: [["name"]]),
        EntityDescription(
            name: "Photo",
            attributes: [
                AttributeDescription(name: "title", type: .string),
                AttributeDescription(name: "image", type: .binary, allowsExternalStorage: true),
                AttributeDescription(name: "thumbnail", type: .binary),
            ],
            relationships: [
                RelationshipDescription(name: "album", destinationEntity: "Album", inverseName: "photos")
            ]),
    ])

    init(threshold: Int? = 1024) async throws {
        folder = try TestSupport.makeTemporaryFolder()
        var description = PersistentStoreDescription(path: folder.appendingPathComponent("photos.sqlite").path)
        if let threshold { description.externalStorageThreshold = threshold }
        container = PersistentContainer(name: "Photos", model: Self.model, storeDescription: description)
        try await container.loadPersistentStores()
    }

    deinit {
        try? FileManager.default.removeItem(at: folder)
    }

    var store: PersistentStore { container.persistentStore }
    var storePath: String { container.storeDescription.sqlitePath }
    var blobFolder: String { storePath + "-blobs" }

    /// `count` bytes that differ with `seed`.
    static func bytes(_ count: Int, seed: UInt8 = 1) -> Data {
        Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed) &* 7) ^ seed })
    }

    /// The reference a column holds for `data`.
    static func reference(of data: Data) -> String {
        "ferry-blob:sha256:" + hash(of: data)
    }

    /// The SHA-256 of `data`, as 64 lowercase hex digits.
    static func hash(of data: Data) -> String {
        SHA256.digest(data).map { String(format: "%02x", $0) }.joined()
    }

    /// The file path, relative to the blob folder, of `data`'s file.
    static func relativePath(of data: Data) -> String {
        let hash = hash(of: data)
        return "\(hash.prefix(2))/\(hash)"
    }

    /// Every file in the blob folder's sub-folders, relative to it, sorted.
    func blobFiles() -> [String] {
        let manager = FileManager.default
        guard let subfolders = try? manager.contentsOfDirectory(atPath: blobFolder) else { return [] }
        return subfolders.flatMap { subfolder in
            ((try? manager.contentsOfDirectory(atPath: blobFolder + "/" + subfolder)) ?? []).map {
                subfolder + "/" + $0
            }
        }.sorted()
    }

    /// The bytes of the blob file at `relativePath`.
    func fileBytes(_ relativePath: String) -> Data? {
        FileManager.default.contents(atPath: blobFolder + "/" + relativePath)
    }

    /// `ferry_blobs` as hash → refs.
    func referenceCounts() throws -> [String: Int64] {
        var counts: [String: Int64] = [:]
        for row in try rows("SELECT hash, refs FROM ferry_blobs") {
            if let hash = row[0].text, let refs = row[1].integer { counts[hash] = refs }
        }
        return counts
    }

    /// The references stored in every external column whose file is not in the blob folder.
    func danglingReferences() throws -> [String] {
        let references = try rows(
            "SELECT cover FROM Album WHERE typeof(cover) = 'text' UNION ALL "
                + "SELECT image FROM Photo WHERE typeof(image) = 'text'"
        ).compactMap { $0[0].text }
        return references.filter { reference in
            let hash = reference.dropFirst("ferry-blob:sha256:".count)
            return !FileManager.default.fileExists(atPath: blobFolder + "/\(hash.prefix(2))/\(hash)")
        }
    }

    /// Rows of `sql`, read on a connection of its own (what any SQLite tool would see).
    func rows(_ sql: String) throws -> [[SQLiteValue]] {
        let connection = try Connection(path: storePath, mode: .readOnly)
        return try connection.prepare(sql).fetchAll().map { row in (0..<row.count).map { row[$0] } }
    }

    /// Runs `sql` on a read-write connection of its own (what a person with the file, or another program, could do).
    func execute(_ sql: String) throws {
        try Connection(path: storePath).execute(sql)
    }

    /// A new background context with `policy`.
    func context(_ policy: MergePolicy = .error) -> ManagedObjectContext {
        let context = container.newBackgroundContext()
        context.mergePolicy = policy
        return context
    }
}

extension ManagedObjectContext {
    /// Inserts a photo.
    @discardableResult
    func insertPhoto(_ title: String, image: Data?, thumbnail: Data? = nil, album: ManagedObject? = nil)
        -> ManagedObject
    {
        let photo = insertObject(entityName: "Photo")
        photo["title"] = title
        photo["image"] = image
        photo["thumbnail"] = thumbnail
        photo.setObject(album, forKey: "album")
        return photo
    }

    /// Inserts an album.
    @discardableResult
    func insertAlbum(_ name: String, cover: Data?) -> ManagedObject {
        let album = insertObject(entityName: "Album")
        album["name"] = name
        album["cover"] = cover
        return album
    }

    /// The photo titled `title`, fetched from the store.
    func photo(titled title: String) throws -> ManagedObject? {
        var request = FetchRequest(entityName: "Photo")
        request.predicate = try FetchPredicate(format: "title == %@", .string(title))
        return try fetch(request).first
    }
}

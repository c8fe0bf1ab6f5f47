import FerrySQLite
import Foundation
import Testing

@testable import FerryStore

/// Migrations that change where a binary attribute's values live (its external storage turned on or off), or remove
/// what held blob files: the values read back the same, the files and `ferry_blobs` counts match the rows, and a run
/// stopped before its commit leaves no row pointing at a file that is not there.
struct BlobMigrationTests {
    static let inline = """
        entities:
          Product:
            attributes:
              sku: string
              photo: binary
        """
    static let external = inline.replacingOccurrences(
        of: "photo: binary", with: "photo: { type: binary, allowsExternalStorage: true }")
    /// Four rows: A and C hold the same 2000 bytes, B other 2000 bytes, D 10 bytes (under the threshold).
    static let rows = """
        INSERT INTO Product (_ent, sku, photo) VALUES (1, 'A', CAST(printf('%02000d', 1) AS BLOB));
        INSERT INTO Product (_ent, sku, photo) VALUES (1, 'B', CAST(printf('%02000d', 2) AS BLOB));
        INSERT INTO Product (_ent, sku, photo) VALUES (1, 'C', CAST(printf('%02000d', 1) AS BLOB));
        INSERT INTO Product (_ent, sku, photo) VALUES (1, 'D', CAST(printf('%010d', 3) AS BLOB));
        """
    static let photos: [String: Data] = [
        "A": Data(String(format: "%02000d", 1).utf8), "B": Data(String(format: "%02000d", 2).utf8),
        "C": Data(String(format: "%02000d", 1).utf8), "D": Data(String(format: "%010d", 3).utf8),
    ]

    static func migrator(_ path: String) -> StoreMigrator {
        var migrator = StoreMigrator(storePath: path)
        migrator.externalStorageThreshold = 1024
        return migrator
    }

    /// The regular files in the store's blob folder, as `xx/hash` paths, sorted.
    static func files(_ path: String) throws -> [String] {
        let folder = path + "-blobs"
        guard let names = FileManager.default.enumerator(atPath: folder)?.allObjects as? [String] else { return [] }
        return names.filter { name in
            var isFolder: ObjCBool = false
            return FileManager.default.fileExists(atPath: folder + "/" + name, isDirectory: &isFolder)
                && !isFolder.boolValue
        }.sorted()
    }

    /// `ferry_blobs` as `hash: refs`, rows with no reference left out.
    static func counts(_ path: String) throws -> [String: Int64] {
        let exists = try MigrationFixture.column(
            at: path, "SELECT count(*) FROM sqlite_master WHERE name = 'ferry_blobs'")
        guard exists.first?.integer == 1 else { return [:] }
        let connection = try Connection(path: path, mode: .readOnly)
        var counts: [String: Int64] = [:]
        for row in try connection.prepare("SELECT hash, refs FROM ferry_blobs WHERE refs > 0").fetchAll() {
            counts[row[0].text ?? ""] = row[1].integer ?? 0
        }
        return counts
    }

    /// The hashes the rows of Product refer to, sorted by sku (nil for an inline value).
    static func references(_ path: String) throws -> [String?] {
        try MigrationFixture.column(
            at: path, "SELECT CASE WHEN typeof(photo) = 'text' THEN substr(photo, 19) END FROM Product ORDER BY sku"
        ).map(\.text)
    }

    static func expectPhotosReadBack(_ path: String, _ yaml: String) async throws {
        let rows = try await MigrationFixture.rows(at: path, yaml, entity: "Product", sortedBy: "sku")
        #expect(rows.count == 4)
        for row in rows {
            guard case .string(let sku)? = row["sku"] ?? nil else {
                Issue.record("a row without sku")
                continue
            }
            #expect(row["photo"] ?? nil == .binary(Self.photos[sku] ?? Data()), "row \(sku)")
        }
    }

    @Test func anAttributeTurnedExternalMovesItsLargeValuesToSharedFilesAndCountsTheirReferences() async throws {
        try await MigrationFixture.withStorePath { path in
            try await MigrationFixture.makeStore(at: path, Self.inline, rows: Self.rows)
            let plan = try Self.migrator(path).plan(to: MigrationFixture.model(Self.external))
            #expect(plan.steps.map(\.kind) == ["externalizeBlobs", "rebuildTable"])
            #expect(plan.steps.first?.rows == 3)
            #expect(plan.isAutomatic)
            try Self.migrator(path).migrate(to: plan)
            let references = try Self.references(path)
            #expect(references[3] == nil)
            let shared = try #require(references[0])
            let other = try #require(references[1])
            #expect(references[2] == shared && other != shared)
            #expect(try Self.files(path) == [shared, other].map { "\($0.prefix(2))/\($0)" }.sorted())
            #expect(try Self.counts(path) == [shared: 2, other: 1])
            try await Self.expectPhotosReadBack(path, Self.external)
            // The new layout's triggers count from here on: deleting a sharer leaves one reference.
            try Connection(path: path).execute("DELETE FROM Product WHERE sku = 'C'")
            #expect(try Self.counts(path) == [shared: 1, other: 1])
        }
    }

    @Test func anAttributeTurnedBackMovesTheFilesIntoTheRowsAndRemovesTheFiles() async throws {
        try await MigrationFixture.withStorePath { path in
            try await MigrationFixture.makeStore(at: path, Self.inline, rows: Self.rows)
            try Self.migrator(path).migrate(to: MigrationFixture.model(Self.external))
            #expect(try Self.files(path).count == 2)
            let plan = try Self.migrator(path).plan(to: MigrationFixture.model(Self.inline))
            #expect(plan.steps.map(\.kind) == ["internalizeBlobs", "rebuildTable"])
            #expect(plan.steps.first?.rows == 3)
            try Self.migrator(path).migrate(to: plan)
            #expect(
                try MigrationFixture.column(at: path, "SELECT DISTINCT typeof(photo) FROM Product") == [.text("blob")])
            #expect(try Self.files(path).isEmpty)
            #expect(try Self.counts(path).isEmpty)
            try await Self.expectPhotosReadBack(path, Self.inline)
        }
    }

    @Test func aMissingFileStopsTheMoveBackAndLeavesTheStoreAtItsOldModel() async throws {
        try await MigrationFixture.withStorePath { path in
            try await MigrationFixture.makeStore(at: path, Self.inline, rows: Self.rows)
            try Self.migrator(path).migrate(to: MigrationFixture.model(Self.external))
            let other = try #require(try Self.references(path)[1])
            try FileManager.default.removeItem(atPath: "\(path)-blobs/\(other.prefix(2))/\(other)")
            let error = #expect(throws: StoreError.self) {
                try Self.migrator(path).migrate(to: MigrationFixture.model(Self.inline))
            }
            #expect(error?.code == .blobFileMissing)
            #expect(error?.message.contains("'Product.photo' of row 2") == true)
            #expect(try ModelHistory.read(at: path).entries.count == 2)
            #expect(try Self.references(path)[0] != nil)
        }
    }

    @Test func aMoveStoppedInsideItsChunkLeavesTheRowsInlineAndRemovesTheChunksFiles() async throws {
        struct Stop: Error {}
        try await MigrationFixture.withStorePath { path in
            try await MigrationFixture.makeStore(at: path, Self.inline, rows: Self.rows)
            let plan = try Self.migrator(path).plan(to: MigrationFixture.model(Self.external))
            #expect(throws: Stop.self) {
                try Self.migrator(path).migrate(
                    to: plan, allowsDestructiveChanges: false, afterChunk: nil,
                    afterBlobFile: { _, moved in if moved == 2 { throw Stop() } })
            }
            // The files of A and B were written under temporary names; the chunk rolled back and removed them.
            #expect(try Self.files(path).isEmpty)
            #expect(try Self.references(path) == [nil, nil, nil, nil])
            #expect(try ModelHistory.read(at: path).entries.count == 1)
            try Self.migrator(path).migrate(to: Self.migrator(path).plan(to: MigrationFixture.model(Self.external)))
            let shared = try #require(try Self.references(path)[0])
            let other = try #require(try Self.references(path)[1])
            #expect(try Self.files(path) == [shared, other].map { "\($0.prefix(2))/\($0)" }.sorted())
            #expect(try Self.counts(path) == [shared: 2, other: 1])
        }
    }

    @Test func removingAnExternallyStoredAttributeReleasesItsFiles() async throws {
        try await MigrationFixture.withStorePath { path in
            try await MigrationFixture.makeStore(at: path, Self.inline, rows: Self.rows)
            try Self.migrator(path).migrate(to: MigrationFixture.model(Self.external))
            let v3 = """
                entities:
                  Product:
                    attributes:
                      sku: string
                """
            let plan = try Self.migrator(path).plan(to: MigrationFixture.model(v3))
            #expect(plan.isDestructive)
            try Self.migrator(path).migrate(to: plan, allowsDestructiveChanges: true)
            #expect(try Self.files(path).isEmpty)
            #expect(try Self.counts(path).isEmpty)
        }
    }

    @Test func removingAnEntityThatHeldFilesReleasesThemAndKeepsTheOtherEntitysFiles() async throws {
        try await MigrationFixture.withStorePath { path in
            let v1 =
                Self.external + """

                      Label:
                        attributes:
                          image: { type: binary, allowsExternalStorage: true }
                    """
            var description = PersistentStoreDescription(path: path)
            description.externalStorageThreshold = 1024
            let container = PersistentContainer(
                name: "Labels", model: try MigrationFixture.model(v1), storeDescription: description)
            try await container.loadPersistentStores()
            let context = container.newBackgroundContext()
            try context.performAndWait {
                let label = context.insertObject(entityName: "Label")
                label["image"] = Data(String(format: "%03000d", 7).utf8)
                let product = context.insertObject(entityName: "Product")
                product["sku"] = "A"
                product["photo"] = Self.photos["A"]
                try context.save()
            }
            #expect(try Self.files(path).count == 2)
            let plan = try Self.migrator(path).plan(to: MigrationFixture.model(Self.external))
            #expect(plan.steps.map(\.kind) == ["removeEntity"])
            try Self.migrator(path).migrate(to: plan, allowsDestructiveChanges: true)
            let kept = try #require(try Self.references(path)[0])
            #expect(try Self.files(path) == ["\(kept.prefix(2))/\(kept)"])
            #expect(try Self.counts(path) == [kept: 1])
        }
    }

    @Test func aRejectedRowKeepsItsFileWhileItsRecordIsInTheRejects() async throws {
        try await MigrationFixture.withStorePath { path in
            let duplicated = Self.rows.replacingOccurrences(of: "'C'", with: "'B'")
            try await MigrationFixture.makeStore(at: path, Self.inline, rows: duplicated)
            try Self.migrator(path).migrate(to: MigrationFixture.model(Self.external))
            let constrained = Self.external + "\n    uniquenessConstraints: [[sku]]"
            let plan = try Self.migrator(path).plan(to: MigrationFixture.model(constrained), policy: .keepFirst)
            try Self.migrator(path).migrate(to: plan, allowsDestructiveChanges: true)
            // The second 'B' (A's bytes) is rejected; A still refers to the same file, and so does the reject.
            let rejected = try MigrationFixture.column(
                at: path, "SELECT json_extract(row, '$.photo') FROM ferry_migration_rejects")
            let shared = try #require(try Self.references(path)[0])
            #expect(rejected == [.text(BlobReference.prefix + shared)])
            #expect(try Self.counts(path)[shared] == 2)
            #expect(try Self.files(path).count == 2)
        }
    }
}

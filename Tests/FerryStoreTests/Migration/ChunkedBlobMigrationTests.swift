import FerrySQLite
import FerryTestSupport
import Foundation
import Testing

@testable import FerryStore

/// Values moved between rows and blob files in chunks: a move stopped after any chunk, or inside one, resumes to
/// exactly the rows, files and reference counts of an uninterrupted move, in both directions; chunks are bounded by
/// rows and by bytes; values larger than a read piece cross it intact; files a stopped chunk left are reused or
/// removed; and the store is refused while a move is unfinished.
@Suite(.serialized)
struct ChunkedBlobMigrationTests {
    static let inline = BlobMigrationTests.inline
    static let external = BlobMigrationTests.external
    static let rowCount = 24
    /// 24 rows: every sixth a small value (stays inline), every sixth after it NULL, the others 2000 bytes shared
    /// by several rows (five distinct values), and two values larger than the mover's 256 KiB piece: one of exactly
    /// a piece, one of two pieces and a part.
    static let rows = """
        WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(rowCount - 2))
        INSERT INTO Product (_ent, sku, photo) SELECT 1, printf('R%02d', i),
            CASE i % 6 WHEN 0 THEN CAST(printf('%010d', i) AS BLOB) WHEN 1 THEN NULL
            ELSE CAST(printf('%02000d', i % 5) AS BLOB) END FROM n;
        INSERT INTO Product (_ent, sku, photo) VALUES (1, 'R23', randomblob(262144)), (1, 'R24', randomblob(600001));
        """

    struct Stop: Error {}

    /// What a store holds that a move must get right: each row's value (its storage class and SHA-256), the files
    /// in the blob folder, the reference counts, the model and its history, and whether a migration is under way.
    struct Snapshot: Equatable, CustomStringConvertible {
        var values: [String: String] = [:]
        var files: [String] = []
        var counts: [String: Int64] = [:]
        var modelHash = ""
        var versions = 0
        var marker = false

        var description: String {
            "model \(modelHash.prefix(8)) v\(versions) marker \(marker), \(files.count) files, counts \(counts.values.sorted()), "
                + "values \(values.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value.prefix(12))" })"
        }
    }

    static func snapshot(_ path: String) throws -> Snapshot {
        var snapshot = Snapshot()
        let connection = try Connection(path: path, mode: .readOnly)
        for row in try connection.prepare("SELECT sku, photo FROM Product").fetchAll() {
            let value: String
            switch row[1] {
            case .blob(let bytes): value = "blob:" + SHA256.digest(bytes).map { String(format: "%02x", $0) }.joined()
            case .text(let text): value = "text:" + text
            case .null: value = "null"
            default: value = "other"
            }
            snapshot.values[row[0].text ?? ""] = value
        }
        snapshot.files = try BlobMigrationTests.files(path)
        snapshot.counts = try BlobMigrationTests.counts(path)
        snapshot.modelHash = try connection.prepare("SELECT value FROM ferry_metadata WHERE key = 'model_hash'")
            .fetchOne()?[0].text ?? ""
        snapshot.versions = Int(try connection.prepare("SELECT count(*) FROM ferry_model_history").fetchOne()?[0].integer ?? 0)
        snapshot.marker =
            try connection.prepare(
                "SELECT count(*) FROM sqlite_master WHERE name = 'ferry_migration'"
            ).fetchOne()?[0].integer == 1
            && connection.prepare("SELECT count(*) FROM ferry_migration").fetchOne()?[0].integer == 1
        #expect(try connection.prepare("PRAGMA integrity_check").fetchOne()?[0].text == "ok")
        return snapshot
    }

    /// Replaces the store at `path` (file, log and blob folder) with a copy of `template`'s.
    static func copy(_ template: String, to path: String) throws {
        for suffix in ["", "-wal", "-shm", "-blobs"] {
            try? FileManager.default.removeItem(atPath: path + suffix)
            if suffix != "-shm", FileManager.default.fileExists(atPath: template + suffix) {
                try FileManager.default.copyItem(atPath: template + suffix, toPath: path + suffix)
            }
        }
    }

    /// The inode number of the file at `path`, or `nil` when there is none.
    static func inode(_ path: String) -> UInt64? {
        var status = stat()
        guard lstat(path, &status) == 0 else { return nil }
        return UInt64(status.st_ino)
    }

    static func migrator(_ path: String, chunkRows: Int = 4) -> StoreMigrator {
        var migrator = StoreMigrator(storePath: path, chunkRows: chunkRows)
        migrator.externalStorageThreshold = 1024
        return migrator
    }

    /// Makes `template` at the inline model holding ``rows``; with `external`, moves its values to files first.
    static func makeTemplate(_ template: String, external: Bool) async throws {
        try await MigrationFixture.makeStore(at: template, inline, rows: rows)
        if external { try migrator(template).migrate(to: MigrationFixture.model(Self.external)) }
        _ = try Connection(path: template).checkpoint(.truncate)
    }

    /// For a move from `template` to `yaml`: the uninterrupted move's snapshot, then, for each stop (after the
    /// chunk that brings the copy to so many rows, or inside a chunk after so many values), a move stopped there and
    /// resumed, which must end in the same snapshot; a stopped move leaves the old model, its rows and its files.
    static func expectStopsResumeToTheSameStore(
        template: String, to yaml: String, afterChunks: [Int], afterValues: [Int], in folder: String
    ) throws -> Snapshot {
        let path = folder + "/s.sqlite"
        let before = try snapshot(template)
        try copy(template, to: path)
        let plan = try migrator(path).plan(to: MigrationFixture.model(yaml))
        // Each chunk's end: the rows copied and the values moved by then.
        var ends: [(rows: Int, values: Int)] = []
        var values = 0
        try migrator(path).migrate(
            to: plan, allowsDestructiveChanges: false, afterChunk: { _, rows in ends.append((rows, values)) },
            afterBlobFile: { _, moved in values = moved })
        #expect(ends.map(\.rows) == [4, 8, 12, 16, 20, 24])
        #expect(ends.map(\.values) == [3, 5, 8, 11, 13, 17])
        let reference = try snapshot(path)
        #expect(reference.modelHash != before.modelHash && !reference.marker && reference.versions == before.versions + 1)
        let stops = afterChunks.map { (chunk: $0, value: 0) } + afterValues.map { (chunk: 0, value: $0) }
        for stop in stops {
            try copy(template, to: path)
            #expect(throws: Stop.self) {
                try migrator(path).migrate(
                    to: plan, allowsDestructiveChanges: false,
                    afterChunk: { _, rows in if rows == stop.chunk { throw Stop() } },
                    afterBlobFile: { _, moved in if moved == stop.value { throw Stop() } })
            }
            let stopped = try snapshot(path)
            #expect(stopped.values == before.values, "stop \(stop): the old rows are untouched")
            #expect(stopped.modelHash == before.modelHash && stopped.versions == before.versions && stopped.marker)
            // Files: the template's, and those of committed chunks (only when moving into files); no temporary one.
            #expect(Set(before.files).isSubset(of: stopped.files), "stop \(stop)")
            #expect(stopped.files.allSatisfy { !$0.hasSuffix(".tmp") }, "stop \(stop)")
            var resumed: [Int] = []
            try migrator(path).migrate(
                to: plan, allowsDestructiveChanges: false, afterChunk: { _, rows in resumed.append(rows) })
            #expect(try snapshot(path) == reference, "stop \(stop)")
            // It went on after the last committed chunk: the one stopped after, or the one before the chunk stopped in.
            let committed =
                stop.chunk > 0 ? stop.chunk : ends.last(where: { $0.values < stop.value })?.rows ?? 0
            #expect(resumed == ends.map(\.rows).filter { $0 > committed }, "stop \(stop)")
        }
        return reference
    }

    @Test func aMoveIntoFilesStoppedBetweenOrInsideChunksResumesToTheUninterruptedStore() async throws {
        try await MigrationFixture.withStorePath { template in
            try await Self.makeTemplate(template, external: false)
            let folder = (template as NSString).deletingLastPathComponent
            let finished = try Self.expectStopsResumeToTheSameStore(
                template: template, to: Self.external, afterChunks: [4, 8, 16, 20], afterValues: [1, 3, 4, 9, 14],
                in: folder)
            // Five shared 2000-byte values and the two large ones in files, counted by every row that refers to them.
            #expect(finished.files.count == 7)
            #expect(finished.counts.values.reduce(0, +) == 17)
            #expect(finished.values.values.filter { $0.hasPrefix("text:") }.count == 17)
            let rows = try await MigrationFixture.rows(
                at: folder + "/s.sqlite", Self.external, entity: "Product", sortedBy: "sku")
            let original = try await MigrationFixture.rows(at: template, Self.inline, entity: "Product", sortedBy: "sku")
            #expect(rows.count == Self.rowCount)
            #expect(rows.map { $0["photo"] ?? nil } == original.map { $0["photo"] ?? nil })
        }
    }

    @Test func aMoveBackIntoRowsStoppedBetweenOrInsideChunksResumesToTheUninterruptedStore() async throws {
        try await MigrationFixture.withStorePath { template in
            try await Self.makeTemplate(template, external: true)
            let folder = (template as NSString).deletingLastPathComponent
            let before = try Self.snapshot(template)
            #expect(before.counts.values.sorted().last ?? 0 > 1, "some files are shared")
            let finished = try Self.expectStopsResumeToTheSameStore(
                template: template, to: Self.inline, afterChunks: [4, 12, 20], afterValues: [1, 2, 5, 11, 16],
                in: folder)
            #expect(finished.files.isEmpty && finished.counts.isEmpty)
            #expect(!finished.values.values.contains { $0.hasPrefix("text:") })
            let rows = try await MigrationFixture.rows(
                at: folder + "/s.sqlite", Self.inline, entity: "Product", sortedBy: "sku")
            let original = try await MigrationFixture.rows(at: template, Self.external, entity: "Product", sortedBy: "sku")
            #expect(rows.map { $0["photo"] ?? nil } == original.map { $0["photo"] ?? nil })
        }
    }

    @Test func aSharedFileStaysUntilTheSwapWhenTheMoveBackStopsBetweenItsRows() async throws {
        try await MigrationFixture.withStorePath { path in
            try await MigrationFixture.makeStore(at: path, Self.inline, rows: BlobMigrationTests.rows)
            try Self.migrator(path).migrate(to: MigrationFixture.model(Self.external))
            let shared = try #require(try BlobMigrationTests.references(path)[0])
            #expect(try BlobMigrationTests.counts(path)[shared] == 2)
            let plan = try Self.migrator(path, chunkRows: 1).plan(to: MigrationFixture.model(Self.inline))
            // A (first chunk) is back in its row in the copy; C, which shares its file, is not yet.
            #expect(throws: Stop.self) {
                try Self.migrator(path, chunkRows: 1).migrate(
                    to: plan, allowsDestructiveChanges: false,
                    afterChunk: { _, rows in if rows == 1 { throw Stop() } })
            }
            #expect(try MigrationFixture.column(at: path, "SELECT typeof(photo) FROM ferry_migrating_Product") == [.text("blob")])
            #expect(try BlobMigrationTests.files(path).contains("\(shared.prefix(2))/\(shared)"))
            #expect(try BlobMigrationTests.counts(path)[shared] == 2)
            try Self.migrator(path, chunkRows: 1).migrate(to: plan)
            #expect(try BlobMigrationTests.files(path).isEmpty)
            #expect(try BlobMigrationTests.counts(path).isEmpty)
            try await BlobMigrationTests.expectPhotosReadBack(path, Self.inline)
        }
    }

    @Test func aChunkEndsOnceTheValuesItMovesReachTheByteBound() async throws {
        try await MigrationFixture.withStorePath { path in
            try await MigrationFixture.makeStore(at: path, Self.inline, rows: Self.rows)
            var migrator = Self.migrator(path, chunkRows: 1000)
            // 2000-byte values: a chunk takes rows until its values reach 5000 bytes, with the third such value;
            // R23 and R24 are each past the bound alone.
            migrator.chunkBytes = 5000
            var chunks: [Int] = []
            try migrator.migrate(
                to: migrator.plan(to: MigrationFixture.model(Self.external)), allowsDestructiveChanges: false,
                afterChunk: { _, rows in chunks.append(rows) })
            // The values that move: R02-R05, R08-R11, R14-R17, R20-R22 (2000 bytes each), then R23 and R24.
            #expect(chunks == [4, 9, 14, 17, 22, 23, 24])
        }
    }

    @Test func aNamedFileAStoppedChunkLeftIsReusedAndTemporaryFilesAreRemoved() async throws {
        try await MigrationFixture.withStorePath { path in
            try await MigrationFixture.makeStore(at: path, Self.inline, rows: BlobMigrationTests.rows)
            let plan = try Self.migrator(path, chunkRows: 1).plan(to: MigrationFixture.model(Self.external))
            #expect(throws: Stop.self) {
                try Self.migrator(path, chunkRows: 1).migrate(
                    to: plan, allowsDestructiveChanges: false, afterChunk: nil,
                    afterBlobFile: { _, moved in if moved == 2 { throw Stop() } })
            }
            // A's chunk committed with its file; B's chunk rolled back and removed its temporary file. What a kill
            // between B's file reaching its name and the commit leaves: B's file, named, and a stray temporary file.
            #expect(try BlobMigrationTests.files(path).count == 1)
            let bytes = try #require(BlobMigrationTests.photos["B"])
            let reference = BlobReference(digest: SHA256.digest(bytes))
            let folder = try #require(BlobFolder(databasePath: path))
            _ = try bytes.withUnsafeBytes { try folder.write($0, as: reference) }
            let stray = path + "-blobs/ab/" + String(repeating: "ab", count: 32) + ".tmp"
            try FileManager.default.createDirectory(atPath: path + "-blobs/ab", withIntermediateDirectories: true)
            try Data("partial".utf8).write(to: URL(fileURLWithPath: stray))
            let inode = try #require(Self.inode(folder.filePath(of: reference)))
            try Self.migrator(path, chunkRows: 1).migrate(to: plan)
            #expect(try BlobMigrationTests.references(path)[1] == reference.hash)
            #expect(Self.inode(folder.filePath(of: reference)) == inode, "the file was reused, not written again")
            #expect(!FileManager.default.fileExists(atPath: stray))
            let references = try BlobMigrationTests.references(path).compactMap { $0 }
            #expect(try BlobMigrationTests.files(path) == Set(references).map { "\($0.prefix(2))/\($0)" }.sorted())
            #expect(try BlobMigrationTests.counts(path) == [reference.hash: 1, references[0]: 2])
        }
    }

    @Test func aStoreMidMoveIsRefusedAndAMigrationToAnotherModelRemovesTheFilesTheStoppedMoveWrote() async throws {
        try await MigrationFixture.withStorePath { path in
            try await MigrationFixture.makeStore(at: path, Self.inline, rows: Self.rows)
            #expect(throws: Stop.self) {
                try Self.migrator(path).migrate(
                    to: Self.migrator(path).plan(to: MigrationFixture.model(Self.external)),
                    allowsDestructiveChanges: false, afterChunk: { _, rows in if rows == 12 { throw Stop() } })
            }
            #expect(try BlobMigrationTests.files(path).count == 5)
            let refused = await #expect(throws: StoreError.self) {
                _ = try await PersistentStore.open(
                    PersistentStoreDescription(path: path), model: MigrationFixture.model(Self.inline))
            }
            #expect(refused?.code == .migrationInProgress)
            // Another model, that keeps every value in its row: the copy is dropped, and so are the files.
            let other = Self.inline.replacingOccurrences(of: "sku: string", with: "sku: string\n      note: string")
            try Self.migrator(path).migrate(to: MigrationFixture.model(other))
            let after = try Self.snapshot(path)
            #expect(after.files.isEmpty && after.counts.isEmpty && !after.marker)
            #expect(!after.values.values.contains { $0.hasPrefix("text:") })
            #expect(try MigrationFixture.column(at: path, "SELECT count(*) FROM sqlite_master WHERE name LIKE 'ferry_migrating%'") == [.integer(0)])
        }
    }
}

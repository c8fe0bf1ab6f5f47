import FerrySQLite
import Foundation
import Testing

@testable import FerryStore

/// External storage through context saves: where values go, how they read back, shared files, and when files go.
struct BlobStorageTests {
    @Test func aValueNoLargerThanTheThresholdStaysInlineAsABlob() async throws {
        let fixture = try await BlobStorageFixture(threshold: 1024)
        let context = fixture.context()
        let bytes = BlobStorageFixture.bytes(1024)
        try context.performAndWait {
            context.insertPhoto("small", image: bytes)
            try context.save()
        }
        #expect(try fixture.rows("SELECT typeof(image), image FROM Photo") == [[.text("blob"), .blob(Array(bytes))]])
        #expect(fixture.blobFiles().isEmpty)
        #expect(try fixture.referenceCounts().isEmpty)
    }

    @Test func aValueAboveTheThresholdGoesToAContentAddressedFileAndReadsBack() async throws {
        let fixture = try await BlobStorageFixture(threshold: 1024)
        let bytes = BlobStorageFixture.bytes(1025)
        let writer = fixture.context()
        try writer.performAndWait {
            writer.insertPhoto("large", image: bytes)
            try writer.save()
        }
        let reference = BlobStorageFixture.reference(of: bytes)
        #expect(try fixture.rows("SELECT typeof(image), image FROM Photo") == [[.text("text"), .text(reference)]])
        #expect(fixture.blobFiles() == [BlobStorageFixture.relativePath(of: bytes)])
        #expect(fixture.fileBytes(BlobStorageFixture.relativePath(of: bytes)) == bytes)
        #expect(try fixture.referenceCounts() == [BlobStorageFixture.hash(of: bytes): 1])
        #expect(try fixture.rows("SELECT size FROM ferry_blobs") == [[.integer(1025)]])

        let reader = fixture.context()
        try reader.performAndWait {
            let photo = try #require(try reader.photo(titled: "large"))
            #expect(photo["image"] == bytes)
            var request = FetchRequest(entityName: "Photo")
            request.resultType = .dictionary
            request.propertiesToFetch = ["title", "image"]
            let dictionaries = try reader.fetchDictionaries(request)
            #expect(dictionaries.first?["image"] == .some(.binary(bytes)))
        }
    }

    @Test func theDefaultThresholdIs128KiB() async throws {
        let fixture = try await BlobStorageFixture(threshold: nil)
        #expect(fixture.store.description.externalStorageThreshold == 128 * 1024)
        let context = fixture.context()
        try context.performAndWait {
            context.insertPhoto("at", image: BlobStorageFixture.bytes(128 * 1024, seed: 1))
            context.insertPhoto("above", image: BlobStorageFixture.bytes(128 * 1024 + 1, seed: 2))
            try context.save()
        }
        #expect(
            try fixture.rows("SELECT title, typeof(image) FROM Photo ORDER BY title")
                == [[.text("above"), .text("text")], [.text("at"), .text("blob")]])
        #expect(fixture.blobFiles().count == 1)
    }

    @Test func anAttributeWithoutExternalStorageKeepsLargeValuesInline() async throws {
        let fixture = try await BlobStorageFixture(threshold: 16)
        let context = fixture.context()
        try context.performAndWait {
            context.insertPhoto("p", image: nil, thumbnail: BlobStorageFixture.bytes(4096))
            try context.save()
        }
        #expect(
            try fixture.rows("SELECT typeof(thumbnail), typeof(image) FROM Photo") == [[.text("blob"), .text("null")]])
        #expect(fixture.blobFiles().isEmpty)
    }

    @Test func theSameBytesStoredTwiceMakeOneFileThatGoesWithItsLastReference() async throws {
        let fixture = try await BlobStorageFixture()
        let bytes = BlobStorageFixture.bytes(5000)
        let context = fixture.context()
        let (first, second) = try context.performAndWait {
            let first = context.insertPhoto("one", image: bytes)
            let album = context.insertAlbum("Summer", cover: bytes)
            try context.save()
            return (first, album)
        }
        let hash = BlobStorageFixture.hash(of: bytes)
        #expect(fixture.blobFiles() == [BlobStorageFixture.relativePath(of: bytes)])
        #expect(try fixture.referenceCounts() == [hash: 2])

        try context.performAndWait {
            context.delete(first)
            try context.save()
        }
        #expect(fixture.blobFiles() == [BlobStorageFixture.relativePath(of: bytes)])
        #expect(try fixture.referenceCounts() == [hash: 1])

        try context.performAndWait {
            context.delete(second)
            try context.save()
        }
        #expect(fixture.blobFiles().isEmpty)
        #expect(try fixture.referenceCounts().isEmpty)
    }

    @Test func anUpdateReplacingABlobReleasesTheOldFileAfterCommit() async throws {
        let fixture = try await BlobStorageFixture()
        let old = BlobStorageFixture.bytes(3000, seed: 1)
        let new = BlobStorageFixture.bytes(3000, seed: 2)
        let context = fixture.context()
        let photo = try context.performAndWait {
            let photo = context.insertPhoto("p", image: old)
            try context.save()
            return photo
        }
        #expect(fixture.blobFiles() == [BlobStorageFixture.relativePath(of: old)])
        try context.performAndWait {
            photo["image"] = new
            try context.save()
        }
        #expect(fixture.blobFiles() == [BlobStorageFixture.relativePath(of: new)])
        #expect(try fixture.referenceCounts() == [BlobStorageFixture.hash(of: new): 1])
        #expect(try fixture.rows("SELECT image FROM Photo") == [[.text(BlobStorageFixture.reference(of: new))]])

        // Shrinking below the threshold brings the value inline and releases the file too.
        let small = BlobStorageFixture.bytes(10)
        try context.performAndWait {
            photo["image"] = small
            try context.save()
        }
        #expect(fixture.blobFiles().isEmpty)
        #expect(try fixture.rows("SELECT image FROM Photo") == [[.blob(Array(small))]])
        let reader = fixture.context()
        let read = try reader.performAndWait { try reader.photo(titled: "p")?["image"] as Data? }
        #expect(read == small)
    }

    @Test func aFailedSaveRemovesTheFilesItWroteAndKeepsTheOthers() async throws {
        let fixture = try await BlobStorageFixture()
        let kept = BlobStorageFixture.bytes(2000, seed: 1)
        let context = fixture.context()
        try context.performAndWait {
            context.insertAlbum("Summer", cover: kept)
            try context.save()
        }
        let failing = fixture.context(.error)
        let refused = BlobStorageFixture.bytes(2000, seed: 2)
        failing.performAndWait {
            // The same bytes as a stored file, plus a new file, in a save the uniqueness constraint refuses.
            failing.insertAlbum("Summer", cover: refused)
            failing.insertPhoto("shared", image: kept)
            #expect(throws: SaveConflictError.self) { try failing.save() }
        }
        #expect(fixture.blobFiles() == [BlobStorageFixture.relativePath(of: kept)])
        #expect(try fixture.referenceCounts() == [BlobStorageFixture.hash(of: kept): 1])
    }

    @Test func anInMemoryStoreKeepsEveryValueInline() async throws {
        let container = PersistentContainer(
            name: "Photos", model: BlobStorageFixture.model, storeDescription: .inMemory)
        try await container.loadPersistentStores()
        let context = container.newBackgroundContext()
        let bytes = BlobStorageFixture.bytes(300_000)
        try context.performAndWait {
            context.insertPhoto("p", image: bytes)
            try context.save()
            context.reset()
            let read = try context.photo(titled: "p")?["image"] as Data?
            #expect(read == bytes)
        }
        let kinds = try await container.persistentStore.writer.run { connection in
            try connection.prepare("SELECT typeof(image) FROM Photo").fetchAll().map { $0[0] }
        }
        #expect(kinds == [.text("blob")])
        #expect(try await container.persistentStore.sweepBlobs() == BlobSweepReport())
    }
}

import FerrySQLite
import Foundation
import Testing

@testable import FerryStore

/// External storage through batch requests: inserts (dictionaries, rows, packed rows, upserts), updates and deletes
/// with cascades make the same decisions as saves and keep the reference counts right.
struct BlobStorageBatchTests {
    @Test func aBatchInsertExternalizesLargeValuesFromEverySource() async throws {
        let fixture = try await BlobStorageFixture()
        let large = BlobStorageFixture.bytes(4000, seed: 1)
        let small = BlobStorageFixture.bytes(100, seed: 2)
        _ = try await fixture.store.execute(
            BatchInsertRequest(
                entityName: "Photo",
                objects: [
                    ["title": .string("d-large"), "image": .binary(large)],
                    ["title": .string("d-small"), "image": .binary(small)],
                ]),
            mergePolicy: .error)
        _ = try await fixture.store.execute(
            BatchInsertRequest(
                entityName: "Photo", columns: ["title", "image"], rows: [[.string("r-large"), .binary(large)]]),
            mergePolicy: .error)
        var packed = PackedRows(columns: ["title", "image"])
        for (title, bytes) in [("p-large", large), ("p-small", small)] {
            var title = title
            title.withUTF8 { packed.appendText(UnsafeRawBufferPointer($0)) }
            bytes.withUnsafeBytes { packed.appendBlob($0) }
            packed.endRow()
        }
        _ = try await fixture.store.execute(
            BatchInsertRequest(entityName: "Photo", packedRows: packed), mergePolicy: .error)

        #expect(
            try fixture.rows("SELECT title, typeof(image) FROM Photo ORDER BY title")
                == [
                    [.text("d-large"), .text("text")], [.text("d-small"), .text("blob")],
                    [.text("p-large"), .text("text")], [.text("p-small"), .text("blob")],
                    [.text("r-large"), .text("text")],
                ])
        #expect(fixture.blobFiles() == [BlobStorageFixture.relativePath(of: large)])
        #expect(try fixture.referenceCounts() == [BlobStorageFixture.hash(of: large): 3])
        let context = fixture.context()
        let images = try context.performAndWait {
            try context.all("Photo", sortedBy: "title").map { $0["image"] as Data? }
        }
        #expect(images == [large, small, large, small, large])
    }

    @Test func anUpsertReplacingABlobReleasesTheOldFileAndAnIgnoredRowLeavesNoFile() async throws {
        let fixture = try await BlobStorageFixture()
        let first = BlobStorageFixture.bytes(3000, seed: 1)
        let second = BlobStorageFixture.bytes(3000, seed: 2)
        let ignored = BlobStorageFixture.bytes(3000, seed: 3)
        _ = try await fixture.store.execute(
            BatchInsertRequest(entityName: "Album", objects: [["name": .string("A"), "cover": .binary(first)]]),
            mergePolicy: .error)
        let upsert = try await fixture.store.execute(
            BatchInsertRequest(entityName: "Album", objects: [["name": .string("A"), "cover": .binary(second)]]),
            mergePolicy: .mergeByPropertyObjectTrump)
        #expect(upsert.updatedCount == 1)
        #expect(fixture.blobFiles() == [BlobStorageFixture.relativePath(of: second)])

        let kept = try await fixture.store.execute(
            BatchInsertRequest(entityName: "Album", objects: [["name": .string("A"), "cover": .binary(ignored)]]),
            mergePolicy: .mergeByPropertyStoreTrump)
        #expect(kept.insertedCount == 0 && kept.updatedCount == 0)
        #expect(fixture.blobFiles() == [BlobStorageFixture.relativePath(of: second)])
        #expect(try fixture.referenceCounts() == [BlobStorageFixture.hash(of: second): 1])
    }

    @Test func batchDeleteWithCascadeRemovesTheChildrenAndTheirBlobFiles() async throws {
        let fixture = try await BlobStorageFixture()
        let cover = BlobStorageFixture.bytes(2000, seed: 1)
        let images = (2...4).map { BlobStorageFixture.bytes(2000, seed: UInt8($0)) }
        let shared = BlobStorageFixture.bytes(2000, seed: 9)
        let context = fixture.context()
        try context.performAndWait {
            let summer = context.insertAlbum("Summer", cover: cover)
            for (index, image) in images.enumerated() { context.insertPhoto("s\(index)", image: image, album: summer) }
            context.insertPhoto("s-shared", image: shared, album: summer)
            let winter = context.insertAlbum("Winter", cover: nil)
            context.insertPhoto("w-shared", image: shared, album: winter)
            try context.save()
        }
        #expect(fixture.blobFiles().count == 5)

        var request = FetchRequest(entityName: "Album")
        request.predicate = try FetchPredicate(format: "name == %@", "Summer")
        let result = try await fixture.store.execute(BatchDeleteRequest(fetchRequest: request, resultType: .count))
        #expect(result.deletedCount == 1 && result.cascadedCount == 4)
        #expect(try fixture.rows("SELECT title FROM Photo") == [[.text("w-shared")]])
        // The file another album's photo still refers to stays; every other file is gone.
        #expect(fixture.blobFiles() == [BlobStorageFixture.relativePath(of: shared)])
        #expect(try fixture.referenceCounts() == [BlobStorageFixture.hash(of: shared): 1])
        #expect(try fixture.danglingReferences().isEmpty)
    }

    @Test func aBatchUpdateExternalizesALargeConstantAndReleasesTheValuesItReplaces() async throws {
        let fixture = try await BlobStorageFixture()
        let context = fixture.context()
        let olds = (1...3).map { BlobStorageFixture.bytes(1500, seed: UInt8($0)) }
        try context.performAndWait {
            for (index, old) in olds.enumerated() { context.insertPhoto("p\(index)", image: old) }
            try context.save()
        }
        let new = BlobStorageFixture.bytes(1500, seed: 7)
        let result = try await fixture.store.execute(
            BatchUpdateRequest(entityName: "Photo", propertiesToUpdate: ["image": .constant(.binary(new))]))
        #expect(result.updatedCount == 3)
        #expect(fixture.blobFiles() == [BlobStorageFixture.relativePath(of: new)])
        #expect(try fixture.referenceCounts() == [BlobStorageFixture.hash(of: new): 3])
        #expect(
            try fixture.rows("SELECT DISTINCT typeof(image), image FROM Photo")
                == [[.text("text"), .text(BlobStorageFixture.reference(of: new))]])

        // Setting nil releases the file too.
        _ = try await fixture.store.execute(
            BatchUpdateRequest(entityName: "Photo", propertiesToUpdate: ["image": .constant(nil)]))
        #expect(fixture.blobFiles().isEmpty)
        #expect(try fixture.referenceCounts().isEmpty)
    }

    @Test func aBatchUpdateCopyingAnExternalAttributeIntoAnInlineOneIsRefused() async throws {
        let fixture = try await BlobStorageFixture()
        await #expect {
            try await fixture.store.execute(
                BatchUpdateRequest(entityName: "Photo", propertiesToUpdate: ["thumbnail": .keyPath("image")]))
        } throws: { error in
            (error as? StoreError)?.code == .invalidBatchRequest
                && "\(error)".contains("'thumbnail' keeps its values in its row")
        }
        // The other way round is allowed: the stored form is copied, and an inline value stays inline.
        let context = fixture.context()
        let bytes = BlobStorageFixture.bytes(5000)
        try context.performAndWait {
            context.insertPhoto("p", image: nil, thumbnail: bytes)
            try context.save()
        }
        _ = try await fixture.store.execute(
            BatchUpdateRequest(entityName: "Photo", propertiesToUpdate: ["image": .keyPath("thumbnail")]))
        let read = try context.performAndWait { () throws -> Data? in
            context.reset()
            return try context.photo(titled: "p")?["image"]
        }
        #expect(read == bytes)
    }
}

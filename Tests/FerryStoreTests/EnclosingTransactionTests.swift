import FerrySQLite
import Foundation
import Testing

@testable import FerryStore

/// ``PersistentStore/withEnclosingTransaction(_:)``: several batch requests and saves commit together or not at all,
/// readers see the store as it was until the commit, and blob files and rows never disagree either way.
struct EnclosingTransactionTests {
    struct Failure: Error {}

    static func insertPhotos(_ titles: [String], image: Data, into store: PersistentStore) async throws {
        _ = try await store.execute(
            BatchInsertRequest(
                entityName: "Photo", objects: titles.map { ["title": .string($0), "image": .binary(image)] }),
            mergePolicy: .error)
    }

    @Test func requestsInsideCommitTogetherAndReadersSeeTheOldRowsUntilThen() async throws {
        let fixture = try await BlobStorageFixture()
        let old = BlobStorageFixture.bytes(4000, seed: 1)
        let new = BlobStorageFixture.bytes(4000, seed: 2)
        try await Self.insertPhotos(["a", "b"], image: old, into: fixture.store)

        var seenInside: [[SQLiteValue]] = []
        try await fixture.store.withEnclosingTransaction {
            _ = try await fixture.store.execute(BatchDeleteRequest(fetchRequest: FetchRequest(entityName: "Photo")))
            try await Self.insertPhotos(["c"], image: new, into: fixture.store)
            let context = fixture.context()
            try context.performAndWait {
                context.insertPhoto("d", image: nil)
                try context.save()
            }
            seenInside = try fixture.rows("SELECT title FROM Photo ORDER BY title")
        }

        #expect(seenInside == [[.text("a")], [.text("b")]])
        #expect(try fixture.rows("SELECT title FROM Photo ORDER BY title") == [[.text("c")], [.text("d")]])
        // The old file went once the deletion committed; the new one stays with its row.
        #expect(fixture.blobFiles() == [BlobStorageFixture.relativePath(of: new)])
        #expect(try fixture.danglingReferences().isEmpty)
        // Keys of the deleted rows are not given to the new ones.
        #expect(try fixture.rows("SELECT min(_pk) > 2 FROM Photo") == [[.integer(1)]])
    }

    @Test func aFailureInsideRollsEveryRequestBackAndKeepsTheOldRowsFiles() async throws {
        let fixture = try await BlobStorageFixture()
        let old = BlobStorageFixture.bytes(4000, seed: 1)
        let new = BlobStorageFixture.bytes(4000, seed: 2)
        try await Self.insertPhotos(["a", "b"], image: old, into: fixture.store)

        await #expect(throws: Failure.self) {
            try await fixture.store.withEnclosingTransaction {
                _ = try await fixture.store.execute(
                    BatchDeleteRequest(fetchRequest: FetchRequest(entityName: "Photo")))
                try await Self.insertPhotos(["c"], image: new, into: fixture.store)
                throw Failure()
            }
        }

        #expect(try fixture.rows("SELECT title FROM Photo ORDER BY title") == [[.text("a")], [.text("b")]])
        // The file the deleted rows released is still there for the rows that came back; the new one is gone.
        #expect(fixture.blobFiles() == [BlobStorageFixture.relativePath(of: old)])
        #expect(try fixture.danglingReferences().isEmpty)
        #expect(try fixture.referenceCounts() == [BlobStorageFixture.hash(of: old): 2])
        // The writer is usable again, outside any transaction.
        try await Self.insertPhotos(["e"], image: new, into: fixture.store)
        #expect(try fixture.rows("SELECT count(*) FROM Photo") == [[.integer(3)]])
    }

    @Test func aRequestThatFailsInsideIsRolledBackAloneAndTheRestCommits() async throws {
        let fixture = try await BlobStorageFixture()
        try await fixture.store.withEnclosingTransaction {
            _ = try await fixture.store.execute(
                BatchInsertRequest(entityName: "Album", objects: [["name": .string("x")]]), mergePolicy: .error)
            // A second album of the same name breaks the uniqueness constraint under the error policy.
            await #expect(throws: StoreError.self) {
                _ = try await fixture.store.execute(
                    BatchInsertRequest(entityName: "Album", objects: [["name": .string("y")], ["name": .string("x")]]),
                    mergePolicy: .error)
            }
            _ = try await fixture.store.execute(
                BatchInsertRequest(entityName: "Album", objects: [["name": .string("z")]]), mergePolicy: .error)
        }

        #expect(try fixture.rows("SELECT name FROM Album ORDER BY name") == [[.text("x")], [.text("z")]])
    }

    @Test func anEnclosingTransactionInsideAnotherIsRolledBackAloneOrCommitsWithTheOuterOne() async throws {
        let fixture = try await BlobStorageFixture()
        let store = fixture.store
        func album(_ name: String) async throws {
            _ = try await store.execute(
                BatchInsertRequest(entityName: "Album", objects: [["name": .string(name)]]), mergePolicy: .error)
        }

        try await store.withEnclosingTransaction {
            try await album("outer")
            await #expect(throws: Failure.self) {
                try await store.withEnclosingTransaction {
                    try await album("rolled back")
                    throw Failure()
                }
            }
            try await store.withEnclosingTransaction { try await album("inner") }
            #expect(try fixture.rows("SELECT count(*) FROM Album") == [[.integer(0)]])
        }

        #expect(try fixture.rows("SELECT name FROM Album ORDER BY name") == [[.text("inner")], [.text("outer")]])
    }
}

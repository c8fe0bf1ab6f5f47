import FerrySQLite
import Foundation
import Testing

@testable import FerryStore

/// External storage when things go wrong: a crash between a file's write and the commit, tampered references,
/// missing files, leftovers in the folder, and stores made before the counting triggers existed.
struct BlobStorageSafetyTests {
    @Test func aSaveKilledBetweenTheBlobWriteAndTheCommitLeavesAnOrphanThatTheSweepRemoves() async throws {
        let fixture = try await BlobStorageFixture()
        let kept = BlobStorageFixture.bytes(2000, seed: 1)
        let lost = BlobStorageFixture.bytes(2000, seed: 2)
        let context = fixture.context()
        try context.performAndWait {
            context.insertPhoto("kept", image: kept)
            try context.save()
        }
        fixture.store.blobFaults.crashAfterNextBlobWrite()
        context.performAndWait {
            context.insertPhoto("lost", image: lost)
            #expect(throws: BlobFaultInjection.SimulatedCrash.self) { try context.save() }
        }
        let keptPath = BlobStorageFixture.relativePath(of: kept)
        let lostPath = BlobStorageFixture.relativePath(of: lost)
        #expect(fixture.blobFiles() == [keptPath, lostPath].sorted())
        #expect(try fixture.rows("SELECT title FROM Photo") == [[.text("kept")]])
        #expect(try fixture.danglingReferences().isEmpty)
        #expect(try fixture.referenceCounts() == [BlobStorageFixture.hash(of: kept): 1])

        let report = try await fixture.store.sweepBlobs()
        #expect(report.removedFiles == [lostPath])
        #expect(report.removedTemporaryFiles.isEmpty && report.missingFiles.isEmpty)
        #expect(fixture.blobFiles() == [keptPath])
        #expect(try await fixture.store.sweepBlobs() == BlobSweepReport())

        // The save, tried again, writes the file again.
        try context.performAndWait { try context.save() }
        #expect(fixture.blobFiles() == [keptPath, lostPath].sorted())
        #expect(try fixture.danglingReferences().isEmpty)
    }

    @Test func aBatchInsertKilledBeforeItsCommitLeavesAnOrphanThatReopeningTheStoreRemoves() async throws {
        let fixture = try await BlobStorageFixture()
        let lost = BlobStorageFixture.bytes(5000)
        fixture.store.blobFaults.crashAfterNextBlobWrite()
        await #expect(throws: BlobFaultInjection.SimulatedCrash.self) {
            try await fixture.store.execute(
                BatchInsertRequest(entityName: "Photo", objects: [["title": .string("lost"), "image": .binary(lost)]]),
                mergePolicy: .error)
        }
        #expect(fixture.blobFiles() == [BlobStorageFixture.relativePath(of: lost)])
        #expect(try fixture.rows("SELECT count(*) FROM Photo") == [[.integer(0)]])

        _ = try await PersistentStore.open(fixture.container.storeDescription, model: BlobStorageFixture.model)
        #expect(fixture.blobFiles().isEmpty)
        #expect(try fixture.referenceCounts().isEmpty)
    }

    @Test(arguments: [
        "../../etc/passwd",
        "ferry-blob:sha256:../../../../../../../../../../../../../../../../../../../../etc/passwd",
        "ferry-blob:sha256:" + String(repeating: "g", count: 64),
        "ferry-blob:sha256:" + String(repeating: "a", count: 63),
        "ferry-blob:sha256:" + String(repeating: "a", count: 65),
        "ferry-blob:sha512:" + String(repeating: "a", count: 64),
    ])
    func aTamperedReferenceIsRefusedWithAClearErrorAndNeverRead(tampered: String) async throws {
        let fixture = try await BlobStorageFixture()
        let bytes = BlobStorageFixture.bytes(2000)
        let context = fixture.context()
        try context.performAndWait {
            context.insertPhoto("p", image: bytes)
            try context.save()
        }
        try fixture.execute("UPDATE Photo SET image = '\(tampered)'")
        // The triggers count only well-formed references: the tampered text released the file and counts nothing.
        #expect(try fixture.referenceCounts() == [BlobStorageFixture.hash(of: bytes): 0])

        let reader = fixture.context()
        _ = reader.performAndWait {
            #expect {
                _ = try reader.photo(titled: "p")
            } throws: { error in
                guard let error = error as? StoreError, error.code == .invalidBlobReference else { return false }
                // The message says what is wrong and where, and does not repeat the stored text.
                return error.message.contains("'image' of Photo holds TEXT that is not a blob reference")
                    && !error.message.contains("etc/passwd")
            }
        }
        var request = FetchRequest(entityName: "Photo")
        request.resultType = .dictionary
        await #expect {
            _ = try await fixture.store.fetch(request)
        } throws: { ($0 as? StoreError)?.code == .invalidBlobReference }
    }

    @Test func anUppercaseHashIsRefusedThoughTheFileExists() async throws {
        let fixture = try await BlobStorageFixture()
        let bytes = BlobStorageFixture.bytes(2000)
        let context = fixture.context()
        try context.performAndWait {
            context.insertPhoto("p", image: bytes)
            try context.save()
        }
        try fixture.execute("UPDATE Photo SET image = upper(image)")
        let reader = fixture.context()
        _ = reader.performAndWait {
            #expect { _ = try reader.photo(titled: "p") } throws: {
                ($0 as? StoreError)?.code == .invalidBlobReference
            }
        }
    }

    @Test func aMissingFileFailsTheReadAndTheSweepReportsIt() async throws {
        let fixture = try await BlobStorageFixture()
        let bytes = BlobStorageFixture.bytes(2000)
        let context = fixture.context()
        try context.performAndWait {
            context.insertPhoto("p", image: bytes)
            try context.save()
        }
        let path = BlobStorageFixture.relativePath(of: bytes)
        try FileManager.default.removeItem(atPath: fixture.blobFolder + "/" + path)
        let reader = fixture.context()
        _ = reader.performAndWait {
            #expect { _ = try reader.photo(titled: "p") } throws: { ($0 as? StoreError)?.code == .blobFileMissing }
        }
        let report = try await fixture.store.sweepBlobs()
        #expect(report.missingFiles == [path])
        #expect(!report.removedAnything)
    }

    @Test func theSweepRemovesTemporaryFilesAndLeavesFilesTheStoreDidNotWrite() async throws {
        let fixture = try await BlobStorageFixture()
        let bytes = BlobStorageFixture.bytes(2000)
        let context = fixture.context()
        try context.performAndWait {
            context.insertPhoto("p", image: bytes)
            try context.save()
        }
        let hash = String(repeating: "ab", count: 32)
        let manager = FileManager.default
        try manager.createDirectory(atPath: fixture.blobFolder + "/ab", withIntermediateDirectories: true)
        for name in ["ab/\(hash).tmp", "ab/readme", "notes.txt", "ab/\(String(repeating: "cd", count: 32))"] {
            #expect(manager.createFile(atPath: fixture.blobFolder + "/" + name, contents: Data("x".utf8)))
        }
        let report = try await fixture.store.sweepBlobs()
        #expect(report.removedTemporaryFiles == ["ab/\(hash).tmp"])
        // A hash-named file in the wrong sub-folder is not a name the store writes, so it stays too.
        #expect(report.removedFiles.isEmpty)
        #expect(manager.fileExists(atPath: fixture.blobFolder + "/notes.txt"))
        #expect(manager.fileExists(atPath: fixture.blobFolder + "/ab/readme"))
        #expect(manager.fileExists(atPath: fixture.blobFolder + "/" + BlobStorageFixture.relativePath(of: bytes)))
    }

    @Test func openingAStoreMadeWithoutTheCountingTriggersAddsThem() async throws {
        let fixture = try await BlobStorageFixture()
        let names = try fixture.rows(
            "SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'ferry\\_blob\\_%' ESCAPE '\\' "
                + "ORDER BY name"
        ).compactMap { $0[0].text }
        #expect(
            names == [
                "ferry_blob_Album_cover_delete", "ferry_blob_Album_cover_insert", "ferry_blob_Album_cover_update",
                "ferry_blob_Photo_image_delete", "ferry_blob_Photo_image_insert", "ferry_blob_Photo_image_update",
            ])
        for name in names { try fixture.execute("DROP TRIGGER \"\(name)\"") }
        try fixture.execute("DROP TABLE ferry_blobs")
        let reopened = try await PersistentStore.open(
            fixture.container.storeDescription, model: BlobStorageFixture.model)
        #expect(try fixture.rows("SELECT count(*) FROM sqlite_master WHERE name LIKE 'ferry_blob%'") == [[.integer(8)]])
        let bytes = BlobStorageFixture.bytes(3000)
        _ = try await reopened.execute(
            BatchInsertRequest(entityName: "Photo", objects: [["image": .binary(bytes)]]), mergePolicy: .error)
        #expect(try fixture.referenceCounts() == [BlobStorageFixture.hash(of: bytes): 1])
    }

    @Test func aModelWithoutExternalStorageGetsNoBlobTablesOrFolder() async throws {
        let fixture = try await ContextFixture()
        #expect(try fixture.rows("SELECT count(*) FROM sqlite_master WHERE name LIKE 'ferry_blob%'") == [[.integer(0)]])
        #expect(try await fixture.container.persistentStore.sweepBlobs() == BlobSweepReport())
        #expect(!FileManager.default.fileExists(atPath: fixture.container.storeDescription.sqlitePath + "-blobs"))
    }
}

/// References and hashing on their own.
struct BlobReferenceTests {
    @Test func onlyTheExactShapeParses() {
        let hash = String(repeating: "0123456789abcdef", count: 4)
        let reference = BlobReference(storedText: "ferry-blob:sha256:" + hash)
        #expect(reference?.hash == hash)
        #expect(reference?.relativePath == "01/" + hash)
        #expect(reference?.storedText == "ferry-blob:sha256:" + hash)
        for text in [
            "", hash, "ferry-blob:sha256:", "ferry-blob:sha256:" + hash.uppercased(), " ferry-blob:sha256:" + hash,
            "ferry-blob:sha256:" + hash + "\n", "ferry-blob:sha256:" + hash.dropLast() + "/",
            "ferry-blob:sha256:" + hash.dropLast(2) + "é",
        ] {
            #expect(BlobReference(storedText: text) == nil, "\(text)")
        }
    }

    @Test func theStreamingHashMatchesTheOneShotHashAtEverySplitPoint() {
        #expect(
            BlobStorageFixture.hash(of: Data("abc".utf8))
                == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        let data = BlobStorageFixture.bytes(1000)
        let expected = SHA256.digest(data)
        for chunk in [1, 2, 3, 7, 63, 64, 65, 128, 999] {
            var hasher = SHA256.Hasher()
            data.withUnsafeBytes { bytes in
                for start in stride(from: 0, to: bytes.count, by: chunk) {
                    hasher.update(UnsafeRawBufferPointer(rebasing: bytes[start..<min(start + chunk, bytes.count)]))
                }
            }
            #expect(hasher.finalize() == expected, "chunk \(chunk)")
        }
    }
}

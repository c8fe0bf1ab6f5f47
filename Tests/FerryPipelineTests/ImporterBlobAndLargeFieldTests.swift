import FerryIO
import FerryPipeline
import FerrySQLite
import FerryStore
import FerryTestSupport
import Foundation
import Testing

/// Blob columns read files only from the input's folder (or the step's `blobRoots`), and large fields and blobs
/// import in both modes with memory that follows the data.
final class ImporterBlobAndLargeFieldTests {
    static let modelYAML = """
        entities:
          Item:
            attributes:
              id: { type: string, optional: false }
              text: string
              photo: binary
            uniquenessConstraints: [[id]]
        """

    let folder: URL
    /// The input's folder, inside ``folder``.
    let inputs: URL

    init() throws {
        folder = try TestSupport.makeTemporaryFolder()
        inputs = folder.appendingPathComponent("inputs")
        try FileManager.default.createDirectory(
            at: inputs.appendingPathComponent("photos"), withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: folder)
    }

    /// Imports `csv` (written to the input folder as `name`) into a fresh store; returns the result and the store.
    func importItems(
        _ csv: String, name: String = "items.csv", mode: ImportSpec.Mode = .batch,
        _ adjust: (inout ImportSpec) -> Void = { _ in }
    ) async throws -> (ImportResult, PersistentContainer) {
        let input = inputs.appendingPathComponent(name)
        try Data(csv.utf8).write(to: input)
        let container = PersistentContainer(
            name: "items", model: try ModelFile(yaml: Self.modelYAML).model,
            storeDescription: PersistentStoreDescription(path: folder.appendingPathComponent("\(mode).sqlite").path))
        try await container.loadPersistentStores()
        var spec = ImportSpec(entity: "Item", sources: [input.path])
        spec.blobs = [BlobMapping(column: "photo")]
        spec.mode = mode
        spec.rejectsPath = folder.appendingPathComponent("rejects-\(mode).csv").path
        adjust(&spec)
        return (try await Importer(container: container).run(spec, name: "items"), container)
    }

    func rows(_ container: PersistentContainer, _ sql: String) throws -> [[SQLiteValue]] {
        let connection = try Connection(path: container.storeDescription.sqlitePath, mode: .readOnly)
        return try connection.prepare(sql).fetchAll().map { row in (0..<row.count).map { row[$0] } }
    }

    // MARK: Confinement

    @Test func blobPathsLeadingOutOfTheInputsFolderAreRejectedWithTheirReason() async throws {
        let secret = folder.appendingPathComponent("secret.txt")
        try Data("secret".utf8).write(to: secret)
        try Data("inside".utf8).write(to: inputs.appendingPathComponent("photos/a.bin"))
        try FileManager.default.createSymbolicLink(
            at: inputs.appendingPathComponent("photos/out"), withDestinationURL: secret)
        try FileManager.default.createSymbolicLink(
            at: inputs.appendingPathComponent("photos/in"),
            withDestinationURL: inputs.appendingPathComponent("photos/a.bin"))
        try FileManager.default.createSymbolicLink(
            at: inputs.appendingPathComponent("up"), withDestinationURL: folder)
        let csv = """
            id,photo
            inside,photos/a.bin
            link-inside,photos/in
            parent,../secret.txt
            absolute,\(secret.path)
            symlink,photos/out
            symlinked-folder,up/secret.txt
            passwd,../../../../../../../../etc/passwd
            environ,/proc/self/environ
            dot-dot-inside,photos/../../inputs/photos/a.bin
            """

        let (result, container) = try await importItems(csv)

        #expect(result.counts.inserted == 3 && result.counts.rejected == 6)
        #expect(
            try rows(container, "SELECT id, CAST(photo AS TEXT) FROM Item ORDER BY id") == [
                [.text("dot-dot-inside"), .text("inside")], [.text("inside"), .text("inside")],
                [.text("link-inside"), .text("inside")],
            ])
        let rejects = try String(contentsOfFile: try #require(result.rejectsPath), encoding: .utf8)
            .split(separator: "\n").dropFirst()
        #expect(rejects.count == 6)
        for line in rejects {
            #expect(line.contains("is outside the folders blob files are read from"), "\(line)")
        }
    }

    @Test func blobRootsAllowOtherFoldersAndNothingElse() async throws {
        try Data("secret".utf8).write(to: folder.appendingPathComponent("secret.txt"))
        let csv = """
            id,photo
            parent,../secret.txt
            passwd,/etc/passwd
            """

        let (result, container) = try await importItems(csv) { $0.blobRoots = [self.folder.path] }

        #expect(result.counts.inserted == 1 && result.counts.rejected == 1)
        #expect(
            try rows(container, "SELECT id, CAST(photo AS TEXT) FROM Item") == [[.text("parent"), .text("secret")]])
    }

    @Test func theParserReadsBlobRootsRelativeToThePipelineFile() throws {
        let pipeline = folder.appendingPathComponent("p.yml")
        try Data("id,photo\n".utf8).write(to: inputs.appendingPathComponent("items.csv"))
        let yaml = """
            store: s.sqlite
            steps:
              - import: { name: items, source: inputs/items.csv, entity: Item, blobs: { photo: photo }, blobRoots: [shared, /srv/photos] }
            """
        let file = try PipelineFileParser.parse(yaml: yaml, path: pipeline.path)
        guard case .importRecords(let spec) = try #require(file.steps.first).action else {
            Issue.record("not an import step")
            return
        }
        #expect(spec.blobRoots == [folder.appendingPathComponent("shared").path, "/srv/photos"])
    }

    // MARK: Large fields

    @Test(arguments: [ImportSpec.Mode.batch, .context])
    func aSixteenMebibyteFieldAndALargeBlobImport(mode: ImportSpec.Mode) async throws {
        let large = String(repeating: "x", count: 16 * 1024 * 1024)
        var photo = Data(count: 700 * 1024)
        photo[0] = 1
        try photo.write(to: inputs.appendingPathComponent("photos/large.bin"))
        let csv = "id,text,photo\nbig,\(large),\nphoto,small,photos/large.bin\n"

        let (result, container) = try await importItems(csv, mode: mode) { $0.blobs = [BlobMapping(column: "photo")] }

        #expect(result.counts.inserted == 2 && result.counts.rejected == 0)
        #expect(try rows(container, "SELECT length(text) FROM Item WHERE id = 'big'") == [[.integer(16 * 1024 * 1024)]])
        let stored = try await container.persistentStore.writer.run { connection in
            try connection.prepare("SELECT photo FROM Item WHERE id = 'photo'").fetchOne()?[0]
        }
        // Above the store's external-storage threshold: the column holds a reference to the blob file.
        #expect(stored != nil && stored != .null)
    }
}

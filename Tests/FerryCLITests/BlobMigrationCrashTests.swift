import FerrySQLite
import FerryTestSupport
import Foundation
import Testing

/// The built `ferry migrate` killed with SIGKILL while it moves a binary attribute's values into blob files (the
/// attribute newly allows external storage): the store is at its old model or the new one, no row ever refers to a
/// file that is not there, and the next `ferry migrate` ends with exactly one file per value and no leftovers.
@Suite(.serialized)
struct BlobMigrationCrashTests {
    let ferry = BuiltCommand(product: "ferry")
    static let rows = 240
    static let v1 = """
        entities:
          Product:
            attributes: { sku: string, photo: binary }
        """
    static let v2 = """
        entities:
          Product:
            attributes: { sku: string, photo: { type: binary, allowsExternalStorage: true } }
        """

    /// The trials, on a store at v1 holding `rows` products, each with a distinct 140 KB photo (above the 128 KiB
    /// threshold).
    func trials(in folder: URL) throws -> MigrationKillTrials {
        try MigrationKillTrials(
            ferry: ferry, folder: folder, v1: Self.v1, v2: Self.v2, csv: "sku\nSKU-X\n",
            fill: """
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(Self.rows))
                INSERT INTO Product (_ent, sku, photo) SELECT 1, printf('SKU-%04d', i), randomblob(140000) FROM n;
                """)
    }

    /// The files in the blob folder (temporary ones included), as relative paths.
    func files(_ path: String) -> [String] {
        let folder = path + "-blobs"
        let names = (FileManager.default.enumerator(atPath: folder)?.allObjects as? [String]) ?? []
        return names.filter { name in
            var isFolder: ObjCBool = false
            return FileManager.default.fileExists(atPath: folder + "/" + name, isDirectory: &isFolder)
                && !isFolder.boolValue
        }
    }

    /// The model hash, and the hashes the rows refer to (each checked to have its file), and how many rows are inline.
    func state(_ path: String) throws -> (hash: String, referenced: Set<String>, inline: Int) {
        let connection = try Connection(path: path, mode: .readOnly)
        let hash = try MigrationKillTrials.modelHash(connection)
        var referenced: Set<String> = []
        var inline = 0
        for row in try connection.prepare("SELECT typeof(photo), photo FROM Product").fetchAll() {
            if row[0].text == "text", let text = row[1].text {
                let digest = String(text.dropFirst("ferry-blob:sha256:".count))
                referenced.insert(digest)
                #expect(
                    FileManager.default.fileExists(atPath: "\(path)-blobs/\(digest.prefix(2))/\(digest)"),
                    "a row refers to a missing file")
            } else {
                inline += 1
            }
        }
        #expect(try connection.prepare("PRAGMA integrity_check").fetchOne()?[0].text == "ok")
        return (hash, referenced, inline)
    }

    @Test func aMoveToBlobFilesKilledAtAnyMomentLeavesNoRowPointingAtAMissingFile() throws {
        let folder = try TestSupport.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let trials = try trials(in: folder)
        let store = trials.store
        let arguments = ["migrate", "--store", store, "--model", "v2.yml", "--quiet"]
        let before = try state(trials.template)
        #expect(before.inline == Self.rows && before.referenced.isEmpty)
        let seconds = try trials.runUninterrupted(arguments)
        let after = try state(store)
        #expect(after.referenced.count == Self.rows && after.inline == 0)
        #expect(files(store).count == Self.rows)
        var landings = (old: 0, midMove: 0, new: 0)
        try trials.run(arguments, trials: 6, over: seconds) { trial in
            let killed = try state(store)
            if killed.hash == after.hash {
                #expect(killed.referenced.count == Self.rows && killed.inline == 0, "trial \(trial)")
                landings.new += 1
            } else {
                #expect(killed.hash == before.hash, "trial \(trial)")
                #expect(killed.referenced.isEmpty && killed.inline == Self.rows, "trial \(trial)")
                // Files written before the kill, that no row refers to: the next run's sweep removes what it does not
                // use.
                if files(store).isEmpty { landings.old += 1 } else { landings.midMove += 1 }
            }
        } afterRerun: { trial in
            let finished = try state(store)
            #expect(finished.hash == after.hash && finished.referenced == after.referenced, "trial \(trial)")
            // One file per value, no temporary files or orphans left by the killed run.
            #expect(
                files(store).sorted() == after.referenced.map { "\($0.prefix(2))/\($0)" }.sorted(), "trial \(trial)")
        }
        print("blob migration crash trials: 6 kills: \(landings)")
    }
}

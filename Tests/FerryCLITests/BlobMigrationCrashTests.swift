import FerrySQLite
import FerryTestSupport
import Foundation
import Testing

/// The built `ferry migrate` killed with SIGKILL while it moves a binary attribute's values between rows and blob
/// files, in chunks of 8 rows (30 chunks), so kills land inside chunks and between them: the store is at its old
/// model (its rows untouched) or the new one, no row ever refers to a file that is not there, imports and exports
/// are refused while the move is unfinished, and the next `ferry migrate` ends with the uninterrupted move's rows,
/// exactly one file per distinct referenced value, and no leftovers. Both directions: into files, and back into
/// rows with every file shared by two rows.
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

    /// The trials, on a store at v1 holding `rows` products, each photo 140 KB (above the 128 KiB threshold):
    /// distinct random bytes, or with `shared`, the digits of `i % 120` so that two rows hold each value.
    func trials(in folder: URL, shared: Bool = false) throws -> MigrationKillTrials {
        let photo = shared ? "CAST(printf('%0140000d', i % 120) AS BLOB)" : "randomblob(140000)"
        return try MigrationKillTrials(
            ferry: ferry, folder: folder, v1: Self.v1, v2: Self.v2, csv: "sku\nSKU-X\n",
            fill: """
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(Self.rows))
                INSERT INTO Product (_ent, sku, photo) SELECT 1, printf('SKU-%04d', i), \(photo) FROM n;
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

    /// What a kill or a run left: the model hash, the hashes the rows refer to (each checked to have its file), how
    /// many rows are inline, each row's value (`sku` → inline bytes' length and first and last bytes, or the
    /// reference), the reference counts, and whether the migration marker is set.
    struct State {
        var hash: String
        var referenced: Set<String>
        var inline: Int
        var values: [String: String]
        var counts: [String: Int64]
        var marker: Bool
    }

    func state(_ path: String) throws -> State {
        let connection = try Connection(path: path, mode: .readOnly)
        var state = State(
            hash: try MigrationKillTrials.modelHash(connection), referenced: [], inline: 0, values: [:], counts: [:],
            marker: false)
        let rows = try connection.prepare(
            "SELECT sku, typeof(photo), CASE WHEN typeof(photo) = 'text' THEN photo ELSE length(photo) || ':' "
                + "|| hex(substr(photo, 1, 8)) || hex(substr(photo, -8)) END FROM Product"
        ).fetchAll()
        for row in rows {
            let value = row[2].text ?? ""
            state.values[row[0].text ?? ""] = value
            if row[1].text == "text" {
                let digest = String(value.dropFirst("ferry-blob:sha256:".count))
                state.referenced.insert(digest)
                #expect(
                    FileManager.default.fileExists(atPath: "\(path)-blobs/\(digest.prefix(2))/\(digest)"),
                    "a row refers to a missing file")
            } else {
                state.inline += 1
            }
        }
        let tables = Set(
            try connection.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").fetchAll().compactMap {
                $0[0].text
            })
        if tables.contains("ferry_blobs") {
            for row in try connection.prepare("SELECT hash, refs FROM ferry_blobs WHERE refs > 0").fetchAll() {
                state.counts[row[0].text ?? ""] = row[1].integer ?? 0
            }
        }
        if tables.contains("ferry_migration") {
            state.marker = try connection.prepare("SELECT count(*) FROM ferry_migration").fetchOne()?[0].integer == 1
        }
        #expect(try connection.prepare("PRAGMA integrity_check").fetchOne()?[0].text == "ok")
        return state
    }

    /// Imports and exports refuse the store: it is in the middle of a migration. The import names `model`, the model
    /// the store is at (with the model the migration goes to, the import would finish the migration first).
    func expectRefused(_ trials: MigrationKillTrials, model: String, trial: Int) throws {
        let export = try ferry.run(["export", "--store", trials.store, "--entity", "Product"], in: trials.folder)
        #expect(export.status == 75, "trial \(trial)")
        #expect(export.standardError.contains("middle of a migration"), "trial \(trial)")
        let imported = try ferry.run(
            ["import", "one.csv", "--store", trials.store, "--model", model, "--entity", "Product"],
            in: trials.folder)
        #expect(imported.status == 75, "trial \(trial)")
        #expect(imported.standardError.contains("middle of a migration"), "trial \(trial)")
    }

    @Test func aMoveToBlobFilesKilledAtAnyMomentLeavesNoRowPointingAtAMissingFile() throws {
        let folder = try TestSupport.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let trials = try trials(in: folder)
        let store = trials.store
        let arguments = ["migrate", "--store", store, "--model", "v2.yml", "--chunk-rows", "8", "--quiet"]
        let before = try state(trials.template)
        #expect(before.inline == Self.rows && before.referenced.isEmpty)
        let seconds = try trials.runUninterrupted(arguments)
        let after = try state(store)
        #expect(after.referenced.count == Self.rows && after.inline == 0)
        #expect(files(store).count == Self.rows)
        #expect(after.counts.count == Self.rows && after.counts.values.allSatisfy { $0 == 1 })
        var landings = (old: 0, midMove: 0, new: 0)
        try trials.run(arguments, trials: 8, over: seconds) { trial in
            let killed = try state(store)
            if killed.hash == after.hash {
                #expect(killed.values == after.values && killed.counts == after.counts, "trial \(trial)")
                landings.new += 1
            } else {
                #expect(killed.hash == before.hash, "trial \(trial)")
                #expect(killed.values == before.values, "trial \(trial): the old rows are untouched")
                // Files of committed chunks, and perhaps temporary files of the chunk the kill stopped, that no row
                // refers to: the next run reuses or removes them.
                if killed.marker {
                    landings.midMove += 1
                    try expectRefused(trials, model: "v1.yml", trial: trial)
                } else {
                    landings.old += 1
                }
            }
        } afterRerun: { trial in
            let finished = try state(store)
            #expect(finished.hash == after.hash && finished.values == after.values, "trial \(trial)")
            #expect(finished.counts == after.counts && !finished.marker, "trial \(trial)")
            // One file per value, no temporary files or orphans left by the killed run.
            #expect(
                files(store).sorted() == after.referenced.map { "\($0.prefix(2))/\($0)" }.sorted(), "trial \(trial)")
        }
        print("blob migration crash trials, into files: 8 kills: \(landings)")
    }

    @Test func aMoveOfSharedFilesBackIntoRowsKilledAtAnyMomentResumesToTheSameRows() throws {
        let folder = try TestSupport.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let trials = try trials(in: folder, shared: true)
        let original = try state(trials.template)
        // The template moves to v2 first: 120 files, each referred to by two rows.
        let made = try ferry.run(
            ["migrate", "--store", trials.template, "--model", "v2.yml", "--quiet"], in: folder)
        #expect(made.status == 0, "\(made.standardError)")
        _ = try Connection(path: trials.template).checkpoint(.truncate)
        let before = try state(trials.template)
        #expect(before.referenced.count == 120 && before.inline == 0)
        #expect(before.counts.count == 120 && before.counts.values.allSatisfy { $0 == 2 })
        let store = trials.store
        let arguments = ["migrate", "--store", store, "--model", "v1.yml", "--chunk-rows", "8", "--quiet"]
        let seconds = try trials.runUninterrupted(arguments)
        let after = try state(store)
        #expect(after.values == original.values && after.inline == Self.rows)
        #expect(files(store).isEmpty && after.counts.isEmpty)
        var landings = (old: 0, midMove: 0, new: 0)
        try trials.run(arguments, trials: 8, over: seconds) { trial in
            let killed = try state(store)
            if killed.hash == after.hash {
                #expect(killed.values == original.values, "trial \(trial)")
                landings.new += 1
            } else {
                #expect(killed.hash == before.hash, "trial \(trial)")
                // Every row still refers to its file, and every file is there (checked by state) and still counted.
                #expect(killed.values == before.values && killed.counts == before.counts, "trial \(trial)")
                if killed.marker {
                    landings.midMove += 1
                    try expectRefused(trials, model: "v2.yml", trial: trial)
                } else {
                    landings.old += 1
                }
            }
        } afterRerun: { trial in
            let finished = try state(store)
            #expect(finished.hash == after.hash && finished.values == original.values, "trial \(trial)")
            #expect(finished.counts.isEmpty && !finished.marker, "trial \(trial)")
            #expect(files(store).isEmpty, "trial \(trial)")
        }
        print("blob migration crash trials, back into rows: 8 kills: \(landings)")
    }
}

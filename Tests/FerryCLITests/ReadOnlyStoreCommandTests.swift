import FerrySQLite
import FerryTestSupport
import Foundation
import Testing

/// The commands that only read a store work on one this user may only read, as on a read-only mount, and leave it
/// exactly as it was; those that record in the store say why they cannot.
///
/// `ferry` runs as `nobody` (through util-linux's `setpriv`) when the tests run as root, who may write anywhere,
/// otherwise as the current user; a store owned by yet another user needs root.
struct ReadOnlyStoreCommandTests {
    /// `nobody` when the tests run as root, who may write anywhere; otherwise `nil`, the current user.
    static let unprivileged: Int? = getuid() == 0 ? 65534 : nil

    /// A temporary folder every user may enter (`mode`), with a copy of `ferry` that any user can run (wherever the
    /// build folder is) and `items.csv` holding `csv`.
    struct Workspace {
        let executable: URL
        let items: String

        init(_ folder: URL, mode: Int, csv: String) throws {
            let manager = FileManager.default
            try manager.setAttributes([.posixPermissions: mode], ofItemAtPath: folder.path)
            executable = folder.appendingPathComponent("ferry")
            try manager.copyItem(at: BuiltCommand(product: "ferry").url, to: executable)
            items = try TestSupport.write(Array(csv.utf8), to: "items.csv", in: folder)
            try manager.setAttributes([.posixPermissions: 0o644], ofItemAtPath: items)
        }

        /// Runs `ferry` with `arguments` as the user `uid` (`nil`: this process's; another one needs root).
        func run(as uid: Int?, _ arguments: [String]) throws -> BuiltCommand.Result {
            guard let uid else { return try BuiltCommand(url: executable).run(arguments) }
            return try BuiltCommand(url: URL(fileURLWithPath: "/usr/bin/setpriv")).run(
                ["--reuid=\(uid)", "--regid=\(uid)", "--clear-groups", executable.path] + arguments)
        }

        /// The items imported into a new store at `store` (entity `Item`, keyed by `sku`) by the user `uid`.
        func importItems(into store: String, as uid: Int? = nil) throws {
            let imported = try run(
                as: uid, ["import", items, "--store", store, "--entity", "Item", "--key", "sku", "--quiet"])
            try #require(imported.status == 0, "\(imported.standardError)")
        }
    }

    @Test func exportSnapshotAndInspectReadAStoreInAFolderNoOneMayWrite() throws {
        try TestSupport.withTemporaryFolder { folder in
            let manager = FileManager.default
            let workspace = try Workspace(
                folder, mode: 0o755, csv: "sku,name,qty\nA1,Tea,3\nB2,Mug,\nC3,\"Café, crème\",12\n")
            let shelf = folder.appendingPathComponent("shelf")
            let output = folder.appendingPathComponent("out")
            for made in [shelf, output] { try manager.createDirectory(at: made, withIntermediateDirectories: false) }
            try manager.setAttributes([.posixPermissions: 0o777], ofItemAtPath: output.path)
            let store = shelf.appendingPathComponent("catalog.sqlite").path
            try workspace.importItems(into: store)
            let bytes = try Data(contentsOf: URL(fileURLWithPath: store))
            let names = try manager.contentsOfDirectory(atPath: shelf.path).sorted()
            try manager.setAttributes([.posixPermissions: 0o444], ofItemAtPath: store)
            try manager.setAttributes([.posixPermissions: 0o555], ofItemAtPath: shelf.path)
            defer { try? manager.setAttributes([.posixPermissions: 0o755], ofItemAtPath: shelf.path) }

            let csv = try workspace.run(
                as: Self.unprivileged, ["export", "--store", store, "--entity", "Item", "--quiet"])
            #expect(csv.status == 0, "\(csv.standardError)")
            #expect(csv.standardOutput == "sku,name,qty\nA1,Tea,3\nB2,Mug,\nC3,\"Café, crème\",12\n")

            let parquet = output.appendingPathComponent("items.parquet").path
            let export = try workspace.run(
                as: Self.unprivileged, ["export", "--store", store, "--entity", "Item", "--output", parquet, "--quiet"])
            #expect(export.status == 0, "\(export.standardError)")
            let manifest =
                try JSONSerialization.jsonObject(
                    with: Data(contentsOf: URL(fileURLWithPath: parquet + ".manifest.json"))) as? [String: Any]
            #expect(manifest?["rows"] as? Int == 3)

            let snapshot = output.appendingPathComponent("snapshot")
            let copied = try workspace.run(
                as: Self.unprivileged, ["snapshot", "--store", store, "--output", snapshot.path, "--quiet"])
            #expect(copied.status == 0, "\(copied.standardError)")
            let copy = try Connection(path: snapshot.appendingPathComponent("catalog.sqlite").path, mode: .readOnly)
            #expect(try copy.prepare("SELECT count(*) FROM Item").fetchOne()?[0] == .integer(3))

            let dataset = output.appendingPathComponent("dataset").path
            let parquetSnapshot = try workspace.run(
                as: Self.unprivileged,
                ["snapshot", "--store", store, "--format", "parquet", "--output", dataset, "--quiet"])
            #expect(parquetSnapshot.status == 0, "\(parquetSnapshot.standardError)")
            #expect(manager.fileExists(atPath: dataset + "/_SUCCESS"))

            let inspect = try workspace.run(as: Self.unprivileged, ["inspect", "--store", store])
            #expect(inspect.status == 0, "\(inspect.standardError)")
            #expect(inspect.standardOutput.contains(/\n  Item +3\n/), "\(inspect.standardOutput)")

            // An incremental export records how far it got in the store: refused before anything is written.
            let incremental = output.appendingPathComponent("changes.csv").path
            let refused = try workspace.run(
                as: Self.unprivileged,
                ["export", "--store", store, "--entity", "Item", "--output", incremental, "--since-last", "nightly"])
            #expect(refused.status == 74)
            #expect(
                refused.standardError.contains(
                    "this session records what it does in the store (an incremental export's position, a publish run), "
                        + "and the store's file cannot be written by this user"), "\(refused.standardError)")
            #expect(!manager.fileExists(atPath: incremental))

            #expect(try manager.contentsOfDirectory(atPath: shelf.path).sorted() == names)
            #expect(try Data(contentsOf: URL(fileURLWithPath: store)) == bytes)
        }
    }

    /// A store copied with its write-ahead log into a folder no one may write: the log's commits are read (the file
    /// is not opened as immutable), and without the log's `-shm` index, which SQLite would have to create, the export
    /// fails saying so rather than read the file without them.
    @Test func aStoreCopiedWithItsLogIsReadWithItsLastCommits() throws {
        try TestSupport.withTemporaryFolder { folder in
            let manager = FileManager.default
            let workspace = try Workspace(folder, mode: 0o755, csv: "sku,qty\nA1,3\nB2,4\n")
            let store = folder.appendingPathComponent("live.sqlite").path
            try workspace.importItems(into: store)
            let copies = [folder.appendingPathComponent("with-index"), folder.appendingPathComponent("log-only")]
            do {
                // A commit left in the log, and the files copied while the connection holds them.
                let writer = try Connection(path: store)
                try writer.execute("PRAGMA wal_autocheckpoint = 0; UPDATE Item SET qty = 30 WHERE sku = 'A1'")
                for (copy, suffixes) in zip(copies, [["", "-wal", "-shm"], ["", "-wal"]]) {
                    try manager.createDirectory(at: copy, withIntermediateDirectories: false)
                    for suffix in suffixes {
                        try manager.copyItem(atPath: store + suffix, toPath: copy.path + "/live.sqlite" + suffix)
                    }
                }
            }
            for copy in copies { try manager.setAttributes([.posixPermissions: 0o555], ofItemAtPath: copy.path) }
            defer {
                for copy in copies { try? manager.setAttributes([.posixPermissions: 0o755], ofItemAtPath: copy.path) }
            }

            let withIndex = copies[0].appendingPathComponent("live.sqlite").path
            let read = try workspace.run(
                as: Self.unprivileged, ["export", "--store", withIndex, "--entity", "Item", "--quiet"])
            #expect(read.status == 0, "\(read.standardError)")
            #expect(read.standardOutput == "sku,qty\nA1,30\nB2,4\n")

            let logOnly = copies[1].appendingPathComponent("live.sqlite").path
            let refused = try workspace.run(
                as: Self.unprivileged, ["export", "--store", logOnly, "--entity", "Item", "--quiet"])
            #expect(refused.status == 74)
            #expect(
                refused.standardError.contains(
                    "its write-ahead log (-wal) lies beside it without its -shm file, which SQLite must create to read "
                        + "the log, and the folder cannot be written"), "\(refused.standardError)")
            #expect(refused.standardOutput == "")
        }
    }

    /// Another user's store in a folder everyone may write: reading it would leave `-wal` and `-shm` files the owner
    /// could not write, on which the owner's next import would fail, so the reader is refused and the owner's import
    /// goes on. Two users other than root are needed.
    @Test(.enabled(if: getuid() == 0, "needs root, to run ferry as two other users"))
    func anotherUsersStoreInASharedFolderIsRefusedRatherThanLeftUnwritableForItsOwner() throws {
        try TestSupport.withTemporaryFolder { folder in
            let manager = FileManager.default
            let workspace = try Workspace(folder, mode: 0o777, csv: "sku,qty\nA1,3\n")
            let store = folder.appendingPathComponent("team.sqlite").path
            let owner = 1001
            try workspace.importItems(into: store, as: owner)

            let read = try workspace.run(as: 65534, ["export", "--store", store, "--entity", "Item", "--quiet"])
            #expect(read.status == 74)
            #expect(
                read.standardError.contains(
                    "this user may write its folder but not the file, and SQLite would leave -wal and -shm files beside "
                        + "it, owned by this user, on which its owner's next write would fail"),
                "\(read.standardError)")
            #expect(!manager.fileExists(atPath: store + "-wal"))
            #expect(!manager.fileExists(atPath: store + "-shm"))

            try workspace.importItems(into: store, as: owner)
        }
    }
}

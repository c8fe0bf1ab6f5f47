import FerryIO
import Foundation

/// A dataset folder written beside its destination and renamed into place when complete, with a `_SUCCESS` marker.
///
/// Files go to a temporary sibling folder (`.NAME.ferry-tmp-PID-RAND`, see ``TemporarySibling``); ``commit()``
/// writes `_SUCCESS` and renames the folder to the destination, replacing a dataset already there (moved aside
/// first, then removed), so a reader finds the old dataset or the new one, never a part. A dataset dropped without
/// ``commit()`` removes its folder; one a killed process left is removed by the next export to the same path.
final class ExportDataset {
    /// The destination folder.
    let path: String
    private let temporaryPath: String
    private var committed = false

    /// Starts a dataset for `path`.
    ///
    /// - Throws: ``FerryIOError`` when the temporary folder cannot be created.
    init(path: String) throws {
        self.path = path
        for abandoned in TemporarySibling.abandoned(for: path) {
            try? FileManager.default.removeItem(atPath: abandoned)
        }
        temporaryPath = TemporarySibling.path(for: path)
        try Self.makeFolder(temporaryPath, reportedAs: path)
    }

    deinit {
        if !committed { try? FileManager.default.removeItem(atPath: temporaryPath) }
    }

    /// The path, inside the temporary folder, of the file at `relative` (`name=value/part-00000.parquet`), its
    /// folders created.
    ///
    /// - Throws: ``FerryIOError`` when a folder cannot be created.
    func filePath(_ relative: String) throws -> String {
        if let slash = relative.lastIndex(of: "/") {
            try Self.makeFolder(temporaryPath + "/" + relative[..<slash], reportedAs: path + "/" + relative)
        }
        return temporaryPath + "/" + relative
    }

    /// Writes `_SUCCESS` and moves the folder into place.
    ///
    /// - Throws: ``FerryIOError`` when writing the marker or renaming fails; the destination is then untouched (or,
    ///   when replacing, still holds the previous dataset).
    func commit() throws {
        precondition(!committed, "a dataset committed twice")
        let marker = try OutputFile(path: temporaryPath + "/_SUCCESS")
        try marker.commit()
        var aside: String?
        if FileManager.default.fileExists(atPath: path) {
            let moved = TemporarySibling.path(for: path)
            guard rename(path, moved) == 0 else { throw failure("moving the previous dataset aside failed") }
            aside = moved
        }
        guard rename(temporaryPath, path) == 0 else {
            let error = failure("renaming the dataset into place failed")
            if let aside { _ = rename(aside, path) }
            throw error
        }
        committed = true
        if let aside { try? FileManager.default.removeItem(atPath: aside) }
    }

    private func failure(_ what: String) -> FerryIOError {
        let code = errno
        return FerryIOError(.io, "\(what): \(String(cString: strerror(code)))", file: path, errno: code)
    }

    /// Creates `folder` and any missing parents (mkdir -p), reporting failures against `reported`.
    private static func makeFolder(_ folder: String, reportedAs reported: String) throws {
        var prefix = folder.hasPrefix("/") ? "/" : ""
        for component in folder.split(separator: "/") {
            prefix += component
            if mkdir(prefix, 0o755) != 0 && errno != EEXIST {
                let code = errno
                throw FerryIOError(
                    code == ENOENT ? .fileNotFound : code == EACCES ? .permissionDenied : .io,
                    "cannot create the dataset folder: \(String(cString: strerror(code)))", file: reported,
                    errno: code)
            }
            prefix += "/"
        }
    }
}

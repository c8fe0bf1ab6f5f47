import Foundation

#if canImport(Glibc)
    import Glibc
#else
    import Darwin
#endif

/// Reads the files a blob column names, only from inside the folders the step allows: the input file's folder, or
/// the step's ``ImportSpec/blobRoots``. A path is resolved first (`..`, symbolic links, absolute paths), so no
/// spelling leads out; a path outside, or a file that is not a regular file (a device, a pipe), is refused with
/// the reason, which makes its record a reject.
struct BlobFileReader {
    /// The allowed folders, symbolic links resolved, each ending in `/`.
    private let roots: [String]
    /// The folder relative paths start from.
    private let base: URL

    /// A reader for paths relative to `inputFolder`, confined to `roots` (relative ones from the current folder),
    /// or to `inputFolder` when `roots` is empty.
    init(inputFolder: URL, roots: [String]) {
        base = inputFolder
        let allowed = roots.isEmpty ? [inputFolder.path] : roots
        self.roots = allowed.map { root in
            let resolved = Self.resolvedPath(root) ?? URL(fileURLWithPath: root).standardizedFileURL.path
            return resolved.hasSuffix("/") ? resolved : resolved + "/"
        }
    }

    /// The bytes of the file `path` names (relative to the input's folder unless absolute), or why they cannot be
    /// read.
    func contents(of path: String) -> Result<Data, BlobFileRefusal> {
        let url = path.hasPrefix("/") ? URL(fileURLWithPath: path) : base.appendingPathComponent(path)
        guard let resolved = Self.resolvedPath(url.path) else {
            return .failure(BlobFileRefusal(message: "cannot read the file '\(path)' (looked for \(url.path))"))
        }
        guard roots.contains(where: { resolved.hasPrefix($0) }) else {
            let folders = roots.map { String($0.dropLast()) }.joined(separator: ", ")
            return .failure(
                BlobFileRefusal(
                    message: "the file '\(path)' is outside the folders blob files are read from (\(folders)); "
                        + "the step's blobRoots names others"))
        }
        var status = stat()
        guard stat(resolved, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else {
            return .failure(BlobFileRefusal(message: "'\(path)' is not a regular file"))
        }
        // The resolved path holds no symbolic link: what was checked is what is read.
        guard let data = FileManager.default.contents(atPath: resolved) else {
            return .failure(BlobFileRefusal(message: "cannot read the file '\(path)' (looked for \(url.path))"))
        }
        return .success(data)
    }

    /// `path` absolute, with `.`, `..` and every symbolic link resolved; `nil` when it does not exist.
    private static func resolvedPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}

/// Why a blob file was not read.
struct BlobFileRefusal: Error {
    var message: String
}

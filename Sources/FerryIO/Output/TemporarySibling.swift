#if canImport(Glibc)
    import Glibc
#else
    import Darwin
#endif

/// The names of the temporary files and folders an output is written under before it is renamed into place, and
/// the ones a killed process left behind.
///
/// A temporary sibling of `DIR/NAME` is `DIR/.NAME.ferry-tmp-PID-RAND`: in the same folder (so the rename is
/// atomic), hidden, and naming the process writing it. A process killed mid-write cannot remove its own; the next
/// writer of the same output removes those whose process is gone (``abandoned(for:)``), never one a live process
/// may still be writing.
package enum TemporarySibling {
    /// A new temporary path beside `destination`, for this process.
    package static func path(for destination: String) -> String {
        let (directory, name) = split(destination)
        return "\(directory).\(name)\(marker)\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    }

    /// The temporary siblings of `destination` whose writing process no longer exists (full paths); the current
    /// process's own and those of live processes are left out.
    package static func abandoned(for destination: String) -> [String] {
        let (directory, name) = split(destination)
        let prefix = ".\(name)\(marker)"
        guard let folder = opendir(directory.isEmpty ? "." : directory) else { return [] }
        defer { closedir(folder) }
        var found: [String] = []
        while let entry = readdir(folder) {
            let entryName = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
                String(decoding: bytes.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            guard entryName.hasPrefix(prefix) else { continue }
            let rest = entryName.dropFirst(prefix.count).split(separator: "-", omittingEmptySubsequences: false)
            guard rest.count == 2, let pid = Int32(rest[0]), pid > 0, UInt32(rest[1]) != nil,
                isGone(pid)
            else { continue }
            found.append(directory + entryName)
        }
        return found
    }

    /// Removes the temporary files beside `destination` that a process no longer running left (see
    /// ``abandoned(for:)``); folders are left for their owner to remove. Failures are ignored: a leftover is
    /// tidied up, never needed.
    package static func removeAbandonedFiles(for destination: String) {
        for path in abandoned(for: destination) { unlink(path) }
    }

    private static let marker = ".ferry-tmp-"

    /// `("DIR/", "NAME")` for `DIR/NAME`, `("", "NAME")` for a bare name.
    private static func split(_ path: String) -> (directory: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return ("", path) }
        return (String(path[...slash]), String(path[path.index(after: slash)...]))
    }

    /// Whether no process `pid` exists (a process of another user still counts as existing).
    private static func isGone(_ pid: Int32) -> Bool {
        guard pid != getpid() else { return false }
        return kill(pid, 0) != 0 && errno == ESRCH
    }
}

import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Expands shell wildcards (`*`, `?`, `[...]`) in input paths, as a cron job's shell would, sorted.
enum Glob {
    /// The existing paths `pattern` matches; a pattern without wildcards is returned as is when the file exists.
    static func expand(_ pattern: String) -> [String] {
        guard pattern.contains(where: { "*?[".contains($0) }) else {
            return FileManager.default.fileExists(atPath: pattern) ? [pattern] : []
        }
        var result = glob_t()
        defer { globfree(&result) }
        guard glob(pattern, 0, nil, &result) == 0 else { return [] }
        return (0..<Int(result.gl_pathc)).compactMap { index in result.gl_pathv[index].map { String(cString: $0) } }
            .sorted()
    }
}

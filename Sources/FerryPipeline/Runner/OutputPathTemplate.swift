import Foundation

/// What the placeholders of an output path stand for in one run: its date and time (UTC) and its number in the
/// store's ledger.
struct OutputPathValues: Sendable {
    var date: Date
    var run: Int64
}

/// An export's or snapshot's output path, which may name the run that writes it, so that a nightly step writes a
/// new output each night: `{date}` (`2026-11-25`), `{time}` (`023000`, UTC) and `{run}` (the ledger's run number),
/// in the path's last component. ``removeEarlierOutputs(keeping:besides:)`` keeps the newest few of them.
///
/// ```yaml
/// - snapshot: { to: ../out/snapshots/catalog-{date}, keep: 7 }
/// ```
struct OutputPathTemplate: Sendable {
    /// The placeholders, as written.
    static let placeholders = ["{date}", "{time}", "{run}"]

    let path: String

    init(_ path: String) {
        self.path = path
    }

    /// Whether the path names the run at all.
    var isTemplated: Bool { Self.placeholders.contains { path.contains($0) } }

    /// Why the path cannot be a template, or `nil`: placeholders may stand only in the last path component (the
    /// folder that outputs are kept in is fixed).
    var problem: String? {
        let folder = (path as NSString).deletingLastPathComponent
        guard Self.placeholders.contains(where: { folder.contains($0) }) else { return nil }
        return "{date}, {time} and {run} may stand only in the last part of the path, not in its folder"
    }

    /// The path for one run.
    func expanded(with values: OutputPathValues) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: values.date)
        let date = String(format: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
        let time = String(format: "%02d%02d%02d", parts.hour ?? 0, parts.minute ?? 0, parts.second ?? 0)
        return path.replacingOccurrences(of: "{date}", with: date).replacingOccurrences(of: "{time}", with: time)
            .replacingOccurrences(of: "{run}", with: String(values.run))
    }

    /// Removes all but the newest `count` outputs of this template in its folder (by modification time), each with
    /// its companions (its path plus each of `suffixes`, such as an export's `.manifest.json`), and returns the
    /// paths removed. Names that the template does not match, hidden temporary files among them, are never touched.
    ///
    /// - Throws: a file-system error when an output cannot be removed.
    func removeEarlierOutputs(keeping count: Int, besides suffixes: [String] = []) throws -> [String] {
        guard isTemplated else { return [] }
        let url = URL(fileURLWithPath: path)
        let folder = url.deletingLastPathComponent()
        let pattern = try Regex(Self.pattern(for: url.lastPathComponent))
        let manager = FileManager.default
        let outputs = try manager.contentsOfDirectory(atPath: folder.path).filter { $0.wholeMatch(of: pattern) != nil }
            .map { name -> (name: String, modified: Date) in
                let attributes = try? manager.attributesOfItem(atPath: folder.appendingPathComponent(name).path)
                return (name, attributes?[.modificationDate] as? Date ?? .distantPast)
            }
            .sorted { ($0.modified, $0.name) > ($1.modified, $1.name) }
        var removed: [String] = []
        for output in outputs.dropFirst(max(count, 0)) {
            let target = folder.appendingPathComponent(output.name).path
            try manager.removeItem(atPath: target)
            for suffix in suffixes where manager.fileExists(atPath: target + suffix) {
                try manager.removeItem(atPath: target + suffix)
            }
            removed.append(target)
        }
        return removed
    }

    /// A regular expression matching the names `name` expands to: the placeholders as what they write, the rest
    /// literally.
    private static func pattern(for name: String) -> String {
        var pattern = ""
        var rest = Substring(name)
        while !rest.isEmpty {
            if rest.hasPrefix("{date}") {
                pattern += "[0-9]{4}-[0-9]{2}-[0-9]{2}"
                rest = rest.dropFirst(6)
            } else if rest.hasPrefix("{time}") {
                pattern += "[0-9]{6}"
                rest = rest.dropFirst(6)
            } else if rest.hasPrefix("{run}") {
                pattern += "[0-9]+"
                rest = rest.dropFirst(5)
            } else {
                pattern += NSRegularExpression.escapedPattern(for: String(rest.removeFirst()))
            }
        }
        return pattern
    }
}

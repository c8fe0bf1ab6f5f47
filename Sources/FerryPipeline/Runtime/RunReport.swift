import Foundation

/// How a run is reported: one human line per step on standard error, or JSON on standard output (`--json`).
public enum RunReport {
    /// A step's counts for people:
    /// `Product: 1,000 read · 990 inserted · 0 updated · 0 unchanged · 10 rejected (rejects.csv) · 1.23 s`.
    /// Records kept over differing values (store-trump), destinations created and relationships left empty, and
    /// the input columns nothing reads, show only when there are any.
    public static func summary(_ result: ImportResult) -> String {
        let counts = result.counts
        var parts = [
            "\(counts.read.formatted()) read", "\(counts.inserted.formatted()) inserted",
            "\(counts.updated.formatted()) updated", "\(counts.unchanged.formatted()) unchanged",
        ]
        if counts.kept > 0 { parts.append("\(counts.kept.formatted()) kept") }
        parts.append("\(counts.rejected.formatted()) rejected" + (result.rejectsPath.map { " (\($0))" } ?? ""))
        if counts.deleted > 0 { parts.append("\(counts.deleted.formatted()) deleted") }
        parts += linkParts(counts)
        let rate = result.seconds > 0 ? Int(Double(counts.read) / result.seconds) : counts.read
        parts.append(String(format: "%.2f s", result.seconds) + " (\(rate.formatted()) records/s)")
        var text =
            "\(result.entity): " + parts.joined(separator: " · ")
            + keylessNote(appended: result.appended, replaced: result.replaced) + (result.resumed ? " (resumed)" : "")
        if !result.unreadColumns.isEmpty {
            text += "\nunread columns: " + result.unreadColumns.joined(separator: ", ")
                + discardedNote(result.discardedColumns, entity: result.entity)
        }
        return text
    }

    /// The note after a step's unread columns when some were new to the entity and discarded: ` (2 new to Product,
    /// discarded: schema discard-columns)`, or empty.
    static func discardedNote(_ count: Int?, entity: String?) -> String {
        guard let count, count > 0 else { return "" }
        return " (\(count) new to \(entity ?? "the entity"), discarded: schema discard-columns)"
    }

    /// How a keyless step stored its records, for its line: ` (appended: no key)`, ` (replaced: no key)`, or empty.
    static func keylessNote(appended: Bool?, replaced: Bool?) -> String {
        replaced == true ? " (replaced: no key)" : appended == true ? " (appended: no key)" : ""
    }

    /// What resolving relationships did, for a step's line: `created 721 Plane`, `12 left empty`.
    static func linkParts(_ counts: StepCounts) -> [String] {
        counts.created.sorted { $0.key < $1.key }.map { "created \($0.value.formatted()) \($0.key)" }
            + (counts.leftEmpty > 0 ? ["\(counts.leftEmpty.formatted()) left empty"] : [])
    }

    /// A report as one JSON object, keys sorted, pretty-printed, ending with a line break (the same text as
    /// manifests). An import's: `run`, `entity`, `counts` (read, inserted, updated, unchanged, kept,
    /// rejected, deleted, created, leftEmpty), `unreadColumns`, `discardedColumns`, `seconds`, `rejectsPath`,
    /// `inputs` (path, sha256, bytes), `resumed`, `appended` or `replaced` (keyless); a pipeline's: `pipeline`,
    /// `store`, `status`, `seconds`, `steps` (each with its counts and outputs).
    public static func json(_ result: some Encodable) -> String {
        ManifestJSON.text(of: result)
    }
}

import FerryPipeline
import FerrySQLite
import Foundation

/// A generated CSV of items for crash trials, and what importing any prefix of it under store-trump must leave.
///
/// Every 97th code breaks the model's regex and every 89th quantity its minimum (both rejected); every 211th
/// record repeats the key of the record 150 before it with another name (kept: the stored row wins); every 13th name needs
/// quoting. The same `count` always gives the same bytes.
struct CrashTrialInput {
    /// What importing a record does.
    enum Fate: Equatable {
        case inserted, kept, rejected
    }

    static let modelYAML = """
        entities:
          Item:
            attributes:
              code: { type: string, optional: false, regex: "^IT-[0-9]{6}$" }
              name: { type: string, optional: false, minLength: 1 }
              qty: { type: integer32, min: 0 }
              price: { type: double, min: 0 }
            uniquenessConstraints: [[code]]
        """

    let count: Int
    let csv: String
    /// The key of record `n` at `keys[n - 1]`.
    let keys: [String]
    /// The fate of record `n` at `fates[n - 1]`.
    let fates: [Fate]

    init(count: Int) {
        self.count = count
        var csv = "code,name,qty,price\n"
        var keys: [String] = []
        var fates: [Fate] = []
        var stored: Set<String> = []
        keys.reserveCapacity(count)
        for number in 1...count {
            var code = "IT-" + String(repeating: "0", count: max(0, 6 - String(number).count)) + String(number)
            var name = number % 13 == 0 ? "\"Item, \"\"\(number)\"\"\"" : "Item \(number)"
            let quantity = number % 89 == 0 ? -number : number % 1000
            if number % 97 == 0 { code = "IT-\(number)x" }
            if number % 211 == 0 {
                code = keys[number - 151]
                name = "Repeat \(number)"
            }
            csv += "\(code),\(name),\(quantity),\(number % 500).\(number % 10)5\n"
            keys.append(code)
            let valid = !code.hasSuffix("x") && quantity >= 0
            if !valid {
                fates.append(.rejected)
            } else if stored.insert(code).inserted {
                fates.append(.inserted)
            } else {
                fates.append(.kept)
            }
        }
        self.csv = csv
        self.keys = keys
        self.fates = fates
    }

    /// The keys stored once the first `records` records are committed.
    func storedKeys(after records: Int) -> Set<String> {
        Set((0..<records).lazy.filter { fates[$0] == .inserted }.map { keys[$0] })
    }

    /// The numbers (from 1) of the records rejected among the first `records`.
    func rejectedRecords(after records: Int) -> [Int] {
        (0..<records).filter { fates[$0] == .rejected }.map { $0 + 1 }
    }

    /// The counts a run that committed the first `records` records can show. A run into the empty table, in either
    /// mode, defers its indexes: until it builds them, after its last chunk, a record whose key repeats an earlier
    /// one is stored and counted inserted; the build deletes those rows and counts them kept
    /// (their values differ from the first record's).
    func possibleCounts(after records: Int) -> [StepCounts] {
        let settled = counts(after: records)
        var loading = settled
        loading.inserted += loading.kept
        loading.kept = 0
        return records == count ? [loading, settled] : [loading]
    }

    /// The counts of a run that committed the first `records` records.
    func counts(after records: Int) -> StepCounts {
        var counts = StepCounts()
        counts.read = records
        for fate in fates[0..<records] {
            switch fate {
            case .inserted: counts.inserted += 1
            case .kept: counts.kept += 1
            case .rejected: counts.rejected += 1
            }
        }
        return counts
    }
}

/// What a store file holds, read on read-only connections of its own.
enum StoreProbe {
    /// A `ferry_runs` row.
    struct Run {
        var id: Int64
        var status: String
        var pid: Int64
        /// `nil` until the first chunk commits.
        var checkpoint: Checkpoint?
        var counts: StepCounts
        var resumes: Int64?
    }

    /// Rows of `sql`.
    static func rows(_ path: String, _ sql: String) throws -> [Row] {
        // A statement holds its connection unowned: the connection must outlive it, error path included.
        let connection = try Connection(path: path, mode: .readOnly)
        return try withExtendedLifetime(connection) { try connection.prepare(sql).fetchAll() }
    }

    /// `PRAGMA integrity_check`'s answer: "ok" for a sound file.
    static func integrity(_ path: String) throws -> String {
        try rows(path, "PRAGMA integrity_check").map { $0[0].text ?? "?" }.joined(separator: "; ")
    }

    /// Whether the store has a table `name` (a run killed early may leave none).
    static func hasTable(_ path: String, _ name: String) throws -> Bool {
        guard FileManager.default.fileExists(atPath: path) else { return false }
        return try rows(path, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = '\(name)'")
            .first?[0].integer == 1
    }

    /// The latest run recorded, or `nil` when there is none.
    static func latestRun(_ path: String) throws -> Run? {
        guard try hasTable(path, "ferry_runs") else { return nil }
        return try rows(path, "SELECT id, status, pid, checkpoint, counts, resumes FROM ferry_runs ORDER BY id DESC")
            .first.map(run(from:))
    }

    /// A `ferry_runs` row selected as id, status, pid, checkpoint, counts, resumes.
    static func run(from row: Row) -> Run {
        Run(
            id: row[0].integer ?? 0, status: row[1].text ?? "", pid: row[2].integer ?? 0,
            checkpoint: row[3].text.flatMap { try? JSONDecoder().decode(Checkpoint.self, from: Data($0.utf8)) },
            // Counts are '{}' until the first chunk commits.
            counts: row[4].text.flatMap { try? JSONDecoder().decode(StepCounts.self, from: Data($0.utf8)) }
                ?? StepCounts(),
            resumes: row[5].integer)
    }

    /// The stored item codes.
    static func keys(_ path: String) throws -> Set<String> {
        guard try hasTable(path, "Item") else { return [] }
        return Set(try rows(path, "SELECT code FROM Item").map { $0[0].text ?? "" })
    }

    /// The record numbers of the rejects the ledger holds for `runs`, in order.
    static func rejectedRecords(_ path: String, runs: [Int64]) throws -> [Int] {
        guard try hasTable(path, "ferry_rejects") else { return [] }
        let list = runs.map(String.init).joined(separator: ",")
        return try rows(path, "SELECT record FROM ferry_rejects WHERE run IN (\(list)) ORDER BY run, seq").map {
            Int($0[0].integer ?? 0)
        }
    }
}

/// SplitMix64: a seeded generator, so every run of the trials kills at the same moments (relative to the
/// measured duration).
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}

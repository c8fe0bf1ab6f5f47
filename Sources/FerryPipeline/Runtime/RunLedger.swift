import FerryIO
import FerrySQLite
public import FerryStore
import Foundation

/// The store's record of every run: `ferry_runs` (one row per run: pipeline, inputs with their size, modification
/// time and SHA-256, counts, timings, status and checkpoint) and `ferry_rejects` (each rejected record with its
/// reason and position).
///
/// A chunk's checkpoint, counts and rejects are written by `checkpointCompanion(_:)` in the chunk's own
/// transaction, so the ledger never disagrees with the rows: after a crash, the last checkpoint is exactly the
/// last committed chunk.
public struct RunLedger: Sendable {
    /// The table of the keys each chunk read (for a full sync), by run.
    static let seenKeysTable = "ferry_seen"

    /// A run's final (or current) state.
    public enum Status: String, Sendable, Codable {
        case running, succeeded, failed, interrupted
        /// Its process ended while it ran (SIGKILL, a crash, a power loss): set by the next run on the store.
        case killed
    }

    /// One ledger row.
    public struct Run: Sendable, Hashable {
        public var id: Int64
        public var pipeline: String
        public var status: Status
        public var startedAt: String
        public var finishedAt: String?
        public var counts: StepCounts
        public var checkpoint: Checkpoint?
        public var inputs: [InputDigest]
        public var seconds: Double?
        public var pid: Int32
        /// The runs this one continued (`--resume`), nearest first.
        public var resumedRuns: [Int64] = []
    }

    let store: PersistentStore

    /// The ledger of `store`, creating its tables if needed.
    ///
    /// - Throws: `StoreError` when SQLite fails.
    public init(store: PersistentStore) async throws {
        self.store = store
        try await Self.write(store, "creating the run ledger") { connection in
            try connection.execute(
                """
                CREATE TABLE IF NOT EXISTS ferry_runs (
                    id INTEGER PRIMARY KEY, pipeline TEXT NOT NULL, status TEXT NOT NULL, pid INTEGER NOT NULL,
                    started_at TEXT NOT NULL, finished_at TEXT, seconds REAL, inputs TEXT NOT NULL DEFAULT '[]',
                    counts TEXT NOT NULL DEFAULT '{}', checkpoint TEXT, resumes INTEGER,
                    kind TEXT NOT NULL DEFAULT 'import')
                """)
            // Ledgers made before runs had kinds hold imports only.
            if try connection.prepare("SELECT 1 FROM pragma_table_info('ferry_runs') WHERE name = 'kind'").fetchOne()
                == nil
            {
                try connection.execute("ALTER TABLE ferry_runs ADD COLUMN kind TEXT NOT NULL DEFAULT 'import'")
            }
            try connection.execute(
                """
                CREATE TABLE IF NOT EXISTS ferry_rejects (
                    run INTEGER NOT NULL, seq INTEGER NOT NULL, file TEXT NOT NULL, record INTEGER NOT NULL,
                    line INTEGER NOT NULL, reason TEXT NOT NULL, fields TEXT NOT NULL, PRIMARY KEY (run, seq))
                    WITHOUT ROWID
                """)
            try connection.execute(
                "CREATE TABLE IF NOT EXISTS ferry_seen (run INTEGER NOT NULL, key TEXT NOT NULL, PRIMARY KEY (run, key)) "
                    + "WITHOUT ROWID")
        }
    }

    /// An SQL expression for a `ferry_runs` row's kind in the ledger `snapshot` reads: the `kind` column, or
    /// `'import'` in a ledger made before runs had kinds (it holds imports only).
    ///
    /// - Throws: ``SQLiteError`` when the ledger cannot be read.
    static func kindExpression(in snapshot: ReadSnapshot) throws -> String {
        try snapshot.rows("SELECT 1 FROM pragma_table_info('ferry_runs') WHERE name = 'kind'").isEmpty
            ? "'import'" : "kind"
    }

    /// Records a new run of `pipeline` with what identifies its inputs now (their size and modification time; their
    /// SHA-256 follows with ``record(inputs:of:)``) and returns its number. A run records this before its first
    /// chunk commits, so a resume can always tell whether the inputs changed.
    ///
    /// - Throws: `StoreError` when SQLite fails.
    public func start(
        pipeline: String, inputs: [InputDigest] = [], resuming previous: Int64? = nil, kind: String = "import"
    ) async throws -> Int64 {
        let pid = getpid()
        let now = Self.timestamp()
        let inputsJSON = Self.json(inputs)
        return try await Self.write(store, "starting a run") { connection in
            let insert = try connection.prepare(
                "INSERT INTO ferry_runs (pipeline, status, pid, started_at, inputs, resumes, kind) "
                    + "VALUES (?, 'running', ?, ?, ?, ?, ?) RETURNING id")
            try insert.bind([
                .text(pipeline), .integer(Int64(pid)), .text(now), .text(inputsJSON),
                previous.map { .integer($0) } ?? .null, .text(kind),
            ])
            return try insert.fetchOne()?[0].integer ?? 0
        }
    }

    /// Marks every run of another process still recorded as running as killed, and returns their numbers. Only the
    /// holder of the store's lock (``StoreLock``) calls this, before it starts its own run: no other process can be
    /// running on the store then, so its running rows are of processes that died. This process's own are live (a
    /// pipeline's run row while its import steps start theirs); a dead process whose ID this one reuses leaves its
    /// row to the next run of another process.
    ///
    /// - Throws: `StoreError` when SQLite fails.
    @discardableResult
    public func markEndedRunsKilled() async throws -> [Int64] {
        let pid = Int64(getpid())
        return try await Self.write(store, "marking killed runs") { connection in
            let update = try connection.prepare(
                "UPDATE ferry_runs SET status = 'killed' WHERE status = 'running' AND pid != ? RETURNING id")
            try update.bind([.integer(pid)])
            return try update.fetchAll().compactMap { $0[0].integer }
        }
    }

    /// The latest run of `pipeline` that did not finish (running or killed when its process died, failed or
    /// interrupted), which `--resume` continues; `nil` when the latest run succeeded or there is none.
    ///
    /// - Throws: `StoreError` when SQLite fails.
    public func resumableRun(of pipeline: String) async throws -> Run? {
        guard let latest = try await runs(pipeline: pipeline, limit: 1).first, latest.status != .succeeded else {
            return nil
        }
        return latest
    }

    /// Runs, newest first, of `pipeline` (or of every pipeline).
    ///
    /// - Throws: `StoreError` when SQLite fails.
    public func runs(pipeline: String? = nil, limit: Int = 20) async throws -> [Run] {
        try await Self.write(store, "reading the run ledger") { connection in
            let select = try connection.prepare(
                "SELECT id, pipeline, status, started_at, finished_at, counts, checkpoint, inputs, seconds, pid, "
                    + "(WITH RECURSIVE chain(id) AS (SELECT r.resumes UNION ALL SELECT p.resumes FROM ferry_runs p "
                    + "JOIN chain ON p.id = chain.id WHERE p.resumes IS NOT NULL) SELECT group_concat(id) FROM chain "
                    + "WHERE id IS NOT NULL) FROM ferry_runs r WHERE ?1 IS NULL OR pipeline = ?1 ORDER BY id DESC LIMIT ?2"
            )
            try select.bind([pipeline.map { .text($0) } ?? .null, .integer(Int64(limit))])
            return try select.fetchAll().map { row in
                let id = row[0].integer ?? 0
                return Run(
                    id: id, pipeline: row[1].text ?? "",
                    status: Status(rawValue: row[2].text ?? "") ?? .failed, startedAt: row[3].text ?? "",
                    finishedAt: row[4].text, counts: try Self.decode(row[5].text, "counts", ofRun: id) ?? StepCounts(),
                    checkpoint: try Self.decode(row[6].text, "checkpoint", ofRun: id),
                    inputs: try Self.decode(row[7].text, "inputs", ofRun: id) ?? [],
                    seconds: row[8].real, pid: Int32(row[9].integer ?? 0),
                    resumedRuns: (row[10].text ?? "").split(separator: ",").compactMap { Int64($0) })
            }
        }
    }

    /// The SQL that commits a chunk's checkpoint, cumulative counts, rejects and (full sync) the keys it saw with
    /// the chunk itself.
    package func checkpointCompanion(
        run: Int64, checkpoint: Checkpoint, counts: StepCounts, rejects: [RejectedRecord], firstRejectNumber: Int,
        seenKeys: [String] = []
    ) -> TransactionCompanion {
        let checkpointJSON = Self.json(checkpoint)
        let countsJSON = Self.json(counts)
        return { connection in
            let update = try connection.prepare("UPDATE ferry_runs SET checkpoint = ?, counts = ? WHERE id = ?")
            try update.bind([.text(checkpointJSON), .text(countsJSON), .integer(run)])
            try update.run()
            if !seenKeys.isEmpty {
                let seen = try connection.prepare("INSERT OR IGNORE INTO ferry_seen (run, key) VALUES (?, ?)")
                for key in seenKeys {
                    try seen.bind([.integer(run), .text(key)])
                    try seen.run()
                }
            }
            guard !rejects.isEmpty else { return }
            let insert = try connection.prepare(
                "INSERT INTO ferry_rejects (run, seq, file, record, line, reason, fields) VALUES (?, ?, ?, ?, ?, ?, ?)")
            for (offset, reject) in rejects.enumerated() {
                try insert.bind([
                    .integer(run), .integer(Int64(firstRejectNumber + offset)), .text(reject.file),
                    .integer(Int64(reject.position.record)), .integer(Int64(reject.position.line)),
                    .text(reject.reason), .text(reject.fieldsJSON),
                ])
                try insert.run()
            }
        }
    }

    /// Records how the run ended.
    ///
    /// - Throws: `StoreError` when SQLite fails.
    public func finish(run: Int64, status: Status, counts: StepCounts, seconds: Double) async throws {
        let countsJSON = Self.json(counts)
        let now = Self.timestamp()
        try await Self.write(store, "finishing the run") { connection in
            let update = try connection.prepare(
                "UPDATE ferry_runs SET status = ?, finished_at = ?, seconds = ?, counts = ? WHERE id = ?")
            try update.bind([.text(status.rawValue), .text(now), .real(seconds), .text(countsJSON), .integer(run)])
            try update.run()
        }
    }

    /// Records the inputs of `run` again, now with their SHA-256 (computed while it runs).
    ///
    /// - Throws: `StoreError` when SQLite fails.
    public func record(inputs: [InputDigest], of run: Int64) async throws {
        let inputsJSON = Self.json(inputs)
        try await Self.write(store, "recording the inputs") { connection in
            let update = try connection.prepare("UPDATE ferry_runs SET inputs = ? WHERE id = ?")
            try update.bind([.text(inputsJSON), .integer(run)])
            try update.run()
        }
    }

    /// Drops the keys `runs` recorded for a full sync, once it is done.
    ///
    /// - Throws: `StoreError` when SQLite fails.
    public func forgetSeenKeys(ofRuns runs: [Int64]) async throws {
        try await Self.write(store, "clearing a full sync's keys") { connection in
            let delete = try connection.prepare("DELETE FROM ferry_seen WHERE run = ?")
            for run in runs {
                try delete.bind([.integer(run)])
                try delete.run()
            }
        }
    }

    /// The rejects of `runs`, in order.
    ///
    /// - Throws: `StoreError` when SQLite fails.
    public func rejects(ofRuns runs: [Int64]) async throws -> [RejectedRecord] {
        try await Self.write(store, "reading rejects") { connection in
            let select = try connection.prepare(
                "SELECT file, record, line, reason, fields FROM ferry_rejects WHERE run = ? ORDER BY seq")
            var rejects: [RejectedRecord] = []
            for run in runs {
                try select.bind([.integer(run)])
                for row in try select.fetchAll() {
                    rejects.append(
                        RejectedRecord(
                            file: row[0].text ?? "",
                            position: RecordPosition(
                                record: Int(row[1].integer ?? 0), line: Int(row[2].integer ?? 0), byteOffset: 0),
                            reason: row[3].text ?? "", fieldsJSON: row[4].text ?? "[]"))
                }
                select.reset()
            }
            return rejects
        }
    }

    // MARK: Helpers

    static func write<Result: Sendable>(
        _ store: PersistentStore, _ doing: String, _ body: @escaping @Sendable (Connection) throws -> Result
    ) async throws -> Result {
        do {
            return try await store.writer.run(body)
        } catch let error as SQLiteError {
            throw StoreError(.sqlite, "\(doing) failed", path: store.writer.path, underlying: error)
        }
    }

    static func timestamp(_ date: Date = Date()) -> String {
        date.formatted(.iso8601)
    }

    static func json<Value: Encodable>(_ value: Value) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "null"
    }

    /// The value the ledger's column `column` of run `run` holds as JSON; `nil` for NULL (not written yet).
    ///
    /// - Throws: ``PipelineError`` `.corruptLedger` when the text is not such a value: counts read as zero would let
    ///   `--resume` go on from wrong counts, so a damaged row stops the run instead.
    static func decode<Value: Decodable>(_ text: String?, _ column: String, ofRun run: Int64) throws -> Value? {
        guard let text else { return nil }
        do {
            return try JSONDecoder().decode(Value.self, from: Data(text.utf8))
        } catch {
            throw PipelineError(
                .corruptLedger,
                "run \(run) of the store's run ledger (ferry_runs) has a \(column) value that cannot be read "
                    + "(\(text.prefix(80))); the ledger was changed by hand or damaged: restore the store from a "
                    + "snapshot, or delete that run's row")
        }
    }
}

/// Where a run stands: the input it is reading and the number of records of it already committed.
public struct Checkpoint: Sendable, Hashable, Codable {
    /// The input being read, from 0 in the step's list.
    public var input: Int
    /// Records of that input committed (or rejected, and recorded as such).
    public var records: Int

    /// A checkpoint after `records` records of input `input`.
    public init(input: Int, records: Int) {
        self.input = input
        self.records = records
    }
}

/// An input file as the ledger records it: its size and modification time from the start of the run, its SHA-256
/// once it is known.
public struct InputDigest: Sendable, Hashable, Codable {
    /// The path as given.
    public var path: String
    /// The SHA-256 of its bytes (lower-case hex); `nil` for standard input, and until the run has read the file
    /// through.
    public var sha256: String?
    /// Its size in bytes, `nil` for standard input.
    public var bytes: Int?
    /// Its modification time, in nanoseconds since 1970, `nil` for standard input.
    public var modified: Int64?

    /// A digest of `path`.
    public init(path: String, sha256: String?, bytes: Int?, modified: Int64? = nil) {
        self.path = path
        self.sha256 = sha256
        self.bytes = bytes
        self.modified = modified
    }
}

/// What an import step did: its counts, time and outputs, as the run report shows them.
public struct ImportResult: Sendable, Codable {
    /// The run's number in the ledger.
    public var run: Int64
    /// The entity imported into.
    public var entity: String
    /// Every record accounted for (``StepCounts/isBalanced``).
    public var counts: StepCounts
    /// Wall time of the step.
    public var seconds: Double
    /// Where the rejects were written, if any were and a path was given.
    public var rejectsPath: String?
    /// The inputs read, with their SHA-256.
    public var inputs: [InputDigest]
    /// Whether the run continued an interrupted one.
    public var resumed: Bool
    /// The input columns (CSV, TSV header names; JSON field names, from every record read) that no attribute or
    /// relationship reads: a renamed column shows here rather than being ignored without a word.
    public var unreadColumns: [String] = []
    /// How many of ``unreadColumns`` are new to the entity (it has no attribute or relationship of their name) and were
    /// ignored under `schema: discard-columns` (``SchemaContract/discardColumns``); `nil` when none were.
    public var discardedColumns: Int? = nil
    /// Whether the entity has no uniqueness constraint, so that the records were appended as new rows rather than
    /// matched to stored ones by key.
    public var appended: Bool? = nil
    /// Whether the records replaced the entity's rows (``ImportSpec/replacesRows``): the rows stored before were
    /// deleted (``StepCounts/deleted``) in the transaction that wrote the records.
    public var replaced: Bool? = nil
}

/// What one step did with its records: every record read ends up in exactly one of the other counts, so
/// `read == inserted + updated + unchanged + rejected` always holds (``isBalanced``).
public struct StepCounts: Sendable, Hashable, Codable {
    /// Records read from the inputs.
    public var read = 0
    /// Records that made a new row.
    public var inserted = 0
    /// Records that changed an existing row.
    public var updated = 0
    /// Records whose row already held the same values.
    public var unchanged = 0
    /// Records refused, each written to the rejects file with its reason.
    public var rejected = 0
    /// Rows deleted (batch deletes, full-sync deletes); not part of the balance.
    public var deleted = 0

    /// Zero counts.
    public init() {}

    /// Whether every record read is accounted for.
    public var isBalanced: Bool { read == inserted + updated + unchanged + rejected }

    /// Adds `other`'s counts to these.
    public mutating func add(_ other: StepCounts) {
        read += other.read
        inserted += other.inserted
        updated += other.updated
        unchanged += other.unchanged
        rejected += other.rejected
        deleted += other.deleted
    }
}

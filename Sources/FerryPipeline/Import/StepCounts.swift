/// What one step did with its records: every record read ends up in exactly one of the other counts, so
/// `read == inserted + updated + unchanged + kept + rejected` always holds (``isBalanced``).
public struct StepCounts: Sendable, Hashable, Codable {
    /// Records read from the inputs.
    public var read = 0
    /// Records that made a new row.
    public var inserted = 0
    /// Records that changed an existing row.
    public var updated = 0
    /// Records whose row already held the same values.
    public var unchanged = 0
    /// Records whose key was stored with different values, which the merge policy kept (store-trump, rollback):
    /// the record's values were not written.
    public var kept = 0
    /// Records refused, each written to the rejects file with its reason.
    public var rejected = 0
    /// Rows deleted (batch deletes, full-sync deletes); not part of the balance.
    public var deleted = 0
    /// Destinations a relationship mapping created for keys with no row (`onMissing: create`), by entity; not part
    /// of the balance.
    public var created: [String: Int] = [:]
    /// Records stored with a relationship left empty because no destination has their key (`onMissing: null`);
    /// they are also counted inserted, updated, unchanged or kept.
    public var leftEmpty = 0

    /// Zero counts.
    public init() {}

    /// Whether every record read is accounted for.
    public var isBalanced: Bool { read == inserted + updated + unchanged + kept + rejected }

    /// Adds `other`'s counts to these.
    public mutating func add(_ other: StepCounts) {
        read += other.read
        inserted += other.inserted
        updated += other.updated
        unchanged += other.unchanged
        kept += other.kept
        rejected += other.rejected
        deleted += other.deleted
        created.merge(other.created, uniquingKeysWith: +)
        leftEmpty += other.leftEmpty
    }

    private enum CodingKeys: String, CodingKey {
        case read, inserted, updated, unchanged, kept, rejected, deleted, created, leftEmpty
    }

    /// Decodes counts, the ones a ledger written before they existed (`kept`, `created`, `leftEmpty`) as zero.
    public init(from decoder: any Decoder) throws {
        let values = try decoder.container(keyedBy: CodingKeys.self)
        read = try values.decodeIfPresent(Int.self, forKey: .read) ?? 0
        inserted = try values.decodeIfPresent(Int.self, forKey: .inserted) ?? 0
        updated = try values.decodeIfPresent(Int.self, forKey: .updated) ?? 0
        unchanged = try values.decodeIfPresent(Int.self, forKey: .unchanged) ?? 0
        kept = try values.decodeIfPresent(Int.self, forKey: .kept) ?? 0
        rejected = try values.decodeIfPresent(Int.self, forKey: .rejected) ?? 0
        deleted = try values.decodeIfPresent(Int.self, forKey: .deleted) ?? 0
        created = try values.decodeIfPresent([String: Int].self, forKey: .created) ?? [:]
        leftEmpty = try values.decodeIfPresent(Int.self, forKey: .leftEmpty) ?? 0
    }
}

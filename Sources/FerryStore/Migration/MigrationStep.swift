/// One change a migration makes to a store, with what it costs.
public struct MigrationStep: Sendable, Hashable, Codable {
    /// How much work a step does, from cheapest to dearest.
    public enum Cost: String, Sendable, Hashable, Codable {
        /// A change to the schema only: no row is read or written (SQLite's `ALTER TABLE … ADD/RENAME`).
        case instantDDL = "instant DDL"
        /// One pass over the rows of a table (filling a default, dropping a column, deleting rows).
        case onePass = "one pass"
        /// The table is copied into a new one beside it and swapped in.
        case tableRebuild = "table rebuild"
        /// An index is built over the table's rows.
        case indexBuild = "index build"
    }

    /// What kind of change it is, such as `addAttribute` or `renameEntity`.
    public var kind: String
    /// The entity (or table) it applies to.
    public var entity: String
    /// What it does, in a sentence.
    public var summary: String
    /// How much work it does.
    public var cost: Cost
    /// The rows it reads or writes (the table's rows for a pass, rebuild or index build; 0 for instant DDL).
    public var rows: Int
    /// Whether it removes data (an attribute, entity or relationship that holds values, rows deleted): such steps
    /// run only when destructive changes are allowed.
    public var isDestructive: Bool

    /// Creates a step.
    public init(kind: String, entity: String, summary: String, cost: Cost, rows: Int = 0, isDestructive: Bool = false)
    {
        self.kind = kind
        self.entity = entity
        self.summary = summary
        self.cost = cost
        self.rows = rows
        self.isDestructive = isDestructive
    }
}

/// What a migration does with rows that break a rule of the new model (a null where a value is now required,
/// duplicates of a new uniqueness constraint).
public enum ViolationPolicy: String, Sendable, Hashable, Codable, CaseIterable {
    /// The migration does not run; the plan names the rows and how to fix them.
    case fail
    /// The rows are removed from the entity and kept in `ferry_migration_rejects` with their reason.
    case reject
    /// A null that must now hold a value, or a value that does not convert to the attribute's new type, gets the
    /// attribute's default value.
    case `default`
    /// Of rows with the same key, the first stored (lowest `_pk`) stays; the others are rejected.
    case keepFirst = "keep-first"
    /// Of rows with the same key, the last stored (highest `_pk`) stays; the others are rejected.
    case keepLast = "keep-last"
}

/// A check of the store's data that a migration ran before it changed anything.
public struct MigrationCheck: Sendable, Hashable, Codable {
    /// What was checked: `nullsNeedValue`, `duplicateKeys`, `severalMembers` (objects with more than one member of
    /// a relationship turned to-one) or `notConvertible` (values that do not convert to an attribute's new type).
    public var kind: String
    /// The entity checked.
    public var entity: String
    /// The attributes checked (the new required attribute, or the new constraint's attributes).
    public var attributes: [String]
    /// How many rows break the rule (for duplicates: rows beyond the first of each key).
    public var violations: Int
    /// Up to five offending keys (duplicate key values) or row numbers (`_pk`), for the message.
    public var samples: [String]
    /// What the migration does about them under the chosen policy, or how to fix them when it stops.
    public var resolution: String
    /// Whether the violations stop the migration under the chosen policy.
    public var blocks: Bool
    /// For `notConvertible`: the values of the ``samples`` rows, as SQL quotes them (`'05/13/2026'`, `X'FFFE'`;
    /// cut at 60 characters), in the same order; empty for the other checks.
    public var values: [String] = []
    /// For `notConvertible`: what a value must be to convert (`a date in ISO-8601 (2026-01-05T09:00:00Z) or
    /// dd/MM/yyyy`); `nil` for the other checks.
    public var expected: String? = nil
}

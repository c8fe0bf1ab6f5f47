import FerrySQLite
import Foundation

/// What migrating a store from its model to a new one does: every step with its cost, and the checks of the data
/// run first. Made by ``StoreMigrator/plan(to:policy:)`` without changing the store.
public struct MigrationPlan: Sendable {
    /// The version hash of the store's model.
    public var sourceHash: String
    /// The version hash of the new model.
    public var destinationHash: String
    /// The steps, in the order they run.
    public var steps: [MigrationStep]
    /// The checks of the data, with what they found.
    public var checks: [MigrationCheck]
    /// The violation policy the checks were judged by.
    public var policy: ViolationPolicy

    /// How the store's tables change (what the executor runs).
    var tables: [TableMigration] = []
    /// How the join tables change.
    var joins: [JoinMigration] = []
    /// Rows the violation policy removes.
    var rejections: [Rejection] = []
    /// The new model's layout, with the store's entity numbers kept.
    var destination: StoreSchema
    /// The store's model.
    var source: StoreSchema
    /// Values larger than this many bytes go to blob files when their attribute newly allows external storage.
    var externalStorageThreshold = PersistentStoreDescription.defaultExternalStorageThreshold
    /// Derived attributes (`Entity.attribute`) whose values the migration recomputes.
    var derivations: [String] = []
    /// Relationships whose links move to another storage.
    var relationshipMoves: [RelationshipMove] = []

    /// Whether the store is already at the new model.
    public var isEmpty: Bool { sourceHash == destinationHash }
    /// Whether a step removes data.
    public var isDestructive: Bool { steps.contains(where: \.isDestructive) }
    /// Whether a check found data that stop the migration under the policy.
    public var isBlocked: Bool { checks.contains(where: \.blocks) }
    /// Whether the migration may run without anyone's say: nothing removed, nothing blocked, and no rows rejected.
    public var isAutomatic: Bool { !isDestructive && !isBlocked && checks.allSatisfy { $0.violations == 0 } }

    /// The plan as lines for a person: the versions, one line per step with its cost and rows, then the checks.
    public var text: String {
        var lines = ["migration from model \(sourceHash.prefix(12)) to \(destinationHash.prefix(12))"]
        if steps.isEmpty { lines.append("  no changes to the store's tables: the new model is recorded") }
        for (index, step) in steps.enumerated() {
            var line = "  \(index + 1). \(step.summary) [\(step.cost.rawValue)"
            if step.cost != .instantDDL { line += ", \(step.rows) rows" }
            line += "]"
            if step.isDestructive { line += " (destructive)" }
            lines.append(line)
        }
        for check in checks {
            let verdict = check.violations == 0 ? "ok" : "\(check.violations) rows"
            var line = "  check \(check.kind) \(check.entity).\(check.attributes.joined(separator: "+")): \(verdict)"
            if !check.samples.isEmpty {
                let samples =
                    check.values.count == check.samples.count
                    ? zip(check.samples, check.values).map { "\($0) \($1)" } : check.samples
                line += " (such as \(samples.joined(separator: ", ")))"
            }
            if let expected = check.expected, check.violations > 0 { line += ", expected \(expected)" }
            if check.violations > 0 { line += ": \(check.resolution)" }
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }

    /// The plan as one JSON object: `source`, `destination`, `policy`, `steps`, `checks`, `destructive`,
    /// `blocked`.
    public var json: String {
        struct Document: Encodable {
            var source: String
            var destination: String
            var policy: ViolationPolicy
            var destructive: Bool
            var blocked: Bool
            var steps: [MigrationStep]
            var checks: [MigrationCheck]
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let document = Document(
            source: sourceHash, destination: destinationHash, policy: policy, destructive: isDestructive,
            blocked: isBlocked, steps: steps, checks: checks)
        return (try? encoder.encode(document)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }
}

/// How one table of the new model is made from the store's tables.
struct TableMigration: Sendable {
    /// One column of the new table and where its values come from.
    struct Column: Sendable {
        var name: String
        var type: String
        /// The old table's column it carries, or `nil` for a new column.
        var source: String?
        /// Whether the values change storage class (a widening to REAL or TEXT): `CAST(source AS type)`.
        var cast: Bool
        /// The stored default a null gets (a new required attribute, or one that became required), for the rows of
        /// `fillEntityIDs`.
        var fill: SQLiteValue?
        /// The `_ent` values whose rows get `fill`.
        var fillEntityIDs: [Int]
        /// The SQL of the converted value (over the old column) for a type change that is not a widening.
        var conversion: String? = nil
        /// Whether the values move between rows and blob files (the attribute's external storage changed).
        var blobMove: BlobMove? = nil
    }

    /// Where the values of a binary column go when its attribute's external storage changes.
    enum BlobMove: Sendable, Hashable {
        /// Inline values larger than the threshold move to blob files; the rows keep their references.
        case toFiles
        /// Values kept in blob files move back into their rows.
        case toRows
    }

    /// The new table's name.
    var table: String
    /// The old table's name, or `nil` for a new table.
    var sourceTable: String?
    /// The columns after `_pk`, `_ent` and `_opt`.
    var columns: [Column]
    /// Old columns not carried.
    var droppedColumns: [String]
    /// `_ent` values of removed entities whose rows are deleted.
    var removedEntityIDs: [Int]
    /// Whether the table is copied beside the old one (a column changes storage class) rather than altered.
    var rebuilds: Bool
    /// The old table's rows (0 for a new table).
    var rowCount: Int
}

/// How one join table of the new model is made from the store's.
struct JoinMigration: Sendable {
    /// The new join table, or `nil` when an old one is dropped.
    var table: String?
    /// The old join table, or `nil` for a new one.
    var sourceTable: String?
}


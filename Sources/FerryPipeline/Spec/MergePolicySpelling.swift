public import FerryStore

/// How pipeline files and the command line spell merge policies: one table for both, so that `mergePolicy:
/// store-trump` in a pipeline and `--merge-policy storeTrump` on the command line mean what `storeTrump` and
/// `store-trump` mean everywhere.
public enum MergePolicySpelling {
    /// Each policy with its spellings, the camel-case one (Core Data's, without the prefix) first.
    public static let table: [(names: [String], policy: MergePolicy)] = [
        (["storeTrump", "store-trump"], .mergeByPropertyStoreTrump),
        (["objectTrump", "object-trump"], .mergeByPropertyObjectTrump),
        (["error"], .error), (["overwrite"], .overwrite), (["rollback"], .rollback),
    ]

    /// Every spelling with its policy, in table order.
    public static var choices: [(String, MergePolicy)] {
        table.flatMap { entry in entry.names.map { ($0, entry.policy) } }
    }

    /// The policy `text` spells, or `nil`.
    public static func policy(named text: String) -> MergePolicy? {
        table.first { $0.names.contains(text) }?.policy
    }
}

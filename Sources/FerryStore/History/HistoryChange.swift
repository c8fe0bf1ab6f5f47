/// One object's change in a ``HistoryTransaction`` (Core Data's `NSPersistentHistoryChange`).
///
/// A transaction holds at most one change per object: an object inserted and then updated by the same batch insert
/// is one insert; an object updated twice in one transaction is one update listing every property changed.
///
/// ```swift
/// for change in transaction.changes where change.kind == .delete {
///     if case .string(let sku)? = change.tombstone["sku"] { removeFromSearchIndex(sku) }
/// }
/// ```
public struct HistoryChange: Sendable, Hashable {
    /// What happened to the object (Core Data's `NSPersistentHistoryChangeType`, with its raw values).
    public enum Kind: Int, Sendable, Hashable {
        case insert = 0
        case update = 1
        case delete = 2

        /// The name stored in `ferry_history_changes.kind`.
        var storedName: String {
            switch self {
            case .insert: "insert"
            case .update: "update"
            case .delete: "delete"
            }
        }

        init?(storedName: String) {
            switch storedName {
            case "insert": self = .insert
            case "update": self = .update
            case "delete": self = .delete
            default: return nil
            }
        }
    }

    /// The changed object's entity (its own entity, a sub-entity's name for a sub-entity's row).
    public var entityName: String { objectID.entityName }
    /// The changed object.
    public var objectID: ObjectID
    /// Insert, update or delete.
    public var kind: Kind
    /// For an update, the names of the properties it changed (attributes and relationships); empty otherwise.
    public var updatedProperties: Set<String>
    /// For a delete, the values the deleted row had for the attributes of its entity's uniqueness constraints (a
    /// nil value is left out); empty otherwise. Core Data keeps the attributes marked
    /// `preservesValueInHistoryOnDeletion`; Ferry keeps the constrained ones, the keys a consumer identifies
    /// records by.
    public var tombstone: [String: AttributeValue]

    /// Creates a change.
    public init(
        objectID: ObjectID, kind: Kind, updatedProperties: Set<String> = [],
        tombstone: [String: AttributeValue] = [:]
    ) {
        self.objectID = objectID
        self.kind = kind
        self.updatedProperties = updatedProperties
        self.tombstone = tombstone
    }
}

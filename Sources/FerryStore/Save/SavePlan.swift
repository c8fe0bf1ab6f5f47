/// What a root save will write, as plain values: built from a context's pending objects, checked for conflicts
/// and resolved by the merge policy on the store's writer, then written in one transaction. Nothing in a plan
/// points at a managed object, so the writer never touches objects, and a save that fails leaves them as they
/// were.
struct SavePlan: Sendable {
    /// One object's row.
    struct Row: Sendable {
        var objectID: ObjectID
        /// Every attribute slot of the object's layout.
        var attributes: [AttributeValue?]
        var toOne: [ObjectID?]
        /// The values last saved; `nil` for an inserted object.
        var committed: ObjectSnapshot?
        /// For updates: the attribute slots to write.
        var changedAttributes: [Int]
        /// For updates: the to-one slots to write.
        var changedToOne: [Int]
        /// For updates and deletes: the `_opt` the row must still have.
        var expectedVersion: Int64
        /// For inserts: the order of insertion.
        var insertionIndex: Int
        /// For updates: the to-many slots changed (for persistent history; the writer keeps them elsewhere).
        var changedToMany: [Int] = []
    }

    /// The members of an ordered to-many, whose positions the save rewrites.
    struct Ordering: Sendable {
        var owner: ObjectID
        /// For a one-to-many: the destination table and its order column; for a join table: its name.
        var table: String
        var orderColumn: String?
        var members: [ObjectID]
    }

    /// An inserted object that takes the place of a stored row (``MergePolicy/overwrite``): the stored row's
    /// members move to the new row and the stored row is deleted.
    struct Replacement: Sendable {
        var stored: ObjectID
        var replacement: ObjectID
    }

    var inserts: [Row] = []
    var updates: [Row] = []
    var deletes: [Row] = []
    var joinChanges: [JoinChange] = []
    var orderings: [Ordering] = []
    var replacements: [Replacement] = []

    var isEmpty: Bool {
        inserts.isEmpty && updates.isEmpty && deletes.isEmpty && joinChanges.isEmpty && orderings.isEmpty
    }

    /// Makes every reference to `old` (to-one values, join changes, orderings) point at `new`.
    mutating func repoint(_ old: ObjectID, to new: ObjectID) {
        func fix(_ rows: inout [Row]) {
            for index in rows.indices {
                for slot in rows[index].toOne.indices where rows[index].toOne[slot] == old {
                    rows[index].toOne[slot] = new
                    if rows[index].committed != nil && !rows[index].changedToOne.contains(slot) {
                        rows[index].changedToOne.append(slot)
                    }
                }
            }
        }
        fix(&inserts)
        fix(&updates)
        for index in joinChanges.indices {
            if joinChanges[index].source == old { joinChanges[index].source = new }
            if joinChanges[index].destination == old { joinChanges[index].destination = new }
        }
        for index in orderings.indices {
            if orderings[index].owner == old { orderings[index].owner = new }
            orderings[index].members = orderings[index].members.map { $0 == old ? new : $0 }
        }
    }
}

/// What a root save did, for the context to bring its objects up to date once the transaction committed.
struct SaveOutcome: Sendable {
    /// The permanent ID each inserted object got.
    var permanentIDs: [ObjectID: ObjectID] = [:]
    /// Objects a merge policy folded into another (the survivor's ID).
    var replacedIDs: [ObjectID: ObjectID] = [:]
    /// Objects to take out of the context: merged away, or deleted in the store.
    var discarded: Set<ObjectID> = []
    /// Objects whose rows the resolution changed: turned into faults after the save, to reload.
    var refreshed: Set<ObjectID> = []
    /// The row version each updated object has now; an inserted row's is 1 (see ``version(of:wasInserted:)``).
    var versions: [ObjectID: Int64] = [:]
    /// The IDs the did-save notification reports (permanent ones).
    var inserted: [ObjectID] = []
    var updated: [ObjectID] = []
    var deleted: [ObjectID] = []
    /// The persistent-history transaction the save recorded, when the store records history.
    var historyToken: Int64?

    /// The row version of the object whose final ID is `id` after the save, or nil when its row was not written;
    /// `wasInserted` tells whether the object was inserted (not saved before). `inserted` is ``inserted`` as a set,
    /// needed only when a merge policy dropped inserts (``replacedIDs`` or ``discarded`` not empty): otherwise
    /// every inserted object's row was written, with version 1, and no ID is hashed to know it.
    func version(of id: ObjectID, wasInserted: Bool, inserted: Set<ObjectID>) -> Int64? {
        if !versions.isEmpty, let version = versions[id] { return version }
        guard wasInserted else { return nil }
        if replacedIDs.isEmpty && discarded.isEmpty { return 1 }
        return inserted.contains(id) ? 1 : nil
    }

    /// `id` after the save: its permanent ID, or its survivor's.
    func finalID(of id: ObjectID) -> ObjectID {
        // Without replacements an ID takes one step at most: only temporary IDs are keys of `permanentIDs`, and
        // its values are permanent. Most saves have none, so most lookups are one hash, with no set of IDs seen.
        if replacedIDs.isEmpty { return permanentIDs[id] ?? id }
        var current = id
        var seen: Set<ObjectID> = []
        while let next = replacedIDs[current] ?? permanentIDs[current], seen.insert(current).inserted {
            current = next
        }
        return current
    }
}

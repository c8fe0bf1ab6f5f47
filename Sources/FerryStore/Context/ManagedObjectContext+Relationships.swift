import FerrySQLite

/// A pending change to a join table's rows: one membership of a many-to-many (or inverse-less to-many)
/// relationship added or removed, oriented as the table stores it.
struct JoinChange: Hashable, Sendable {
    var table: String
    var source: ObjectID
    var destination: ObjectID
    var isAddition: Bool
}

/// How a to-many relationship is stored.
enum ToManyStorage {
    /// A one-to-many: the destination's to-one inverse is a column on the destination's table.
    case foreignKey(inverse: String, destinationTable: String, orderColumn: String?, entityIDs: [Int])
    /// A join table; `ownerIsSource` tells which column holds this side's key.
    case joinTable(StoreSchema.JoinTable, ownerIsSource: Bool, destinationTable: String)
}

extension ManagedObjectContext {
    // MARK: Model lookups

    /// The inverse of `relationship`, if it has one.
    func inverse(of relationship: RelationshipDescription) -> RelationshipDescription? {
        guard let name = relationship.inverseName else { return nil }
        return store.schema.model.allRelationships(of: relationship.destinationEntity).first { $0.name == name }
    }

    /// How the to-many `relationship` of `layout`'s entity is stored.
    func storage(of relationship: RelationshipDescription, in layout: EntityLayout) -> ToManyStorage {
        let schema = store.schema
        let destinationTable = schema.model.rootEntity(of: relationship.destinationEntity)
        if let inverse = inverse(of: relationship), !inverse.isToMany {
            return .foreignKey(
                inverse: inverse.name, destinationTable: destinationTable,
                orderColumn: relationship.isOrdered ? "_order_\(inverse.name)" : nil,
                entityIDs: schema.mapping(for: relationship.destinationEntity)?.hierarchyIDs ?? [])
        }
        guard let join = schema.joinTable(for: relationship.name, of: layout.name) else {
            preconditionFailure("no join table for \(layout.name).\(relationship.name)")
        }
        let ownerIsSource =
            join.relationship == relationship.name
            && schema.model.ancestry(of: layout.name).contains { $0.name == join.sourceEntity }
        return .joinTable(join, ownerIsSource: ownerIsSource, destinationTable: destinationTable)
    }

    // MARK: Reading to-many relationships

    /// The members of a to-many relationship, loading them from the store the first time and applying this
    /// context's unsaved changes on top.
    func members(of owner: ManagedObject, toManySlot slot: Int) -> [ObjectID] {
        if let members = owner.state.toMany[slot] { return members }
        let relationship = owner.layout.toMany[slot]
        let storage = storage(of: relationship, in: owner.layout)
        var members = owner.objectID.isTemporaryID ? [] : ((try? storedMembers(of: owner, storage)) ?? [])
        reconcile(&members, of: owner, storage)
        owner.state.toMany[slot] = members
        return members
    }

    private func storedMembers(of owner: ManagedObject, _ storage: ToManyStorage) throws -> [ObjectID] {
        let sql: String
        switch storage {
        case .foreignKey(let inverse, let table, let orderColumn, let entityIDs):
            let order = (orderColumn.map { SQL.identifier($0) + ", " } ?? "") + SQL.identifier("_pk")
            sql =
                "SELECT _pk, _ent FROM \(SQL.identifier(table)) WHERE \(SQL.identifier(inverse)) = ? AND _ent IN ("
                + entityIDs.map(String.init).joined(separator: ", ") + ") ORDER BY \(order)"
        case .joinTable(let join, let ownerIsSource, let table):
            let (mine, theirs) = ownerIsSource ? ("source", "destination") : ("destination", "source")
            let order = join.isOrdered && ownerIsSource ? "j.position, d._pk" : "d._pk"
            sql =
                "SELECT d._pk, d._ent FROM \(SQL.identifier(join.name)) j JOIN \(SQL.identifier(table)) d "
                + "ON d._pk = j.\(theirs) WHERE j.\(mine) = ? ORDER BY \(order)"
        }
        let names = store.schema.entityNames
        let identifier = store.identifier
        return try storeAccess("loading a relationship of \(owner.objectID)") { connection in
            let statement = try connection.cachedStatement(sql)
            defer { statement.reset() }
            try statement.bind(owner.objectID.primaryKey, at: 1)
            var members: [ObjectID] = []
            var ids = ObjectIDMaker(storeIdentifier: identifier)
            while try statement.step() {
                let entity = names[Int(statement.int64(at: 1))] ?? ""
                members.append(ids.id(entityName: entity, primaryKey: statement.int64(at: 0)))
            }
            return members
        }
    }

    /// Applies this context's unsaved changes to members just read from the store.
    private func reconcile(_ members: inout [ObjectID], of owner: ManagedObject, _ storage: ToManyStorage) {
        switch storage {
        case .foreignKey(let inverse, _, _, _):
            for object in pending.values where !object.state.isFault {
                guard case .toOne(let slot)? = object.layout.slots[inverse] else { continue }
                let pointsHere = object.state.lifecycle != .deleted && object.state.toOne[slot] == owner.objectID
                let index = members.firstIndex(of: object.objectID)
                if pointsHere && index == nil { members.append(object.objectID) }
                if !pointsHere, let index { members.remove(at: index) }
            }
        case .joinTable(let join, let ownerIsSource, _):
            for change in joinChanges where change.table == join.name {
                let (mine, theirs) =
                    ownerIsSource ? (change.source, change.destination) : (change.destination, change.source)
                guard mine == owner.objectID else { continue }
                members.removeAll { $0 == theirs }
                if change.isAddition { members.append(theirs) }
            }
            members.removeAll { registered[$0]?.takeUnretainedValue().state.lifecycle == .deleted }
        }
    }

    // MARK: Changing relationships

    /// Points `source`'s to-one `slot` at `target`, keeping inverses consistent.
    func setToOne(of source: ManagedObject, slot: Int, to target: ManagedObject?) {
        source.willAccessValues()
        precondition(target.map { $0.managedObjectContext === self } ?? true, "the objects are in different contexts")
        let oldID = source.state.toOne[slot]
        let newID = target?.objectID
        guard oldID != newID else { return }
        source.state.toOne[slot] = newID
        objectDidChange(source)
        let relationship = source.layout.toOne[slot]
        guard let inverse = inverse(of: relationship) else { return }
        if inverse.isToMany {
            if let oldID { changeMembers(of: object(with: oldID), inverse.name, removing: source.objectID) }
            if let target { changeMembers(of: target, inverse.name, adding: source.objectID) }
            return
        }
        // One-to-one: both tables hold a column, so both sides change.
        if let oldID {
            let old = object(with: oldID)
            old.willAccessValues()
            if case .toOne(let inverseSlot)? = old.layout.slots[inverse.name],
                old.state.toOne[inverseSlot] == source.objectID
            {
                old.state.toOne[inverseSlot] = nil
                objectDidChange(old)
            }
        }
        guard let target, case .toOne(let inverseSlot)? = target.layout.slots[inverse.name] else { return }
        target.willAccessValues()
        if let previousID = target.state.toOne[inverseSlot], previousID != source.objectID {
            let previous = object(with: previousID)
            previous.willAccessValues()
            if case .toOne(let previousSlot)? = previous.layout.slots[relationship.name],
                previous.state.toOne[previousSlot] == target.objectID
            {
                previous.state.toOne[previousSlot] = nil
                objectDidChange(previous)
            }
        }
        target.state.toOne[inverseSlot] = source.objectID
        objectDidChange(target)
    }

    /// Records that the to-many `key` of `owner` gained or lost a member through the other side of the
    /// relationship, as Core Data does: its members change when they are loaded, and the owner
    /// is marked updated (the relationship among its changed keys) whether or not they are. The save then writes
    /// the owner's version (and an ordered relationship's order, loading its members if needed) and validates its
    /// count rules. The owner's own values are loaded if it is a fault: its committed version is needed.
    private func changeMembers(
        of owner: ManagedObject, _ key: String, adding added: ObjectID? = nil, removing removed: ObjectID? = nil
    ) {
        guard case .toMany(let slot)? = owner.layout.slots[key] else { return }
        owner.willAccessValues()
        guard owner.state.lifecycle != .invalid, owner.state.lifecycle != .deleted else { return }
        if var members = owner.state.toMany[slot] {
            if let removed { members.removeAll { $0 == removed } }
            if let added, !members.contains(added) { members.append(added) }
            owner.state.toMany[slot] = members
        }
        owner.state.changedToMany.insert(slot)
        objectDidChange(owner)
    }

    /// Adds `member` to `owner`'s to-many `slot` and `owner` to the inverse.
    func addMember(_ member: ManagedObject, to owner: ManagedObject, toManySlot slot: Int) {
        owner.willAccessValues()
        precondition(member.managedObjectContext === self, "the objects are in different contexts")
        guard !members(of: owner, toManySlot: slot).contains(member.objectID) else { return }
        let relationship = owner.layout.toMany[slot]
        switch storage(of: relationship, in: owner.layout) {
        case .foreignKey(let inverse, _, _, _):
            setToOne(of: member, slot: member.toOneSlot(inverse), to: owner)
        case .joinTable(let join, let ownerIsSource, _):
            owner.state.toMany[slot]?.append(member.objectID)
            owner.state.changedToMany.insert(slot)
            objectDidChange(owner)
            if let inverse = inverse(of: relationship) {
                changeMembers(of: member, inverse.name, adding: owner.objectID)
            }
            recordJoinChange(join, owner: owner.objectID, member: member.objectID, ownerIsSource, isAddition: true)
        }
    }

    /// Removes `member` from `owner`'s to-many `slot` and `owner` from the inverse.
    func removeMember(_ member: ManagedObject, from owner: ManagedObject, toManySlot slot: Int) {
        owner.willAccessValues()
        guard members(of: owner, toManySlot: slot).contains(member.objectID) else { return }
        let relationship = owner.layout.toMany[slot]
        switch storage(of: relationship, in: owner.layout) {
        case .foreignKey(let inverse, _, _, _):
            setToOne(of: member, slot: member.toOneSlot(inverse), to: nil)
        case .joinTable(let join, let ownerIsSource, _):
            owner.state.toMany[slot]?.removeAll { $0 == member.objectID }
            owner.state.changedToMany.insert(slot)
            objectDidChange(owner)
            if let inverse = inverse(of: relationship) {
                changeMembers(of: member, inverse.name, removing: owner.objectID)
            }
            recordJoinChange(join, owner: owner.objectID, member: member.objectID, ownerIsSource, isAddition: false)
        }
    }

    /// Puts an ordered to-many's members in the order of `ids` (the same members).
    func reorderMembers(of owner: ManagedObject, toManySlot slot: Int, as ids: [ObjectID]) {
        guard owner.state.toMany[slot] != ids else { return }
        owner.state.toMany[slot] = ids
        owner.state.changedToMany.insert(slot)
        objectDidChange(owner)
    }

    private func recordJoinChange(
        _ join: StoreSchema.JoinTable, owner: ObjectID, member: ObjectID, _ ownerIsSource: Bool, isAddition: Bool
    ) {
        let (source, destination) = ownerIsSource ? (owner, member) : (member, owner)
        joinChanges.removeAll { $0.table == join.name && $0.source == source && $0.destination == destination }
        joinChanges.append(
            JoinChange(table: join.name, source: source, destination: destination, isAddition: isAddition))
    }
}

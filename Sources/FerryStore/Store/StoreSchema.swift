/// How a model maps onto SQLite tables that a person can read in any SQLite tool.
///
/// - One table per inheritance hierarchy, named after its root entity; sub-entities share it and are told
///   apart by `_ent`. Fixed columns: `_pk INTEGER PRIMARY KEY`, `_ent` (the entity's number), `_opt` (the row
///   version for optimistic locking: 1 on insert, +1 on each update).
/// - One column per stored attribute, named after it (transient attributes have none).
/// - A to-one relationship is an INTEGER column named after it, holding the destination's `_pk`, with an index.
///   When the destination has sub-entities, `<name>_ent` holds the destination's `_ent` too.
/// - A many-to-many relationship (or a to-many without an inverse) is a join table `<Entity>_<relationship>`
///   with columns `source` and `destination` (and `position` when ordered). An ordered one-to-many keeps its
///   order in a column `_order_<inverse>` on the destination's table.
/// - Each uniqueness constraint is a UNIQUE index `<Table>_unique_<columns>`; one declared on a sub-entity is a
///   partial index limited to that sub-entity's rows. Indexed attributes and model indexes get plain indexes.
///
/// Departures from the layout Core Data gives its own SQLite stores, chosen for readability: no `Z` prefixes or
/// upper-casing, and dates are stored as seconds since 1970 (Unix time), not since 2001.
public struct StoreSchema: Sendable {
    /// A to-one relationship's columns.
    public struct ForeignKey: Sendable, Hashable {
        /// The column holding the destination's `_pk`.
        public var column: String
        /// The column holding the destination's `_ent`, when the destination has sub-entities.
        public var entityColumn: String?
        /// The destination entity.
        public var destinationEntity: String
        /// The table holding the destination rows.
        public var destinationTable: String
    }

    /// A join table for a many-to-many (or inverse-less to-many) relationship.
    public struct JoinTable: Sendable, Hashable {
        public var name: String
        /// The entity that owns the relationship; its `_pk` goes in `source`.
        public var sourceEntity: String
        public var relationship: String
        public var destinationEntity: String
        /// Whether `position` keeps the order.
        public var isOrdered: Bool
    }

    /// Where one entity's objects live.
    public struct EntityMapping: Sendable, Hashable {
        public var entity: String
        /// The hierarchy's table.
        public var table: String
        /// The value of `_ent` for objects of exactly this entity.
        public var entityID: Int
        /// `entityID` and those of every sub-entity, for fetches that include sub-entities.
        public var hierarchyIDs: [Int]
        /// Stored attributes, inherited ones first; each one's column has its name.
        public var attributes: [AttributeDescription]
        /// To-one relationships by name.
        public var foreignKeys: [String: ForeignKey]

        /// The column of the stored attribute `name`, or `nil` when there is no such stored attribute.
        public func column(forAttribute name: String) -> String? {
            attributes.contains { $0.name == name } ? name : nil
        }
    }

    /// The model mapped.
    public let model: ManagedObjectModel
    /// Entity mappings by entity name.
    public let entities: [String: EntityMapping]
    /// Entity names by `_ent` value.
    public let entityNames: [Int: String]
    /// Join tables, in model order.
    public let joinTables: [JoinTable]

    /// Maps `model`.
    ///
    /// - Parameter entityIDs: the entity numbers a store already gave (its `ferry_entities`), which are kept so that
    ///   no existing entity is ever renumbered, whatever a later model version inserts before it. Entities without
    ///   one are numbered after the highest given, in the model's order with parents before children; a new store
    ///   (no numbers given) numbers its entities 1, 2, 3… in that order.
    public init(model: ManagedObjectModel, entityIDs: [String: Int] = [:]) {
        self.model = model
        var ids: [String: Int] = [:]
        for entity in model.entities {
            if let id = entityIDs[entity.name] { ids[entity.name] = id }
        }
        var next = (ids.values.max() ?? 0) + 1
        for entity in model.entities {
            for ancestor in model.ancestry(of: entity.name) where ids[ancestor.name] == nil {
                ids[ancestor.name] = next
                next += 1
            }
        }
        var entities: [String: EntityMapping] = [:]
        var joins: [JoinTable] = []
        for entity in model.entities {
            let table = model.rootEntity(of: entity.name)
            let attributes = model.allAttributes(of: entity.name).filter(\.isStored)
            var foreignKeys: [String: ForeignKey] = [:]
            for relationship in model.allRelationships(of: entity.name) where !relationship.isToMany {
                let destinationHasSubentities = !model.subentities(of: relationship.destinationEntity).isEmpty
                foreignKeys[relationship.name] = ForeignKey(
                    column: relationship.name,
                    entityColumn: destinationHasSubentities ? relationship.name + "_ent" : nil,
                    destinationEntity: relationship.destinationEntity,
                    destinationTable: model.rootEntity(of: relationship.destinationEntity))
            }
            for relationship in entity.relationships where relationship.isToMany {
                if Self.needsJoinTable(relationship, of: entity.name, in: model) {
                    joins.append(
                        JoinTable(
                            name: "\(entity.name)_\(relationship.name)", sourceEntity: entity.name,
                            relationship: relationship.name, destinationEntity: relationship.destinationEntity,
                            isOrdered: relationship.isOrdered))
                }
            }
            let entityID = ids[entity.name] ?? 0
            let hierarchy = [entityID] + model.subentities(of: entity.name).compactMap { ids[$0] }
            entities[entity.name] = EntityMapping(
                entity: entity.name, table: table, entityID: entityID, hierarchyIDs: hierarchy.sorted(),
                attributes: attributes, foreignKeys: foreignKeys)
        }
        self.entities = entities
        self.entityNames = Dictionary(uniqueKeysWithValues: ids.map { ($1, $0) })
        self.joinTables = joins
    }

    /// The mapping of `entity`, or `nil` when the model has no such entity.
    public func mapping(for entity: String) -> EntityMapping? {
        entities[entity]
    }

    /// The join table of `relationship` on `entity` (looked up from either side), or `nil`.
    public func joinTable(for relationship: String, of entity: String) -> JoinTable? {
        for join in joinTables {
            if join.relationship == relationship
                && model.ancestry(of: entity).contains(where: { $0.name == join.sourceEntity })
            {
                return join
            }
            let inverse = model.entity(named: join.sourceEntity)?.relationship(named: join.relationship)?.inverseName
            if inverse == relationship
                && model.ancestry(of: entity).contains(where: { $0.name == join.destinationEntity })
            {
                return join
            }
        }
        return nil
    }

    /// Whether a to-many relationship is stored in a join table: it has no inverse, or its inverse is to-many
    /// too (then only the side that sorts first owns the table).
    static func needsJoinTable(
        _ relationship: RelationshipDescription, of entity: String, in model: ManagedObjectModel
    ) -> Bool {
        guard let inverseName = relationship.inverseName,
            let inverse = model.allRelationships(of: relationship.destinationEntity).first(where: {
                $0.name == inverseName
            })
        else { return true }
        guard inverse.isToMany else { return false }
        // `<=`: a relationship that is its own inverse (such as `friends`) owns its table.
        return (entity, relationship.name) <= (relationship.destinationEntity, inverseName)
    }
}

extension StoreSchema {
    /// Whether `table` holds the rows of one entity only (its root has no sub-entities): every row's `_ent` is the
    /// root's number, so `_ent` needs no index and no condition.
    func isSingleEntityTable(_ table: String) -> Bool {
        mapping(for: table)?.hierarchyIDs.count == 1
    }
}

import FerrySQLite

/// One relationship of one entity, seen by a batch delete: where it is stored, and the SQL that finds the objects
/// it holds for the rows of that entity being deleted.
///
/// Rows being deleted are listed in the temporary table ``BatchDeleter/pending`` (`tbl`, `pk`, `ent`); each rule
/// reads the rows of exactly its entity (`ent`), so an inherited relationship is handled once per sub-entity with
/// that sub-entity's own delete rules.
struct BatchDeleteRule {
    let source: StoreSchema.EntityMapping
    let relationship: RelationshipDescription
    let destination: StoreSchema.EntityMapping
    /// `SELECT "dst"."_pk", "dst"."_ent" FROM … WHERE …`: the related objects of the pending rows of `source`,
    /// with one parameter, the source's table name.
    let destinationsSQL: String
    /// For nullify: the destination's foreign-key column (and its entity column) that points back at the source
    /// — a to-many's to-one inverse, or a one-to-one's other side; nil when clearing it is not the destination's
    /// business (the source row holds the key, or a join table does).
    let inverseColumns: (column: String, entityColumn: String?)?

    /// The rule of `relationship` of `source`, or nil when the schema has no storage for it.
    init?(_ relationship: RelationshipDescription, of source: StoreSchema.EntityMapping, in schema: StoreSchema) {
        guard let destination = schema.mapping(for: relationship.destinationEntity) else { return nil }
        let pending = BatchDeleter.pending
        let sourceTable = SQL.identifier(source.table)
        let destinationTable = SQL.identifier(destination.table)
        let filter =
            "WHERE \"del\".\"tbl\" = ? AND \"del\".\"ent\" = \(source.entityID) AND \"dst\".\"_ent\" IN ("
            + destination.hierarchyIDs.map(String.init).joined(separator: ", ") + ")"
        let select = "SELECT \"dst\".\"_pk\", \"dst\".\"_ent\" FROM \(pending) AS \"del\" "
        let model = schema.model
        let inverse = relationship.inverseName.flatMap { name in
            model.allRelationships(of: relationship.destinationEntity).first { $0.name == name }
        }
        if !relationship.isToMany {
            guard let key = source.foreignKeys[relationship.name] else { return nil }
            destinationsSQL =
                select + "JOIN \(sourceTable) AS \"src\" ON \"src\".\"_pk\" = \"del\".\"pk\" "
                + "JOIN \(destinationTable) AS \"dst\" ON \"dst\".\"_pk\" = \"src\".\(SQL.identifier(key.column)) "
                + filter
            // A one-to-one keeps a key on both sides; a to-many inverse lives in this very row.
            if let inverse, !inverse.isToMany, let back = destination.foreignKeys[inverse.name] {
                inverseColumns = (back.column, back.entityColumn)
            } else {
                inverseColumns = nil
            }
        } else if let join = schema.joinTable(for: relationship.name, of: source.entity) {
            let isOwner =
                join.relationship == relationship.name
                && model.ancestry(of: source.entity).contains { $0.name == join.sourceEntity }
            let (mine, theirs) = isOwner ? ("source", "destination") : ("destination", "source")
            destinationsSQL =
                select + "JOIN \(SQL.identifier(join.name)) AS \"j\" ON \"j\".\"\(mine)\" = \"del\".\"pk\" "
                + "JOIN \(destinationTable) AS \"dst\" ON \"dst\".\"_pk\" = \"j\".\"\(theirs)\" " + filter
            // Join rows go with the deleted object whatever the rule (see ``BatchDeleter``).
            inverseColumns = nil
        } else if let inverse, let back = destination.foreignKeys[inverse.name] {
            destinationsSQL =
                select
                + "JOIN \(destinationTable) AS \"dst\" ON \"dst\".\(SQL.identifier(back.column)) = \"del\".\"pk\" "
                + filter
            inverseColumns = (back.column, back.entityColumn)
        } else {
            return nil
        }
        self.source = source
        self.relationship = relationship
        self.destination = destination
    }

    /// The inverse relationship on the destination, when it is a non-optional to-one that nullify would empty.
    func mandatoryInverse(in model: ManagedObjectModel) -> RelationshipDescription? {
        guard let name = relationship.inverseName,
            let inverse = model.allRelationships(of: relationship.destinationEntity).first(where: { $0.name == name }),
            !inverse.isToMany, !inverse.isOptional
        else { return nil }
        return inverse
    }
}

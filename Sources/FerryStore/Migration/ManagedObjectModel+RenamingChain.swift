/// Renaming identifiers kept across versions, as Core Data reads them.
extension ManagedObjectModel {
    /// This model, with each renaming identifier turned into the name its element had in `previous`, the version a
    /// migration starts from.
    ///
    /// Ferry's migrations read a renaming identifier as the old element's name. Core Data reads it as an identifier
    /// that an element keeps across versions: the element whose renaming identifier (or, without one, name) equals
    /// the new element's is the old one. Renames therefore chain by keeping the identifier: `name` in version 1,
    /// `title` with identifier `name` in version 2, `label` with identifier `name` in version 3. Migrating from
    /// version 2 to 3 looks for `name` among version 2's names and finds none; this resolves the identifier to
    /// `title`, the version 2 element that carries it.
    ///
    /// An identifier that names an element of `previous`, or that no element of `previous` carries, is kept as it
    /// is. Attributes and relationships are looked up in the old entity's whole hierarchy, as a migration matches
    /// them. Renaming identifiers are not part of the version hash, so the hash does not change.
    public func chainingRenamingIdentifiers(from previous: ManagedObjectModel) -> ManagedObjectModel {
        var result = self
        let oldEntities = previous.entities.map { (name: $0.name, identifier: $0.renamingIdentifier) }
        for index in result.entities.indices {
            var entity = result.entities[index]
            entity.renamingIdentifier = Self.resolved(entity.name, entity.renamingIdentifier, among: oldEntities)
            let oldName =
                entity.renamingIdentifier.flatMap { previous.entity(named: $0)?.name }
                ?? previous.entity(named: entity.name)?.name
            if let oldName {
                let root = previous.rootEntity(of: oldName)
                let hierarchy = ([root] + previous.subentities(of: root)).compactMap { previous.entity(named: $0) }
                let attributes = hierarchy.flatMap(\.attributes)
                    .map { (name: $0.name, identifier: $0.renamingIdentifier) }
                let relationships = hierarchy.flatMap(\.relationships)
                    .map { (name: $0.name, identifier: $0.renamingIdentifier) }
                for i in entity.attributes.indices {
                    let attribute = entity.attributes[i]
                    entity.attributes[i].renamingIdentifier = Self.resolved(
                        attribute.name, attribute.renamingIdentifier, among: attributes)
                }
                for i in entity.relationships.indices {
                    let relationship = entity.relationships[i]
                    entity.relationships[i].renamingIdentifier = Self.resolved(
                        relationship.name, relationship.renamingIdentifier, among: relationships)
                }
            }
            result.entities[index] = entity
        }
        return result
    }

    /// The renaming identifier an element called `name` with `identifier` gets against the old elements: kept when
    /// an old element is so named (or, without one, when one has `name`); otherwise the name of the old element that
    /// carries the identifier (its renaming identifier, or its name's), when there is one.
    private static func resolved(
        _ name: String, _ identifier: String?, among old: [(name: String, identifier: String?)]
    ) -> String? {
        let key = identifier ?? name
        if old.contains(where: { $0.name == key }) { return identifier }
        if let carrier = old.first(where: { $0.identifier == key }) { return carrier.name }
        return identifier
    }
}

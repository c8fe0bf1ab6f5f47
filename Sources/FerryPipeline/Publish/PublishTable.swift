import FerryPostgres
import FerryStore

/// The PostgreSQL table an entity is published into, as the model describes it: a column per published key path
/// with its type and nullability, a unique index per uniqueness constraint, and the key upserts merge on.
///
/// Types: 16-, 32- and 64-bit integers `smallint`, `integer`, `bigint`; doubles and floats `double precision`;
/// decimals `numeric`; booleans `boolean`; dates `timestamp with time zone`; UUIDs `uuid`; binary and
/// transformable values `bytea`; strings and URIs `text`. A to-one relationship is a column named after it holding
/// the destination's natural key (its single-attribute uniqueness constraint), typed as that attribute.
struct PublishTable: Sendable, Hashable {
    /// One column.
    struct Column: Sendable, Hashable {
        /// The column's name.
        var name: String
        /// The key path read from the store.
        var keyPath: String
        /// The attribute type of what is read.
        var type: AttributeType
        /// Whether the column may hold NULL (an optional attribute, or a path through a relationship).
        var isNullable: Bool

        /// The column's type as `information_schema.columns.data_type` spells it (also valid in DDL).
        var sqlType: String { PublishTable.sqlType(of: type) }
    }

    /// The table, as given (`products` or `analytics.products`).
    var name: String
    var columns: [Column]
    /// The column names of each uniqueness constraint whose parts are all published: one unique index each.
    var uniqueKeys: [[String]]

    /// The key an upsert merges on (`ON CONFLICT`): the first uniqueness constraint, when published.
    var conflictKey: [String]? { uniqueKeys.first }

    /// The plan for publishing `spec.entity` of `model`.
    ///
    /// - Throws: ``PipelineError`` `.invalidSpec` for an unknown entity or field, or an upsert without a key.
    init(_ spec: PublishSpec, model: ManagedObjectModel) throws {
        guard model.entity(named: spec.entity) != nil else {
            throw PipelineError(.invalidSpec, "the model has no entity '\(spec.entity)'")
        }
        name = spec.table
        let attributes = model.allAttributes(of: spec.entity).filter(\.isStored)
        let relationships = model.allRelationships(of: spec.entity).filter { !$0.isToMany }
        var columns: [Column] = []
        var relationshipColumns: [String: String] = [:]
        if let fields = spec.fields {
            for field in fields {
                columns.append(try Self.column(for: field, of: spec.entity, in: model))
            }
        } else {
            columns = attributes.map { Column(name: $0.name, keyPath: $0.name, type: $0.type, isNullable: $0.isOptional) }
            for relationship in relationships {
                guard let key = Self.naturalKey(of: relationship.destinationEntity, in: model) else { continue }
                columns.append(
                    Column(name: relationship.name, keyPath: "\(relationship.name).\(key.name)", type: key.type,
                        isNullable: relationship.isOptional || key.isOptional))
            }
        }
        for column in columns where column.keyPath.contains(".") { relationshipColumns[column.keyPath] = column.name }
        var seen: Set<String> = []
        for column in columns where !seen.insert(column.name).inserted {
            throw PipelineError(.invalidSpec, "two published fields make the column '\(column.name)'; publish one")
        }
        self.columns = columns
        let names = Set(columns.map(\.name))
        uniqueKeys = model.allUniquenessConstraints(of: spec.entity).compactMap { constraint in
            let parts = constraint.map { part -> String in
                // A relationship in a constraint is its column, when published as the destination's natural key.
                if let relationship = relationships.first(where: { $0.name == part }),
                    let key = Self.naturalKey(of: relationship.destinationEntity, in: model)
                {
                    return relationshipColumns["\(part).\(key.name)"] ?? part
                }
                return part
            }
            return parts.allSatisfy(names.contains) ? parts : nil
        }
        if spec.mode == .upsert && uniqueKeys.isEmpty {
            throw PipelineError(
                .invalidSpec,
                "an upsert merges on a key, and no uniqueness constraint of \(spec.entity) is among the published "
                    + "columns (\(columns.map(\.name).joined(separator: ", "))); publish its key or use mode append or replace")
        }
    }

    /// The column for a field: an attribute (`price`) or a key path through to-one relationships
    /// (`category.name`, named `category` when that is the destination's natural key, else `category_name`).
    private static func column(for field: String, of entity: String, in model: ManagedObjectModel) throws -> Column {
        let parts = field.split(separator: ".").map(String.init)
        var current = entity
        var optional = false
        for part in parts.dropLast() {
            guard let relationship = model.allRelationships(of: current).first(where: { $0.name == part }),
                !relationship.isToMany
            else {
                throw PipelineError(.invalidSpec, "fields: '\(field)': \(current) has no to-one relationship '\(part)'")
            }
            optional = optional || relationship.isOptional
            current = relationship.destinationEntity
        }
        guard let last = parts.last,
            let attribute = model.allAttributes(of: current).first(where: { $0.name == last && $0.isStored })
        else {
            throw PipelineError(.invalidSpec, "fields: \(current) has no stored attribute '\(parts.last ?? field)'")
        }
        var name = parts.joined(separator: "_")
        if parts.count == 2, naturalKey(of: current, in: model)?.name == last { name = parts[0] }
        return Column(
            name: name, keyPath: field, type: attribute.type, isNullable: optional || parts.count > 1 || attribute.isOptional)
    }

    /// The attribute of `entity`'s first single-attribute uniqueness constraint.
    static func naturalKey(of entity: String, in model: ManagedObjectModel) -> AttributeDescription? {
        guard let key = model.allUniquenessConstraints(of: entity).first(where: { $0.count == 1 })?.first else {
            return nil
        }
        return model.allAttributes(of: entity).first { $0.name == key }
    }

    /// The PostgreSQL type of an attribute type.
    static func sqlType(of type: AttributeType) -> String {
        switch type {
        case .integer16: "smallint"
        case .integer32: "integer"
        case .integer64: "bigint"
        case .double, .float: "double precision"
        case .decimal: "numeric"
        case .boolean: "boolean"
        case .date: "timestamp with time zone"
        case .uuid: "uuid"
        case .binary, .transformable: "bytea"
        case .string, .uri: "text"
        }
    }

    /// `CREATE TABLE` for the table named `table` (this one's name, or the new table a replace fills).
    func createSQL(named table: String) -> String {
        let definitions = columns.map { column in
            PostgresConnection.identifier(column.name) + " " + column.sqlType + (column.isNullable ? "" : " NOT NULL")
        }
        return "CREATE TABLE \(PostgresConnection.qualifiedIdentifier(table)) (\(definitions.joined(separator: ", ")))"
    }

    /// `CREATE UNIQUE INDEX` for each uniqueness constraint, on the table named `table`, the indexes named after
    /// this table (so that a replace's new table ends up with the names the old one had).
    func createIndexSQL(on table: String) -> [String] {
        uniqueKeys.map { key in
            "CREATE UNIQUE INDEX \(PostgresConnection.identifier(indexName(key))) ON "
                + "\(PostgresConnection.qualifiedIdentifier(table)) (\(key.map(PostgresConnection.identifier).joined(separator: ", ")))"
        }
    }

    /// `<table>_<columns>_key`, at most 63 bytes (PostgreSQL's limit).
    func indexName(_ key: [String]) -> String {
        String(([unqualifiedName] + key + ["key"]).joined(separator: "_").utf8.prefix(63)) ?? "ferry_key"
    }

    /// The table's name without its schema.
    var unqualifiedName: String { String(name.split(separator: ".").last ?? Substring(name)) }

    /// The schema part of the name, or `nil` for the search path's first schema.
    var schema: String? {
        let parts = name.split(separator: ".", maxSplits: 1)
        return parts.count == 2 ? String(parts[0]) : nil
    }

    /// The name of the table a replace fills before swapping it in: `<table>_ferry_new`, in the same schema.
    var replacementName: String { (schema.map { $0 + "." } ?? "") + unqualifiedName + "_ferry_new" }
}

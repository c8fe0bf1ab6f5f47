import FerrySQLite

/// Resolves the key paths of a fetch request's sort descriptors, properties, group-by and aggregates to columns,
/// adding a LEFT JOIN for each distinct to-one key path prefix (`category`, `category.parent`).
///
/// The predicate compiler keeps its own joins, aliased `t1`, `t2`… (and `t0` for the entity's table); those
/// aliases are private to it, so the request's joins are separate and aliased `k1`, `k2`… A prefix used by both
/// the predicate and a sort descriptor is therefore joined twice. Both joins are LEFT JOINs on a primary key, so
/// each adds at most one row per object and the results are unchanged; the cost is one more index lookup per row.
struct FetchKeyPathResolver {
    /// A key path resolved to a column of the entity's table or of a joined table.
    struct Resolved {
        /// The key path as written: `category.name`.
        var keyPath: String
        /// `"k1"."name"`.
        var column: String
        /// The attribute the key path ends on.
        var attribute: AttributeDescription
    }

    let schema: StoreSchema
    let entity: String
    /// The alias of the fetched entity's table, shared with the predicate's SQL.
    let rootAlias: String
    /// `LEFT JOIN "Category" AS "k1" ON "k1"."_pk" = "t0"."category"`, in order of first use.
    private(set) var joins: [String] = []
    private var aliases: [String: String] = [:]

    init(schema: StoreSchema, entity: String, rootAlias: String) {
        self.schema = schema
        self.entity = entity
        self.rootAlias = rootAlias
    }

    /// `"alias"."column"`.
    static func column(_ alias: String, _ name: String) -> String {
        SQL.identifier(alias) + "." + SQL.identifier(name)
    }

    /// The column `keyPath` leads to; `role` (`sort key path`, `property to fetch`…) names the key path's use in
    /// error messages.
    ///
    /// - Throws: ``FetchRequestError`` `.unknownKeyPath` when a component names nothing or the path goes on past an
    ///   attribute, `.toManyKeyPath` through a to-many relationship, `.invalidRequest` when the path ends on a
    ///   relationship or a transient attribute.
    mutating func resolve(_ keyPath: String, as role: String) throws -> Resolved {
        let model = schema.model
        let components = keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        var current = entity
        var alias = rootAlias
        for (index, name) in components.enumerated() {
            let isLast = index == components.count - 1
            let subject = "\(role) '\(keyPath)' of \(entity)"
            if name.isEmpty {
                throw error(.unknownKeyPath, "unknown \(subject): the key path has an empty component", keyPath)
            }
            if let attribute = model.allAttributes(of: current).first(where: { $0.name == name }) {
                guard isLast else {
                    throw error(.unknownKeyPath, "unknown \(subject): it goes on past the attribute '\(name)'", keyPath)
                }
                guard attribute.isStored else {
                    throw error(
                        .invalidRequest, "\(subject): '\(name)' of \(current) is transient; the store has no column",
                        keyPath)
                }
                return Resolved(keyPath: keyPath, column: Self.column(alias, name), attribute: attribute)
            }
            guard let relationship = model.allRelationships(of: current).first(where: { $0.name == name }) else {
                throw error(
                    .unknownKeyPath, "unknown \(subject): \(current) has no attribute or relationship '\(name)'",
                    keyPath)
            }
            if relationship.isToMany {
                throw error(
                    .toManyKeyPath,
                    "\(subject) goes through the to-many relationship '\(name)' of \(current); "
                        + "only attributes and to-one relationships can be used here", keyPath)
            }
            if isLast {
                throw error(
                    .invalidRequest,
                    "\(subject) ends on the relationship '\(name)'; name one of its attributes, such as '\(keyPath)."
                        + "\(firstAttribute(of: relationship.destinationEntity))'", keyPath)
            }
            let foreignKey = schema.mapping(for: current)?.foreignKeys[name]?.column ?? name
            let prefix = components[...index].joined(separator: ".")
            alias = join(prefix, from: alias, foreignKey: foreignKey, to: relationship.destinationEntity)
            current = relationship.destinationEntity
        }
        throw error(.unknownKeyPath, "unknown \(role) '' of \(entity): the key path is empty", keyPath)
    }

    /// The alias of the table a to-one key path prefix leads to, adding its LEFT JOIN on first use.
    mutating func join(_ prefix: String, from source: String, foreignKey: String, to destination: String)
        -> String
    {
        if let alias = aliases[prefix] { return alias }
        let alias = "k\(aliases.count + 1)"
        let table = schema.mapping(for: destination)?.table ?? schema.model.rootEntity(of: destination)
        joins.append(
            "LEFT JOIN \(SQL.identifier(table)) AS \(SQL.identifier(alias)) ON \(Self.column(alias, "_pk")) = "
                + Self.column(source, foreignKey))
        aliases[prefix] = alias
        return alias
    }

    private func firstAttribute(of entity: String) -> String {
        schema.model.allAttributes(of: entity).first(where: \.isStored)?.name ?? "name"
    }

    func error(_ code: FetchRequestError.Code, _ message: String, _ keyPath: String? = nil) -> FetchRequestError {
        FetchRequestError(code: code, message: message, entityName: entity, keyPath: keyPath)
    }
}

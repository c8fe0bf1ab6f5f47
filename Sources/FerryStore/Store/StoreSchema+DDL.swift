import FerrySQLite
import Foundation

extension StoreSchema {
    /// Ferry's own tables, beside the entity tables.
    static let internalTableStatements = [
        """
        CREATE TABLE IF NOT EXISTS ferry_metadata (key TEXT PRIMARY KEY, value) WITHOUT ROWID
        """,
        """
        CREATE TABLE IF NOT EXISTS ferry_entities (
            ent INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, parent INTEGER, table_name TEXT NOT NULL)
        """,
        ModelHistory.createStatement,
    ]

    /// The SQL that creates every table and index of the store, in order: Ferry's own tables, one table per
    /// hierarchy, join tables, indexes, the triggers that maintain derived attributes, then the table and triggers
    /// that count references to externally stored blobs (see `blobStatements`).
    public var createStatements: [String] {
        var statements = Self.internalTableStatements
        var indexes: [String] = []
        let roots = model.entities.filter { $0.parentEntity == nil }
        for root in roots {
            let table = root.name
            let hierarchy = [root.name] + model.subentities(of: root.name)
            for name in hierarchy {
                guard let entity = model.entity(named: name) else { continue }
                for attribute in entity.attributes where attribute.isStored && attribute.isIndexed {
                    indexes.append(index(on: table, [attribute.name], unique: false))
                }
                for relationship in entity.relationships where !relationship.isToMany {
                    indexes.append(index(on: table, [relationship.name], unique: false, kind: "fk"))
                }
                for columnsOfIndex in entity.indexes {
                    indexes.append(index(on: table, columnsOfIndex, unique: false))
                }
                for constraint in entity.uniquenessConstraints {
                    indexes.append(uniqueIndex(on: table, constraint, declaredOn: name))
                }
            }
            statements.append(createTableStatement(forRoot: table))
            // Every row of a table that holds one entity has the same `_ent`: an index on it would only cost
            // each insert a second B-tree to write.
            if hierarchy.count > 1 { indexes.append(index(on: table, ["_ent"], unique: false)) }
        }
        for join in joinTables {
            var columns = ["source INTEGER NOT NULL", "destination INTEGER NOT NULL"]
            if join.isOrdered { columns.append("position INTEGER NOT NULL") }
            columns.append("PRIMARY KEY (source, destination)")
            statements.append(
                "CREATE TABLE IF NOT EXISTS \(SQL.identifier(join.name)) (\(columns.joined(separator: ", "))) WITHOUT ROWID"
            )
            indexes.append(index(on: join.name, ["destination"], unique: false))
        }
        return statements + Self.uniquelyNamed(indexes) + derivationTriggerStatements + blobStatements
    }

    /// The columns of the table of the hierarchy rooted at `root` after `_pk`, `_ent` and `_opt`, in table order:
    /// stored attributes, to-one relationships (and their `_ent` columns), then order columns.
    func tableColumns(forRoot root: String) -> [(name: String, type: String)] {
        var columns: [(name: String, type: String)] = []
        var seen: Set<String> = ["_pk", "_ent", "_opt"]
        func add(_ column: String, _ type: String) {
            guard seen.insert(column).inserted else { return }
            columns.append((column, type))
        }
        for name in [root] + model.subentities(of: root) {
            guard let entity = model.entity(named: name) else { continue }
            for attribute in entity.attributes where attribute.isStored { add(attribute.name, attribute.type.sqlType) }
            for relationship in entity.relationships where !relationship.isToMany {
                add(relationship.name, "INTEGER")
                if let entityColumn = mapping(for: name)?.foreignKeys[relationship.name]?.entityColumn {
                    add(entityColumn, "INTEGER")
                }
            }
        }
        for column in orderColumns(inTable: root) { add(column, "INTEGER") }
        return columns
    }

    /// `CREATE TABLE IF NOT EXISTS` for the hierarchy rooted at `root`, under the name `table` (the root's name
    /// unless a migration fills a table beside the old one).
    func createTableStatement(forRoot root: String, named table: String? = nil) -> String {
        let columns =
            [
                "\(SQL.identifier("_pk")) INTEGER PRIMARY KEY", "\(SQL.identifier("_ent")) INTEGER NOT NULL",
                "\(SQL.identifier("_opt")) INTEGER NOT NULL DEFAULT 1",
            ] + tableColumns(forRoot: root).map { "\(SQL.identifier($0.name)) \($0.type)" }
        return "CREATE TABLE IF NOT EXISTS \(SQL.identifier(table ?? root)) (\(columns.joined(separator: ", ")))"
    }

    /// Index statements whose names are made unique: an index on `[a_b]` and one on `[a, b]` would both be called
    /// `T_index_a_b`, and `IF NOT EXISTS` would silently skip the second. Later duplicates get `_2`, `_3`, …
    static func uniquelyNamed(_ statements: [String]) -> [String] {
        var seen: [String: Int] = [:]
        return statements.map { statement in
            let marker = "INDEX IF NOT EXISTS "
            guard let start = statement.range(of: marker)?.upperBound,
                let end = statement[start...].range(of: "\" ON ")?.lowerBound
            else { return statement }
            let name = String(statement[start..<end])
            let count = (seen[name] ?? 0) + 1
            seen[name] = count
            guard count > 1 else { return statement }
            return statement.replacingCharacters(in: start..<end, with: name + "_\(count)")
        }
    }

    /// The order columns that ordered one-to-many relationships put on `table`.
    func orderColumns(inTable table: String) -> [String] {
        var columns: [String] = []
        for entity in model.entities {
            for relationship in entity.relationships where relationship.isToMany && relationship.isOrdered {
                guard !Self.needsJoinTable(relationship, of: entity.name, in: model),
                    model.rootEntity(of: relationship.destinationEntity) == table,
                    let inverse = relationship.inverseName
                else { continue }
                columns.append("_order_\(inverse)")
            }
        }
        return columns
    }

    /// `CREATE [UNIQUE] INDEX "<prefix>_<kind>_<columns>" ON "<table>" (<columns>)`.
    private func index(
        on table: String, _ columns: [String], unique: Bool, kind: String = "index", prefix: String? = nil
    ) -> String {
        let name = "\(prefix ?? table)_\(kind)_\(columns.joined(separator: "_"))"
        let list = columns.map(SQL.identifier).joined(separator: ", ")
        return "CREATE \(unique ? "UNIQUE " : "")INDEX IF NOT EXISTS \(SQL.identifier(name)) ON "
            + "\(SQL.identifier(table)) (\(list))"
    }

    /// A UNIQUE index for a constraint; one declared on a sub-entity covers only that sub-entity's rows
    /// (a partial index, `WHERE _ent IN (…)` the sub-entity and its descendants).
    func uniqueIndex(on table: String, _ columns: [String], declaredOn entity: String) -> String {
        guard entity != table, let mapping = mapping(for: entity) else {
            return index(on: table, columns, unique: true, kind: "unique")
        }
        let ids = mapping.hierarchyIDs.map(String.init).joined(separator: ", ")
        return index(on: table, columns, unique: true, kind: "unique", prefix: "\(table)_\(entity)")
            + " WHERE \(SQL.identifier("_ent")) IN (\(ids))"
    }
}

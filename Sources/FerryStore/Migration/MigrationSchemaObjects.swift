import FerrySQLite
import Foundation

/// The indexes and triggers a migration compares: those the store has (as `sqlite_master` keeps them, without
/// `IF NOT EXISTS`) and those the new model's layout creates.
struct SchemaObject: Sendable, Hashable {
    /// `index` or `trigger`.
    var type: String
    var name: String
    /// The table it belongs to.
    var table: String
    /// Its statement, normalized as `sqlite_master` keeps it.
    var sql: String
}

/// A uniqueness constraint or index statement, taken apart.
struct ParsedIndex: Sendable, Hashable {
    var name: String
    var table: String
    var columns: [String]
    /// The partial index's condition (`"_ent" IN (…)`), if any.
    var condition: String?
}

/// Rows a migration removes from an entity and keeps in `ferry_migration_rejects`, with why.
struct Rejection: Sendable, Hashable {
    /// The old table the rows are in.
    var table: String
    var entity: String
    /// Which rows, as an SQL condition over the old table (columns qualified by its name).
    var condition: String
    var reason: String
}

extension MigrationPlanner {
    /// The entity tables' indexes (and, with `type: "trigger"`, triggers) the store has; Ferry's own tables are
    /// left out.
    static func existingIndexes(on connection: Connection, type: String = "index") throws -> [SchemaObject] {
        let statement = try connection.prepare(
            "SELECT name, tbl_name, sql FROM sqlite_master WHERE type = ? AND sql IS NOT NULL "
                + "AND tbl_name NOT LIKE 'ferry\\_%' ESCAPE '\\' ORDER BY name")
        try statement.bind([.text(type)])
        return try statement.fetchAll().map {
            SchemaObject(type: type, name: $0[0].text ?? "", table: $0[1].text ?? "", sql: $0[2].text ?? "")
        }
    }

    /// The new layout's statements of one kind (`INDEX` or `TRIGGER`), normalized as `sqlite_master` keeps them.
    static func indexStatements(of schema: StoreSchema, kind: String = "INDEX") -> [String] {
        schema.createStatements.compactMap { statement in
            let isKind =
                kind == "INDEX"
                ? statement.hasPrefix("CREATE INDEX") || statement.hasPrefix("CREATE UNIQUE INDEX")
                : statement.hasPrefix("CREATE TRIGGER")
            guard isKind else { return nil }
            return normalized(statement)
        }.filter { !$0.contains(" ON \"ferry_") }
    }

    /// `statement` without its first `IF NOT EXISTS `, as SQLite keeps it.
    static func normalized(_ statement: String) -> String {
        guard let range = statement.range(of: "IF NOT EXISTS ") else { return statement }
        return statement.replacingCharacters(in: range, with: "")
    }

    /// Takes apart `CREATE [UNIQUE] INDEX "name" ON "table" ("a", "b")[ WHERE …]`.
    static func parseIndex(_ statement: String) -> ParsedIndex? {
        let names = quotedNames(in: statement)
        guard names.count >= 3, let open = statement.firstIndex(of: "("),
            let close = statement[open...].firstIndex(of: ")")
        else { return nil }
        let columns = quotedNames(in: String(statement[open...close]))
        let rest = statement[statement.index(after: close)...]
        let condition = rest.range(of: " WHERE ").map { String(rest[$0.upperBound...]) }
        return ParsedIndex(name: names[0], table: names[1], columns: columns, condition: condition)
    }

    /// The double-quoted identifiers in `text`, unescaped, in order.
    private static func quotedNames(in text: String) -> [String] {
        var names: [String] = []
        var current: String?
        let characters = Array(text)
        var index = 0
        while index < characters.count {
            let character = characters[index]
            index += 1
            guard character == "\"" else {
                current?.append(character)
                continue
            }
            guard current != nil else {
                current = ""
                continue
            }
            if index < characters.count && characters[index] == "\"" {
                current?.append("\"")
                index += 1
            } else {
                names.append(current ?? "")
                current = nil
            }
        }
        return names
    }
}

import Foundation
extension ModelValidator {
    /// The longest entity, attribute or relationship name, in Unicode scalars: a model file keeps each name as a
    /// YAML key, and YAML reads a key of at most 1,024 characters.
    static let maximumNameLength = 1024

    /// The most columns SQLite allows in one table (`SQLITE_MAX_COLUMN` as built by default).
    static let maximumColumns = 2000

    /// Checks what the model maps to in SQLite (see ``StoreSchema``): tables and indexes share one namespace,
    /// where case does not count, so an entity `A_unique_b` beside entity `A`'s constraint on `b` (index
    /// `A_unique_b`) could never be created; and a table may not have more columns than SQLite allows.
    mutating func checkSchemaObjects() {
        let schema = StoreSchema(model: model)
        var owners: [String: String] = [:]
        for statement in schema.createStatements {
            guard let (kind, name) = Self.createdObject(statement) else { continue }
            let what = "\(kind) '\(name)'"
            if let earlier = owners[name.lowercased()] {
                error(
                    .duplicateName,
                    "\(what) has the name of \(earlier) (SQLite names tables and indexes in one namespace, ignoring "
                        + "case); rename the entity, relationship or attribute that makes it",
                    .entity(owningEntity(of: name) ?? model.entities.first?.name ?? name))
            } else {
                owners[name.lowercased()] = what
            }
            if kind == "table", let columns = Self.columnCount(statement), columns > Self.maximumColumns {
                error(
                    .invalidValue,
                    "table '\(name)' would have \(columns) columns (its entities' stored attributes and to-one "
                        + "relationships, and 3 of Ferry's own); SQLite allows at most \(Self.maximumColumns)",
                    .entity(owningEntity(of: name) ?? name))
            }
        }
    }

    /// The entity whose name is `name`, or whose name begins the schema object `name`.
    private func owningEntity(of name: String) -> String? {
        model.entities.first { $0.name == name }?.name
            ?? model.entities.filter { name.hasPrefix($0.name + "_") }.max { $0.name.count < $1.name.count }?.name
    }

    /// `("table" | "index" | "trigger", name)` of a `CREATE … IF NOT EXISTS "name"` statement.
    private static func createdObject(_ statement: String) -> (String, String)? {
        for kind in ["TABLE", "INDEX", "TRIGGER", "VIEW"] {
            guard let marker = statement.range(of: "\(kind) IF NOT EXISTS \"") else { continue }
            var name = ""
            var index = marker.upperBound
            // A quoted identifier doubles its quotes.
            while index < statement.endIndex {
                let character = statement[index]
                let next = statement.index(after: index)
                if character == "\"" {
                    guard next < statement.endIndex, statement[next] == "\"" else { break }
                    name.append("\"")
                    index = statement.index(after: next)
                    continue
                }
                name.append(character)
                index = next
            }
            return (kind.lowercased(), name)
        }
        return nil
    }

    /// The number of column definitions in a `CREATE TABLE` statement (commas outside quotes and parentheses, plus
    /// one), or nil when it is not one.
    private static func columnCount(_ statement: String) -> Int? {
        guard let open = statement.firstIndex(of: "(") else { return nil }
        var (depth, quoted, columns) = (0, false, 1)
        for character in statement[statement.index(after: open)...] {
            switch character {
            case "\"": quoted.toggle()
            case "(" where !quoted: depth += 1
            case ")" where !quoted: depth -= 1
            case "," where !quoted && depth == 0: columns += 1
            default: break
            }
            if depth < 0 { break }
        }
        return columns
    }
}

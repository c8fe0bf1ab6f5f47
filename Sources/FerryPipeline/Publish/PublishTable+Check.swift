import FerryPostgres

extension PublishTable {
    /// Whether the table exists on the server; when it does, checks that its columns fit the model, and fails naming
    /// every difference: a missing column, another type, NULL allowed where the model forbids it or forbidden where
    /// the model allows it, a NOT NULL column without a default that Ferry does not fill, and (for an upsert) no
    /// unique index on the merge key. Ferry never casts silently.
    ///
    /// - Throws: ``PipelineError`` `.invalidSpec` listing the differences; ``PostgresError``.
    func checkExisting(named table: String, on connection: PostgresConnection, upsert: Bool) throws -> Bool {
        let found = try connection.execute(
            """
            SELECT c.column_name, c.data_type, c.is_nullable, c.column_default IS NOT NULL OR c.is_identity = 'YES'
            FROM information_schema.columns c
            WHERE c.table_schema = coalesce($1, current_schema()) AND c.table_name = $2
            ORDER BY c.ordinal_position
            """, [schema, String(table.split(separator: ".").last ?? Substring(table))])
        guard !found.rows.isEmpty else { return false }
        var differences: [String] = []
        var existing: [String: (type: String, nullable: Bool)] = [:]
        for row in found.rows {
            guard let name = row[0], let type = row[1] else { continue }
            existing[name] = (type, row[2] == "YES")
            if !columns.contains(where: { $0.name == name }) && row[2] == "NO" && row[3] != "t" {
                differences.append("column \(name) is NOT NULL without a default, and Ferry publishes no value for it")
            }
        }
        for column in columns {
            guard let have = existing[column.name] else {
                differences.append("column \(column.name) is missing (expected \(column.sqlType))")
                continue
            }
            if have.type != column.sqlType {
                differences.append("column \(column.name) is \(have.type), expected \(column.sqlType)")
            }
            if have.nullable && !column.isNullable {
                differences.append("column \(column.name) allows NULL, and the model says it is required (NOT NULL)")
            } else if !have.nullable && column.isNullable {
                differences.append("column \(column.name) is NOT NULL, and the model allows no value")
            }
        }
        if upsert, let key = conflictKey, try !hasUniqueIndex(on: key, of: table, connection: connection) {
            differences.append(
                "no unique index on (\(key.joined(separator: ", "))), which an upsert merges on")
        }
        guard differences.isEmpty else {
            throw PipelineError(
                .invalidSpec,
                "the table \(table) does not fit \(columns.isEmpty ? "the model" : "what is published"): "
                    + differences.joined(separator: "; ")
                    + ". Change the table (or drop it for Ferry to create it), or publish with mode replace")
        }
        return true
    }

    /// Whether a unique index without a predicate covers exactly `key`'s columns.
    private func hasUniqueIndex(on key: [String], of table: String, connection: PostgresConnection) throws -> Bool {
        let indexes = try connection.execute(
            """
            SELECT string_agg(a.attname, ',' ORDER BY a.attname)
            FROM pg_index i
            JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY (i.indkey)
            WHERE i.indrelid = to_regclass($1) AND i.indisunique AND i.indpred IS NULL
            GROUP BY i.indexrelid
            """, [PostgresConnection.qualifiedIdentifier(table)])
        let wanted = key.sorted().joined(separator: ",")
        return indexes.rows.contains { $0[0] == wanted }
    }
}

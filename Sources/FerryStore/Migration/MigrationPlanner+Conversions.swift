import FerrySQLite
import Foundation

/// Type changes that are not widenings, carried out as conversions: every value that converts is converted; one
/// that does not (text that is not a number, a number out of the new type's range, a fraction into an integer) is a
/// violation the policy decides: `fail` stops, `reject` moves the row into `ferry_migration_rejects`, `default` gives
/// the value the attribute's default (or null when it is optional and has none). No value is dropped silently.
extension MigrationPlanner {
    /// How values of one type become values of another: the SQL test that a value (`$0`) converts, and the SQL of
    /// the converted value.
    struct Conversion {
        var converts: (String) -> String
        var value: (String) -> String
    }

    /// The conversion from `old` to `new`, or `nil` when Ferry has none (the change is then not inferable).
    static func conversion(from old: AttributeType, to new: AttributeType) -> Conversion? {
        let ranges: [AttributeType: (Int64, Int64)] = [
            .integer16: (-32768, 32767), .integer32: (-2_147_483_648, 2_147_483_647),
            .integer64: (Int64.min, Int64.max),
        ]
        let isNumber = { (v: String) in
            "(CASE WHEN json_valid(\(v)) THEN json_type(\(v)) IN ('integer', 'real') ELSE 0 END)"
        }
        switch (old, new) {
        case (_, .integer16), (_, .integer32), (_, .integer64):
            guard let (low, high) = ranges[new] else { return nil }
            let inRange = { (v: String) in "\(v) BETWEEN \(low) AND \(high)" }
            switch old {
            case .integer16, .integer32, .integer64, .boolean:
                // Another writer may have left a fraction in an integer column: it does not convert.
                return Conversion(converts: { "\($0) = CAST(\($0) AS INTEGER) AND \(inRange($0))" }, value: { $0 })
            case .double, .float:
                return Conversion(
                    converts: { "\($0) = CAST(\($0) AS INTEGER) AND \(inRange($0))" },
                    value: { "CAST(\($0) AS INTEGER)" })
            case .string, .decimal:
                return Conversion(
                    converts: { v in
                        "(CASE WHEN json_valid(\(v)) THEN json_type(\(v)) = 'integer' ELSE 0 END) AND "
                            + inRange("CAST(\(v) AS INTEGER)")
                    }, value: { "CAST(\($0) AS INTEGER)" })
            default: return nil
            }
        case (.double, .float):
            return Conversion(converts: { _ in "1" }, value: { $0 })
        case (.string, .double), (.string, .float), (.decimal, .double), (.decimal, .float):
            return Conversion(converts: isNumber, value: { "CAST(\($0) AS REAL)" })
        case (.string, .decimal):
            return Conversion(converts: isNumber, value: { "trim(\($0))" })
        case (.double, .decimal), (.float, .decimal):
            // Only whole numbers: a binary fraction has no exact decimal text that SQL can give.
            return Conversion(
                converts: { "\($0) = CAST(\($0) AS INTEGER)" }, value: { "CAST(CAST(\($0) AS INTEGER) AS TEXT)" })
        case (.string, .boolean):
            return Conversion(
                converts: { "lower(trim(\($0))) IN ('true', 'false', 'yes', 'no', '1', '0')" },
                value: { "(lower(trim(\($0))) IN ('true', 'yes', '1'))" })
        case (.integer16, .boolean), (.integer32, .boolean), (.integer64, .boolean):
            return Conversion(converts: { "\($0) IN (0, 1)" }, value: { $0 })
        default:
            return nil
        }
    }

    /// Plans the conversion of `column` of `table` from `old` to `new`: counts the values that do not convert and
    /// decides what happens to them; sets the copy's expression.
    mutating func planConversion(
        from old: AttributeDescription, to new: AttributeDescription, of owner: String, column: String,
        table: String, ids: [Int], rows: Int, into planned: inout TableMigration.Column
    ) throws {
        guard let conversion = Self.conversion(from: old.type, to: new.type) else {
            throw notInferable(
                "attribute '\(owner).\(new.name)' changes type from \(old.type.name) to \(new.type.name), which Ferry "
                    + "cannot convert")
        }
        let value = Self.qualified(table, column)
        let failing =
            "\(Self.entityCondition(ids, table: table)) AND \(value) IS NOT NULL AND NOT (\(conversion.converts(value)))"
        let failures = try count(table, where: failing)
        let samples = try connection.prepare(
            "SELECT \(Self.qualified(table, "_pk")) FROM \(SQL.identifier(table)) WHERE \(failing) "
                + "ORDER BY 1 LIMIT 5"
        ).fetchAll().compactMap { $0[0].integer }.map { "_pk \($0)" }
        let name = "'\(owner).\(new.name)'"
        var replacement = "NULL"
        steps.append(
            MigrationStep(
                kind: "convertType", entity: owner,
                summary: "convert \(name) from \(old.type.name) to \(new.type.name)", cost: .tableRebuild, rows: rows))
        if failures > 0 {
            let resolution: String
            var blocks = false
            switch policy {
            case .reject:
                resolution = "the \(failures) rows are rejected into ferry_migration_rejects"
                rejections.append(
                    Rejection(
                        table: table, entity: owner, condition: failing,
                        reason: "the value of \(name) does not convert from \(old.type.name) to \(new.type.name)"))
                steps.append(
                    MigrationStep(
                        kind: "rejectRows", entity: owner,
                        summary: "reject the \(failures) rows of '\(owner)' whose \(name) does not convert",
                        cost: .onePass, rows: failures, isDestructive: true))
            case .default where new.defaultValue != nil || new.isOptional:
                let stored = StoredValueCodec.encode(new.defaultValue, as: new.type)
                replacement = Self.literal(stored)
                resolution = "the \(failures) values get \(stored.isNull ? "null" : "the default \(stored)")"
                steps.append(
                    MigrationStep(
                        kind: "replaceValues", entity: owner,
                        summary: "give the \(failures) values of \(name) that do not convert "
                            + (stored.isNull ? "null" : "the default"), cost: .onePass, rows: failures,
                        isDestructive: true))
            default:
                resolution =
                    "\(failures) values of \(name) do not convert to \(new.type.name); fix them first (a "
                    + "willMigrate stage), or run with --on-violation reject or default"
                blocks = true
            }
            checks.append(
                MigrationCheck(
                    kind: "notConvertible", entity: owner, attributes: [new.name], violations: failures,
                    samples: samples, resolution: resolution, blocks: blocks))
        }
        let source = SQL.identifier(column)
        planned.cast = true
        planned.conversion =
            "CASE WHEN \(source) IS NULL THEN NULL WHEN \(conversion.converts(source)) THEN "
            + "\(conversion.value(source)) ELSE \(replacement) END"
    }

    /// `value` as an SQL literal.
    static func literal(_ value: SQLiteValue) -> String {
        switch value {
        case .null: "NULL"
        case .integer(let integer): String(integer)
        case .real(let real): "\(real)"
        case .text(let text): "'\(text.replacingOccurrences(of: "'", with: "''"))'"
        case .blob(let bytes):
            "X'\(bytes.map { String($0, radix: 16) }.map { $0.count == 1 ? "0" + $0 : $0 }.joined())'"
        }
    }
}

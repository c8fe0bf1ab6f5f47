import FerrySQLite
import Foundation

/// Type changes that are not widenings, carried out as conversions (``TypeConversion`` says which pairs convert and
/// how): every value that converts is converted; one that does not (text that is not a number or a date, a number
/// out of the new type's range, a fraction into an integer, bytes that are not UTF-8 into a string) is a
/// violation the policy decides: `fail` stops, `reject` moves the row into `ferry_migration_rejects`, `default` gives
/// the value the attribute's default (or null when it is optional and has none). No value is dropped silently.
extension MigrationPlanner {
    /// Plans the conversion of `column` of `table` from `old` to `new`: counts the values that do not convert and
    /// decides what happens to them; sets the copy's expression.
    mutating func planConversion(
        from old: AttributeDescription, to new: AttributeDescription, of owner: String, column: String,
        table: String, ids: [Int], rows: Int, into planned: inout TableMigration.Column
    ) throws {
        guard let conversion = TypeConversion.between(old.type, new.type, dateFormats: dateFormats) else {
            throw notInferable(
                "attribute '\(owner).\(new.name)' changes type from \(old.type.name) to \(new.type.name), which Ferry "
                    + "cannot convert")
        }
        if Self.storesExternally(old) || Self.storesExternally(new) {
            // Externally stored values are blob references in the rows, not the bytes a conversion reads or writes.
            throw notInferable(
                "attribute '\(owner).\(new.name)' changes type from \(old.type.name) to \(new.type.name) and keeps "
                    + "values in blob files; first migrate to a model where it does not allow external storage")
        }
        let value = Self.qualified(table, column)
        let failing =
            "\(Self.entityCondition(ids, table: table)) AND \(value) IS NOT NULL AND NOT (\(conversion.converts(value)))"
        let failures = try count(table, where: failing)
        // The first failing rows with their values as SQL quotes them ('05/13/2026', X'FFFE'), for the plan.
        let sampleRows = try connection.prepare(
            "SELECT \(Self.qualified(table, "_pk")), substr(quote(\(value)), 1, 60) FROM \(SQL.identifier(table)) "
                + "WHERE \(failing) ORDER BY 1 LIMIT 5"
        ).fetchAll()
        let samples = sampleRows.compactMap { $0[0].integer }.map { "_pk \($0)" }
        let values = sampleRows.map { $0[1].text ?? "NULL" }
        let name = "'\(owner).\(new.name)'"
        var replacement = "NULL"
        var summary = "convert \(name) from \(old.type.name) to \(new.type.name)"
        if old.type == .string && new.type == .date {
            summary += " (date formats: \(dateFormats.map(\.description).joined(separator: ", ")))"
        }
        steps.append(
            MigrationStep(kind: "convertType", entity: owner, summary: summary, cost: .tableRebuild, rows: rows))
        if failures > 0 {
            let resolution: String
            var blocks = false
            switch policy {
            case .reject:
                resolution = "the \(failures) rows are rejected into ferry_migration_rejects"
                rejections.append(
                    Rejection(
                        table: table, entity: owner, condition: failing,
                        reason: "the value of \(name) does not convert from \(old.type.name) to \(new.type.name) "
                            + "(expected \(conversion.expectation))"))
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
                    + "willMigrate stage\(old.type == .string && new.type == .date ? ", other --date-format" : "")), "
                    + "or run with --on-violation reject or default"
                blocks = true
            }
            checks.append(
                MigrationCheck(
                    kind: "notConvertible", entity: owner, attributes: [new.name], violations: failures,
                    samples: samples, resolution: resolution, blocks: blocks, values: values,
                    expected: conversion.expectation))
        }
        let source = SQL.identifier(column)
        planned.cast = true
        planned.conversion = conversion.copyExpression(of: source, replacement: replacement)
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

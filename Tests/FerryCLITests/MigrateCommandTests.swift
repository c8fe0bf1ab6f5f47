import FerrySQLite
import FerryTestSupport
import Foundation
import Testing

/// `ferry migrate` and the automatic migration of `ferry run`, from the built binary on real store files: the
/// plan and its exit codes, violation policies, staged migrations through a versioned model folder.
@Suite(.serialized)
struct MigrateCommandTests {
    let ferry = BuiltCommand(product: "ferry")

    static let v1 = """
        entities:
          Product:
            attributes:
              sku: { type: string, optional: false }
              name: string
        """
    static let withOrigin = v1 + "\n      origin: string\n"
    static let unique = v1 + "\n    uniquenessConstraints: [[sku]]\n"

    /// A folder with a store at `v1` holding four products, two of which share the SKU `A`.
    func workspace() throws -> URL {
        let folder = try TestSupport.makeTemporaryFolder()
        try Self.v1.write(to: folder.appendingPathComponent("v1.yml"), atomically: true, encoding: .utf8)
        try "sku,name\nA,first\nB,bee\nA,second\nC,sea\n".write(
            to: folder.appendingPathComponent("products.csv"), atomically: true, encoding: .utf8)
        let result = try ferry.run(
            ["import", "products.csv", "--store", "s.sqlite", "--model", "v1.yml", "--entity", "Product"], in: folder)
        #expect(result.status == 0, "\(result.standardError)")
        return folder
    }

    func write(_ text: String, _ name: String, in folder: URL) throws {
        let url = folder.appendingPathComponent(name)
        try FileManager.default.createDirectory(
            at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try text.write(to: url, atomically: true, encoding: .utf8)
    }

    func values(_ sql: String, in folder: URL) throws -> [SQLiteValue] {
        let connection = try Connection(path: folder.appendingPathComponent("s.sqlite").path, mode: .readOnly)
        return try connection.prepare(sql).fetchAll().map { $0[0] }
    }

    @Test func planPrintsTheStepsChangesNothingAndTheMigrationThenRuns() throws {
        let folder = try workspace()
        defer { try? FileManager.default.removeItem(at: folder) }
        try write(Self.withOrigin, "v2.yml", in: folder)
        let plan = try ferry.run(["migrate", "--store", "s.sqlite", "--model", "v2.yml", "--plan"], in: folder)
        #expect(plan.status == 0, "\(plan.standardError)")
        #expect(plan.standardOutput.contains("add attribute 'Product.origin' [instant DDL]"))
        #expect(try values("SELECT count(*) FROM ferry_model_history", in: folder) == [.integer(1)])
        let migrate = try ferry.run(["migrate", "--store", "s.sqlite", "--model", "v2.yml"], in: folder)
        #expect(migrate.status == 0, "\(migrate.standardError)")
        #expect(migrate.standardOutput.contains("rows before Product 4, after Product 4"))
        let inspect = try ferry.run(["inspect", "--store", "s.sqlite"], in: folder)
        #expect(inspect.standardOutput.contains("Model versions"))
        #expect(inspect.standardOutput.contains(" migrated "))
        #expect(inspect.standardOutput.contains("by ferry migrate"))
    }

    @Test func planListsTextThatIsNotADateWithItsCountAndKeysAndRejectConvertsTheRest() throws {
        let folder = try TestSupport.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try write(Self.v1 + "\n      added: string\n", "v1.yml", in: folder)
        try write(
            "sku,name,added\nA,a,2026-01-05\nB,b,soon\nC,c,2026-01-05T09:00:00Z\nD,d,05/01/2026\n", "p.csv", in: folder)
        let imported = try ferry.run(
            ["import", "p.csv", "--store", "s.sqlite", "--model", "v1.yml", "--entity", "Product"], in: folder)
        #expect(imported.status == 0, "\(imported.standardError)")
        try write(Self.v1 + "\n      added: date\n", "v2.yml", in: folder)
        let plan = try ferry.run(["migrate", "--store", "s.sqlite", "--model", "v2.yml", "--plan"], in: folder)
        #expect(plan.status == 65, "\(plan.standardError)")
        #expect(plan.standardOutput.contains("convert 'Product.added' from string to date"))
        #expect(
            plan.standardOutput.contains(
                "check notConvertible Product.added: 2 rows (such as _pk 2 'soon', _pk 4 '05/01/2026'), expected a "
                    + "date in ISO-8601 (2026-01-05T09:00:00Z)"))
        let rejected = try ferry.run(
            ["migrate", "--store", "s.sqlite", "--model", "v2.yml", "--on-violation", "reject", "--allow-destructive"],
            in: folder)
        #expect(rejected.status == 0, "\(rejected.standardError)")
        #expect(
            try values("SELECT added FROM Product ORDER BY sku", in: folder) == [
                .real(1_767_571_200), .real(1_767_603_600),
            ])
        #expect(
            try values("SELECT pk FROM ferry_migration_rejects ORDER BY pk", in: folder) == [.integer(2), .integer(4)])
    }

    @Test func dateFormatOptionsAreTriedInOrderAndThePlanNamesThem() throws {
        let folder = try TestSupport.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try write(Self.v1 + "\n      added: string\n", "v1.yml", in: folder)
        try write(
            "sku,name,added\nA,a,2026-01-05\nB,b,soon\nC,c,1767603600\nD,d,05/01/2026\n", "p.csv", in: folder)
        let imported = try ferry.run(
            ["import", "p.csv", "--store", "s.sqlite", "--model", "v1.yml", "--entity", "Product"], in: folder)
        #expect(imported.status == 0, "\(imported.standardError)")
        try write(Self.v1 + "\n      added: date\n", "v2.yml", in: folder)
        let formats = ["--date-format", "dd/MM/yyyy", "--date-format", "iso8601", "--date-format", "epochSeconds"]
        let plan = try ferry.run(
            ["migrate", "--store", "s.sqlite", "--model", "v2.yml", "--plan"] + formats, in: folder)
        #expect(plan.status == 65, "\(plan.standardError)")
        #expect(plan.standardOutput.contains("(date formats: dd/MM/yyyy, iso8601, epochSeconds)"))
        #expect(
            plan.standardOutput.contains(
                "1 rows (such as _pk 2 'soon'), expected a date in dd/MM/yyyy, ISO-8601 (2026-01-05T09:00:00Z) or "
                    + "seconds since 1970"))
        let bad = try ferry.run(
            ["migrate", "--store", "s.sqlite", "--model", "v2.yml", "--date-format", "MMM yyyy"], in: folder)
        #expect(bad.status == 64, "\(bad.standardError)")
        #expect(bad.standardError.contains("--date-format: date pattern 'MMM yyyy'"))
        let migrated = try ferry.run(
            ["migrate", "--store", "s.sqlite", "--model", "v2.yml", "--on-violation", "reject", "--allow-destructive"]
                + formats, in: folder)
        #expect(migrated.status == 0, "\(migrated.standardError)")
        #expect(
            try values("SELECT added FROM Product ORDER BY sku", in: folder) == [
                .real(1_767_571_200), .real(1_767_603_600), .real(1_767_571_200),
            ])
        #expect(try values("SELECT pk FROM ferry_migration_rejects ORDER BY pk", in: folder) == [.integer(2)])
    }

    @Test func duplicateKeysExit65AndAPolicyWithConsentResolvesThem() throws {
        let folder = try workspace()
        defer { try? FileManager.default.removeItem(at: folder) }
        try write(Self.unique, "v2.yml", in: folder)
        let plan = try ferry.run(["migrate", "--store", "s.sqlite", "--model", "v2.yml", "--plan", "--json"], in: folder)
        #expect(plan.status == 65)
        #expect(plan.standardOutput.contains("\"kind\":\"duplicateKeys\""))
        #expect(plan.standardOutput.contains("\"violations\":1"))
        #expect(try ferry.run(["migrate", "--store", "s.sqlite", "--model", "v2.yml"], in: folder).status == 65)
        let withoutConsent = try ferry.run(
            ["migrate", "--store", "s.sqlite", "--model", "v2.yml", "--on-violation", "keep-last"], in: folder)
        #expect(withoutConsent.status == 78)
        #expect(withoutConsent.standardError.contains("--allow-destructive"))
        let resolved = try ferry.run(
            ["migrate", "--store", "s.sqlite", "--model", "v2.yml", "--on-violation", "keep-last", "--allow-destructive"],
            in: folder)
        #expect(resolved.status == 0, "\(resolved.standardError)")
        #expect(try values("SELECT name FROM Product ORDER BY sku", in: folder)
            == [.text("second"), .text("bee"), .text("sea")])
        #expect(try values("SELECT json_extract(row, '$.name') FROM ferry_migration_rejects", in: folder) == [.text("first")])
    }

    @Test func aChangeThatCannotBeInferredExits78BeforeTouchingTheStore() throws {
        let folder = try workspace()
        defer { try? FileManager.default.removeItem(at: folder) }
        // Text has no meaning as a transformer's encoded value: no conversion.
        try write(
            Self.v1.replacingOccurrences(of: "name: string", with: "name: { type: transformable, transformer: Notes }"),
            "v2.yml", in: folder)
        let result = try ferry.run(["migrate", "--store", "s.sqlite", "--model", "v2.yml"], in: folder)
        #expect(result.status == 78)
        #expect(result.standardError.contains("changes type from string to transformable"))
        #expect(try values("SELECT count(*) FROM ferry_model_history", in: folder) == [.integer(1)])
    }

    @Test func ferryRunMigratesByItselfUnlessThePipelineSaysManual() throws {
        let folder = try workspace()
        defer { try? FileManager.default.removeItem(at: folder) }
        try write(Self.withOrigin, "v2.yml", in: folder)
        try "sku,name,origin\nD,dee,here\n".write(
            to: folder.appendingPathComponent("more.csv"), atomically: true, encoding: .utf8)
        let pipeline = """
            store: s.sqlite
            model: v2.yml
            migration: manual
            steps:
              - import: { source: more.csv, entity: Product }
            """
        try write(pipeline, "manual.yml", in: folder)
        let manual = try ferry.run(["run", "manual.yml"], in: folder)
        #expect(manual.status == 78)
        #expect(manual.standardError.contains("ferry migrate --store"))
        #expect(manual.standardError.contains("add attribute 'Product.origin'"))
        try write(pipeline.replacingOccurrences(of: "migration: manual\n", with: ""), "auto.yml", in: folder)
        let automatic = try ferry.run(["run", "auto.yml"], in: folder)
        #expect(automatic.status == 0, "\(automatic.standardError)")
        #expect(try values("SELECT origin FROM Product WHERE sku = 'D'", in: folder) == [.text("here")])
        #expect(try values("SELECT applied_by FROM ferry_model_history ORDER BY version DESC LIMIT 1", in: folder)
            .first?.text?.hasPrefix("ferry run") == true)
    }

    @Test func ferryRunMigratesTextToDatesInThePipelinesMigrationDateFormatsAndNotItsImportFormats() throws {
        let folder = try TestSupport.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try write(Self.v1 + "\n      added: string\n", "v1.yml", in: folder)
        try write("sku,name,added\nA,a,05/01/2026\nB,b,2026-01-06\n", "p.csv", in: folder)
        let imported = try ferry.run(
            ["import", "p.csv", "--store", "s.sqlite", "--model", "v1.yml", "--entity", "Product"], in: folder)
        #expect(imported.status == 0, "\(imported.standardError)")
        try write(Self.v1 + "\n      added: date\n", "v2.yml", in: folder)
        try write("sku,name,added\nC,c,07.01.2026\n", "more.csv", in: folder)
        let steps = """
            steps:
              - import: { source: more.csv, entity: Product, dateFormats: [dd.MM.yyyy] }
            """
        // The import step's formats do not read the stored texts: the migration is blocked and exits 78.
        try write("store: s.sqlite\nmodel: v2.yml\n" + steps, "imports-only.yml", in: folder)
        let refused = try ferry.run(["run", "imports-only.yml"], in: folder)
        #expect(refused.status == 78, "\(refused.standardError)")
        #expect(refused.standardError.contains("(such as _pk 1 '05/01/2026')"))
        try write(
            "store: s.sqlite\nmodel: v2.yml\nmigration: { mode: automatic, dateFormats: [dd/MM/yyyy, iso8601] }\n"
                + steps, "both.yml", in: folder)
        let run = try ferry.run(["run", "both.yml"], in: folder)
        #expect(run.status == 0, "\(run.standardError)")
        #expect(
            try values("SELECT added FROM Product ORDER BY sku", in: folder) == [
                .real(1_767_571_200), .real(1_767_657_600), .real(1_767_744_000),
            ])
    }

    @Test func ferryRunRefusesADestructiveMigrationAndShowsThePlan() throws {
        let folder = try workspace()
        defer { try? FileManager.default.removeItem(at: folder) }
        try write(Self.v1.replacingOccurrences(of: "\n      name: string", with: ""), "v2.yml", in: folder)
        try write(
            "store: s.sqlite\nmodel: v2.yml\nsteps:\n  - batchDelete: { entity: Product, where: \"sku == 'Z'\" }\n",
            "p.yml", in: folder)
        let run = try ferry.run(["run", "p.yml"], in: folder)
        #expect(run.status == 78)
        #expect(run.standardError.contains("remove column 'name'"))
        #expect(try values("SELECT count(name) FROM Product", in: folder) == [.integer(4)])
    }

    @Test func aVersionedModelFolderIsWalkedStageByStageWithItsDeclaredSteps() throws {
        let folder = try workspace()
        defer { try? FileManager.default.removeItem(at: folder) }
        try write(Self.v1, "catalog.model/v1.yml", in: folder)
        try write(Self.withOrigin, "catalog.model/v2.yml", in: folder)
        try write(
            Self.withOrigin + "    uniquenessConstraints: [[sku]]\n", "catalog.model/v3.yml", in: folder)
        try write(
            """
            willMigrate:
              - batchDelete: { entity: Product, where: "name == 'first'" }
            didMigrate:
              - batchUpdate: { entity: Product, where: "origin == nil", set: { origin: unknown } }
            """, "catalog.model/v3.migration.yml", in: folder)
        let plan = try ferry.run(["migrate", "--store", "s.sqlite", "--model", "catalog.model", "--plan"], in: folder)
        #expect(plan.status == 0, "\(plan.standardError)")
        #expect(plan.standardOutput.contains("v1 → v2"))
        #expect(plan.standardOutput.contains("v2 → v3"))
        #expect(try values("SELECT count(*) FROM Product", in: folder) == [.integer(4)])
        let migrate = try ferry.run(["migrate", "--store", "s.sqlite", "--model", "catalog.model"], in: folder)
        #expect(migrate.status == 0, "\(migrate.standardError)")
        #expect(try values("SELECT count(*) FROM ferry_model_history", in: folder) == [.integer(3)])
        #expect(try values("SELECT origin FROM Product ORDER BY sku", in: folder)
            == [.text("unknown"), .text("unknown"), .text("unknown")])
        let again = try ferry.run(["migrate", "--store", "s.sqlite", "--model", "catalog.model"], in: folder)
        #expect(again.standardOutput.contains("nothing to migrate"))
    }

    @Test func theInventoryPipelineMigratesAStoreMadeWithItsFirstModelVersion() throws {
        let folder = try TestSupport.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let root = TestSupport.packageRoot
        let model = root.appendingPathComponent("Pipelines/inventory.model").path
        let made = try ferry.run(
            [
                "import", TestSupport.sampleData("inventory-v1.csv").path, "--store", "s.sqlite", "--entity", "Item",
                "--model", model + "/v1.yml",
            ], in: folder)
        #expect(made.status == 0, "\(made.standardError)")
        let plan = try ferry.run(["migrate", "--store", "s.sqlite", "--model", model, "--plan"], in: folder)
        #expect(plan.status == 0, "\(plan.standardError)")
        #expect(plan.standardOutput.contains("rename entity 'Item' to 'Product'"))
        #expect(plan.standardOutput.contains("build unique index"))
        let run = try ferry.run(
            ["run", root.appendingPathComponent("Pipelines/inventory.yml").path, "--store", "s.sqlite"], in: folder)
        #expect(run.status == 0, "\(run.standardError)")
        #expect(try values("SELECT kind FROM ferry_model_history ORDER BY version", in: folder)
            == [.text("created"), .text("migrated"), .text("migrated")])
        #expect(try values("SELECT count(*) FROM Product WHERE name LIKE 'TEST%'", in: folder) == [.integer(0)])
        #expect(try values("SELECT count(*) - count(DISTINCT sku) FROM Product", in: folder) == [.integer(0)])
        #expect(try values("SELECT name FROM Product WHERE sku = 'SKU-0002'", in: folder) == [.text("Café Crème Blend")])
        #expect(try values("SELECT active FROM Product WHERE sku = 'SKU-0003'", in: folder) == [.integer(1)])
    }

    @Test func anAdHocImportOfAnotherEntityAddsItToTheStoresModelAndTouchesNoOtherRow() throws {
        let folder = try workspace()
        defer { try? FileManager.default.removeItem(at: folder) }
        try write("code,city\nW1,Lyon\nW2,Nantes\n", "warehouses.csv", in: folder)
        let result = try ferry.run(
            ["import", "warehouses.csv", "--store", "s.sqlite", "--entity", "Warehouse"], in: folder)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(try values("SELECT city FROM Warehouse ORDER BY code", in: folder) == [.text("Lyon"), .text("Nantes")])
        #expect(try values("SELECT count(*) FROM Product", in: folder) == [.integer(4)])
        #expect(try values("SELECT kind FROM ferry_model_history ORDER BY version", in: folder)
            == [.text("created"), .text("migrated")])
    }
}

import FerryPostgres
import FerryStore
import FerryTestSupport
import Foundation
import Testing

@testable import FerryPipeline

/// A store with every attribute type (``ExportFixture``) and a database of its own on the test PostgreSQL server.
final class PublishFixture {
    let store: ExportFixture
    let database: PostgresTestDatabase

    init(recordsHistory: Bool = true) async throws {
        store = try await ExportFixture(recordsHistory: recordsHistory)
        database = try PostgresTestDatabase()
    }

    deinit {
        database.drop()
    }

    /// Publishes `Item` into `items` with `configure` applied.
    @discardableResult
    func publish(
        mode: PublishSpec.Mode = .upsert, _ configure: (inout PublishSpec) -> Void = { _ in }
    ) async throws -> Publisher.Result {
        var spec = PublishSpec(entity: "Item", to: database.url, table: "items", mode: mode)
        configure(&spec)
        return try await Publisher(store: store.store).publish(spec)
    }

    /// `sku` → `big` of every row of `table`, as text.
    func bigBySKU(_ table: String = "items") throws -> [String: String?] {
        var values: [String: String?] = [:]
        for row in try database.rows("SELECT sku, big FROM \(table)") { values[row[0] ?? ""] = row[1] }
        return values
    }

    /// Creates `items` as a publish would (every column, a unique index on `sku`) with a trigger that runs the
    /// PL/pgSQL `statement` when the row of `sku` comes in: the server stopping a publish in the middle of a chunk.
    func makeItemsTable(interruptedAt sku: String, by statement: String) throws {
        try database.execute(
            "CREATE TABLE items (sku text NOT NULL, small smallint, big bigint, ratio double precision, price numeric, "
                + "active boolean, seen_at timestamptz, token uuid, link text, data bytea, category text)")
        try database.execute("CREATE UNIQUE INDEX items_sku_key ON items (sku)")
        try database.execute(
            """
            CREATE FUNCTION interrupt() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN IF NEW.sku = '\(sku)' THEN \(statement); END IF; RETURN NEW; END $$
            """)
        try database.execute("CREATE TRIGGER interrupt BEFORE INSERT ON items FOR EACH ROW EXECUTE FUNCTION interrupt()")
    }

    /// Removes the trigger ``makeItemsTable(interruptedAt:by:)`` made.
    func removeInterruption() throws {
        try database.execute("DROP TRIGGER interrupt ON items")
    }

    /// The number of rows of `table`.
    func count(_ table: String = "items") throws -> Int {
        Int(try database.rows("SELECT count(*) FROM \(table)").first?[0] ?? "") ?? -1
    }
}

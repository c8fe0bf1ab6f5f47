import FerrySQLite
import FerryTestSupport
import Foundation
import Testing

@testable import FerryStore

/// StoreMetadata.prepare: a new store gets its tables and metadata; a reopened one is checked against the model.
struct StoreMetadataTests {
    let model = ManagedObjectModel(entities: [
        EntityDescription(
            name: "Category", attributes: [AttributeDescription(name: "name", type: .string, isOptional: false)],
            uniquenessConstraints: [["name"]])
    ])

    func withStorePath(_ body: (String) throws -> Void) throws {
        try TestSupport.withTemporaryFolder { try body($0.appendingPathComponent("store.sqlite").path) }
    }

    @Test func aNewStoreGetsItsTablesEntitiesAndMetadata() throws {
        try withStorePath { path in
            let connection = try Connection(path: path)
            let metadata = try StoreMetadata.prepare(connection, schema: StoreSchema(model: model))
            #expect(metadata.modelHash == model.versionHash)
            #expect(metadata.formatVersion == 1)
            #expect(try StoreMetadata.read(connection) == metadata)
            #expect(
                try connection.prepare("SELECT ent, name, parent, table_name FROM ferry_entities").fetchAll()
                    == [Row([.integer(1), .text("Category"), .null, .text("Category")])])
            try connection.execute("INSERT INTO Category (_ent, name) VALUES (1, 'Tea')")
        }
    }

    @Test func reopeningWithTheSameModelKeepsTheStoreAsItIs() throws {
        try withStorePath { path in
            let first = try StoreMetadata.prepare(Connection(path: path), schema: StoreSchema(model: model))
            let connection = try Connection(path: path)
            try connection.execute("INSERT INTO Category (_ent, name) VALUES (1, 'Tea')")
            let second = try StoreMetadata.prepare(connection, schema: StoreSchema(model: model))
            #expect(second == first)
            #expect(try connection.prepare("SELECT count(*) FROM Category").fetchOne() == Row([.integer(1)]))
        }
    }

    @Test func openingWithAnotherModelFailsWithTheIncompatibleModelCode() throws {
        try withStorePath { path in
            _ = try StoreMetadata.prepare(Connection(path: path), schema: StoreSchema(model: model))
            var changed = model
            changed.entities[0].attributes.append(AttributeDescription(name: "rank", type: .integer32))
            #expect {
                try StoreMetadata.prepare(Connection(path: path), schema: StoreSchema(model: changed))
            } throws: { error in
                let error = error as? StoreError
                return error?.code == .incompatibleModel && error?.code.coreDataCode == 134100
                    && error?.description.contains("created with a different model") == true
            }
        }
    }

    @Test func aForeignSQLiteFileIsNotTakenOver() throws {
        try withStorePath { path in
            try Connection(path: path).execute("CREATE TABLE invoices (id INTEGER)")
            #expect {
                try StoreMetadata.prepare(Connection(path: path), schema: StoreSchema(model: model))
            } throws: { error in
                (error as? StoreError)?.code == .notAFerryStore
            }
            let tables = try Connection(path: path).prepare("SELECT name FROM sqlite_master WHERE type = 'table'")
                .fetchAll()
            #expect(tables == [Row([.text("invoices")])], "nothing was created in the foreign file")
        }
    }

    @Test func anInMemoryStoreIsPreparedToo() throws {
        let connection = try Connection(path: ":memory:")
        let metadata = try StoreMetadata.prepare(connection, schema: StoreSchema(model: model))
        #expect(metadata.modelHash == model.versionHash)
    }
}

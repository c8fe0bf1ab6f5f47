import FerrySQLite
import Foundation
import Testing

@testable import FerryStore

/// `returnsObjectsAsFaults` and `relationshipKeyPathsForPrefetching`: what a fetch reads at once and what a fault
/// reads when it fires. Rows changed behind the context's back show which values came from the fetch.
struct FetchFaultingTests {
    private func seeded() async throws -> ContextFixture {
        let fixture = try await ContextFixture()
        let context = fixture.context()
        try context.performAndWait {
            let tea = context.insertCategory("Tea", rank: 1)
            context.insertProduct("T-1", name: "Sencha", category: tea)
            try context.save()
        }
        return fixture
    }

    /// Changes the stored rows behind every context's back.
    private func overwriteRows(_ fixture: ContextFixture) throws {
        try fixture.container.persistentStore.writer.sync { connection in
            try connection.execute("UPDATE Product SET name = 'changed'; UPDATE Category SET name = 'changed'")
        }
    }

    @Test func faultsFireFromTheRowsReadByTheFetch() async throws {
        let fixture = try await seeded()
        let context = fixture.context()
        try context.performAndWait {
            let products = try context.fetch(FetchRequest(entityName: "Product"))
            #expect(products[0].isFault)
            try overwriteRows(fixture)
            #expect(products[0]["name"] == "Sencha")
            #expect(!products[0].isFault)
        }
    }

    @Test func withoutFaultsTheValuesAreThereAtOnce() async throws {
        let fixture = try await seeded()
        let context = fixture.context()
        try context.performAndWait {
            var request = FetchRequest(entityName: "Product")
            request.returnsObjectsAsFaults = false
            let products = try context.fetch(request)
            #expect(!products[0].isFault)
            #expect(products[0]["name"] == "Sencha")
        }
    }

    @Test func prefetchedDestinationsNeedNoFurtherRead() async throws {
        for prefetching in [true, false] {
            let fixture = try await seeded()
            let context = fixture.context()
            try context.performAndWait {
                var request = FetchRequest(entityName: "Product")
                if prefetching { request.relationshipKeyPathsForPrefetching = ["category"] }
                let products = try context.fetch(request)
                try overwriteRows(fixture)
                let category = try #require(products[0].object(forKey: "category"))
                #expect(category["name"] == (prefetching ? "Tea" : "changed"))
            }
        }
    }
}

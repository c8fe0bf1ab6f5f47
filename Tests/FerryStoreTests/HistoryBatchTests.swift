import FerrySQLite
import Foundation
import Testing

@testable import FerryStore

/// Persistent history of batch requests: each records one transaction with the request's author, row by row for
/// inserts and updates, with tombstones for deletes and updates for the rows a nullify rule clears.
struct HistoryBatchTests {
    private func insertProducts(_ fixture: HistoryFixture, author: String? = "loader") async throws {
        var request = BatchInsertRequest(
            entityName: "Product", columns: ["sku", "name"],
            rows: [
                [.string("A-1"), .string("Arabica")], [.string("A-2"), nil], [.string("B-1"), .string("Bourbon")],
            ])
        request.transactionAuthor = author
        _ = try await fixture.store.execute(request, mergePolicy: .error)
    }

    @Test func historyShowsBatchRequestsWithTheirAuthor() async throws {
        let fixture = try await HistoryFixture()
        try await insertProducts(fixture)
        var update = BatchUpdateRequest(entityName: "Product", propertiesToUpdate: ["price": 5])
        update.predicate = try FetchPredicate(format: "sku BEGINSWITH 'A'")
        update.transactionAuthor = "repricer"
        _ = try await fixture.store.execute(update)
        var delete = BatchDeleteRequest(
            fetchRequest: FetchRequest(entityName: "Product", predicate: try FetchPredicate(format: "sku == 'B-1'")))
        delete.transactionAuthor = "cleaner"
        _ = try await fixture.store.execute(delete)

        let transactions = try await fixture.store.fetchHistory(after: nil)
        #expect(transactions.map(\.author) == ["loader", "repricer", "cleaner"])
        #expect(transactions.allSatisfy { $0.contextName == nil })
        #expect(transactions.map(\.token) == transactions.map(\.token).sorted())
        let (inserted, updated, deleted) = (transactions[0], transactions[1], transactions[2])

        #expect(inserted.changes(of: "Product").map(\.objectID) == [1, 2, 3].map { fixture.id("Product", $0) })
        #expect(inserted.changes.allSatisfy { $0.kind == .insert })

        #expect(updated.changes(of: "Product").map(\.objectID) == [1, 2].map { fixture.id("Product", $0) })
        #expect(updated.changes.allSatisfy { $0.kind == .update && $0.updatedProperties == ["price"] })

        #expect(deleted.changes.count == 1)
        #expect(deleted.changes.first?.objectID == fixture.id("Product", 3))
        #expect(deleted.changes.first?.kind == .delete)
        #expect(deleted.changes.first?.tombstone == ["sku": .string("B-1")])
    }

    @Test func anUpsertIsRecordedAsAnUpdateOfTheGivenAttributes() async throws {
        let fixture = try await HistoryFixture()
        try await insertProducts(fixture)
        let first = try await fixture.store.currentHistoryToken()
        var upsert = BatchInsertRequest(
            entityName: "Product", columns: ["sku", "name"],
            rows: [[.string("A-1"), .string("Arabica 2")], [.string("C-1"), .string("Catuai")]])
        upsert.transactionAuthor = "loader"
        let result = try await fixture.store.execute(upsert, mergePolicy: .mergeByPropertyObjectTrump)
        #expect(result.insertedCount == 1 && result.updatedCount == 1)

        let transaction = try await fixture.onlyTransaction(after: first)
        let changes = transaction.changes(of: "Product")
        #expect(changes.map(\.objectID) == [fixture.id("Product", 1), fixture.id("Product", 4)])
        #expect(changes.map(\.kind) == [.update, .insert])
        #expect(changes.first?.updatedProperties == ["name", "sku"])
    }

    @Test func aRowInsertedAndUpsertedInOneRequestIsOneInsert() async throws {
        let fixture = try await HistoryFixture()
        let request = BatchInsertRequest(
            entityName: "Product",
            objects: [["sku": .string("A-1")], ["sku": .string("A-1"), "name": .string("Arabica")]])
        let result = try await fixture.store.execute(request, mergePolicy: .mergeByPropertyObjectTrump)
        #expect(result.insertedCount == 1 && result.updatedCount == 1)

        let transaction = try await fixture.onlyTransaction(after: nil)
        #expect(transaction.changes.map(\.kind) == [.insert])
        #expect(transaction.author == nil)
    }

    @Test func aBatchDeleteRecordsNullifiedRowsAsUpdates() async throws {
        let fixture = try await HistoryFixture()
        let context = fixture.context()
        let (categoryID, productIDs) = try context.performAndWait {
            let tea = context.insertCategory("Tea")
            let products = [context.insertProduct("T-1", category: tea), context.insertProduct("T-2", category: tea)]
            context.insertProduct("X-1")
            try context.save()
            return (tea.objectID, products.map(\.objectID))
        }
        let first = try await fixture.store.currentHistoryToken()
        var delete = BatchDeleteRequest(objectIDs: [categoryID])
        delete.transactionAuthor = "cleaner"
        _ = try await fixture.store.execute(delete)

        let transaction = try await fixture.onlyTransaction(after: first)
        #expect(transaction.author == "cleaner")
        let category = transaction.changes(of: "Category")
        #expect(category.map(\.kind) == [.delete])
        #expect(category.first?.tombstone == ["name": .string("Tea")])
        let products = transaction.changes(of: "Product")
        #expect(products.map(\.objectID) == productIDs.sorted { $0.primaryKey < $1.primaryKey })
        #expect(products.allSatisfy { $0.kind == .update && $0.updatedProperties == ["category"] })
    }

    @Test func aBatchRequestThatChangesNothingRecordsNoTransaction() async throws {
        let fixture = try await HistoryFixture()
        try await insertProducts(fixture)
        let token = try await fixture.store.currentHistoryToken()
        let notifications = fixture.store.historyNotifications
        let update = BatchUpdateRequest(
            entityName: "Product", predicate: try FetchPredicate(format: "sku == 'none'"),
            propertiesToUpdate: ["price": 1])
        _ = try await fixture.store.execute(update)

        #expect(try await fixture.store.currentHistoryToken() == token)
        #expect(try await fixture.store.fetchHistory(after: token).isEmpty)
        #expect(try fixture.integer("SELECT count(*) FROM ferry_history_transactions") == 1)
        #expect(await firstElement(of: notifications, within: 1) == nil)
    }

    @Test func aFailedBatchRequestRecordsNoHistory() async throws {
        let fixture = try await HistoryFixture()
        try await insertProducts(fixture)
        let token = try await fixture.store.currentHistoryToken()
        let duplicate = BatchInsertRequest(
            entityName: "Product", objects: [["sku": .string("Z-1")], ["sku": .string("A-1")]])
        await #expect(throws: StoreError.self) {
            _ = try await fixture.store.execute(duplicate, mergePolicy: .error)
        }
        #expect(try await fixture.store.currentHistoryToken() == token)
        #expect(try fixture.integer("SELECT count(*) FROM ferry_history_changes") == 3)
    }
}

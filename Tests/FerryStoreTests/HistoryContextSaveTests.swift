import FerrySQLite
import Foundation
import Testing

@testable import FerryStore

/// Persistent history of context saves: off by default; inserts, updates (with their property names) and deletes
/// (with tombstones) recorded with the context's author and name, in the save's own transaction.
struct HistoryContextSaveTests {
    @Test func historyIsOffByDefaultAndRecordsNothing() async throws {
        let fixture = try await HistoryFixture(recordsHistory: false)
        #expect(PersistentStoreDescription(path: "x.sqlite").recordsHistory == false)
        let context = fixture.context(name: "importer", author: "nightly")
        let notifications = context.didSaveNotifications
        try context.performAndWait {
            context.insertCategory("Tea")
            try context.save()
        }
        let saved = await firstElement(of: notifications)
        #expect(saved != nil)
        #expect(saved?.historyToken == nil)
        #expect(try fixture.integer("SELECT count(*) FROM sqlite_master WHERE name LIKE 'ferry_history%'") == 0)
        #expect(try await fixture.store.fetchHistory(after: nil).isEmpty)
        #expect(try await fixture.store.currentHistoryToken() == nil)
    }

    @Test func aSaveRecordsItsInsertsWithAuthorContextNameAndTimestamp() async throws {
        let fixture = try await HistoryFixture()
        let before = Date().timeIntervalSince1970
        let context = fixture.context(name: "importer", author: "nightly")
        let ids = try context.performAndWait {
            let tea = context.insertCategory("Tea")
            let product = context.insertProduct("T-1", name: "Sencha", category: tea)
            try context.save()
            return [tea.objectID, product.objectID]
        }

        let transaction = try await fixture.onlyTransaction(after: nil)
        #expect(transaction.author == "nightly")
        #expect(transaction.contextName == "importer")
        #expect(transaction.timestamp.timeIntervalSince1970 >= before.rounded(.down))
        #expect(transaction.timestamp.timeIntervalSince1970 <= Date().timeIntervalSince1970 + 1)
        #expect(Set(transaction.changes.map(\.objectID)) == Set(ids))
        #expect(transaction.changes.allSatisfy { $0.kind == .insert && $0.updatedProperties.isEmpty })
        #expect(try await fixture.store.currentHistoryToken() == transaction.token)
        // The rows are plain SQL, readable in any tool.
        #expect(
            try fixture.rows("SELECT kind, count(*) FROM ferry_history_changes GROUP BY kind")
                == [[.text("insert"), .integer(2)]])
    }

    @Test func anUpdateListsTheAttributesAndRelationshipsItChanged() async throws {
        let fixture = try await HistoryFixture()
        let context = fixture.context(name: "editor", author: "app")
        let productID = try context.performAndWait {
            let tea = context.insertCategory("Tea")
            context.insertCategory("Coffee")
            context.insertObject(entityName: "Tag")["label"] = "green"
            let product = context.insertProduct("T-1", name: "Sencha", category: tea)
            try context.save()
            return product.objectID
        }
        let first = try await fixture.store.currentHistoryToken()

        try context.performAndWait {
            let product = context.object(with: productID)
            let coffee = try #require(try context.all("Category", sortedBy: "name").first)
            let tag = try #require(try context.all("Tag", sortedBy: "label").first)
            product["name"] = "Gyokuro"
            product.setObject(coffee, forKey: "category")
            product.add(tag, toKey: "tags")
            try context.save()
        }

        let transaction = try await fixture.onlyTransaction(after: first)
        let products = transaction.changes(of: "Product")
        #expect(products.map(\.objectID) == [productID])
        #expect(products.first?.kind == .update)
        #expect(products.first?.updatedProperties == ["name", "category", "tags"])
        #expect(products.first?.tombstone == [:])
        #expect(transaction.author == "app" && transaction.contextName == "editor")
    }

    @Test func aDeleteKeepsTheConstrainedAttributesInItsTombstone() async throws {
        let fixture = try await HistoryFixture()
        let context = fixture.context(author: "app")
        let (productID, personID) = try context.performAndWait {
            let product = context.insertProduct("T-1", name: "Sencha")
            let person = context.insertObject(entityName: "Person")
            person["firstName"] = "Ada"
            person["lastName"] = "Lovelace"
            person["email"] = "ada@example.com"
            try context.save()
            return (product.objectID, person.objectID)
        }
        let first = try await fixture.store.currentHistoryToken()

        try context.performAndWait {
            context.delete(context.object(with: productID))
            context.delete(context.object(with: personID))
            try context.save()
        }

        let transaction = try await fixture.onlyTransaction(after: first)
        let product = try #require(transaction.changes(of: "Product").first)
        #expect(product.kind == .delete && product.objectID == productID)
        #expect(product.tombstone == ["sku": .string("T-1")])
        let person = try #require(transaction.changes(of: "Person").first)
        #expect(person.kind == .delete)
        // The compound constraint's attributes, and nothing else (not `email`).
        #expect(person.tombstone == ["firstName": .string("Ada"), "lastName": .string("Lovelace")])
    }

    @Test func theDidSaveNotificationCarriesTheHistoryToken() async throws {
        let fixture = try await HistoryFixture()
        let context = fixture.context()
        let notifications = context.didSaveNotifications
        try context.performAndWait {
            context.insertCategory("Tea")
            try context.save()
        }
        let saved = try #require(await firstElement(of: notifications))
        let token = try #require(saved.historyToken)
        #expect(try await fixture.store.currentHistoryToken() == token)
        #expect(try await fixture.store.fetchHistory(after: nil).map(\.token) == [token])
    }

    @Test func aFailedSaveRecordsNoHistory() async throws {
        let fixture = try await HistoryFixture()
        let context = fixture.context()
        try context.performAndWait {
            context.insertCategory("Tea")
            try context.save()
        }
        let token = try await fixture.store.currentHistoryToken()
        let other = fixture.context()  // merge policy .error
        #expect(throws: SaveConflictError.self) {
            try other.performAndWait {
                other.insertCategory("Tea")
                try other.save()
            }
        }
        #expect(try await fixture.store.currentHistoryToken() == token)
        #expect(try fixture.integer("SELECT count(*) FROM ferry_history_transactions") == 1)
        #expect(try fixture.integer("SELECT count(*) FROM ferry_history_changes") == 1)
    }

    @Test func turningHistoryOnForAnExistingStoreKeepsItsModelHash() async throws {
        let fixture = try await HistoryFixture(recordsHistory: false)
        let context = fixture.context()
        try context.performAndWait {
            context.insertCategory("Tea")
            try context.save()
        }
        var description = PersistentStoreDescription(path: fixture.path)
        description.recordsHistory = true
        let reopened = try await PersistentStore.open(description, model: ContextFixture.catalogModel())
        #expect(reopened.metadata.modelHash == fixture.store.metadata.modelHash)
        #expect(try await reopened.fetchHistory(after: nil).isEmpty)
        let result = try await reopened.execute(
            BatchInsertRequest(entityName: "Category", objects: [["name": .string("Coffee")]]),
            mergePolicy: .error)
        #expect(result.insertedCount == 1)
        #expect(try await reopened.fetchHistory(after: nil).map(\.changes.count) == [1])
    }
}

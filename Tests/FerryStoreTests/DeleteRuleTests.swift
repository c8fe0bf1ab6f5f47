import FerrySQLite
import Foundation
import Testing

@testable import FerryStore

/// The four delete rules, run when a context saves a deletion (REFERENCE.md §10).
struct DeleteRuleTests {
    /// A store with Tea holding two products, its `products` relationship deleting by `rule`.
    private func teaWithProducts(_ rule: DeleteRule) async throws -> (ContextFixture, ObjectID) {
        let fixture = try await ContextFixture(model: ContextFixture.catalogModel(productsDeleteRule: rule))
        let context = fixture.context()
        let id = try context.performAndWait {
            let tea = context.insertCategory("Tea")
            context.insertProduct("T-1", category: tea)
            context.insertProduct("T-2", category: tea)
            try context.save()
            return tea.objectID
        }
        return (fixture, id)
    }

    private func deleteCategory(_ fixture: ContextFixture, _ id: ObjectID) throws {
        let context = fixture.context()
        try context.performAndWait {
            context.delete(context.object(with: id))
            try context.save()
        }
    }

    @Test func nullifyClearsTheInverseOfTheRemainingObjects() async throws {
        let (fixture, id) = try await teaWithProducts(.nullify)
        let context = fixture.context()
        try context.performAndWait {
            let product = try #require(try context.all("Product", sortedBy: "sku").first)
            #expect(product.objectID(forKey: "category") == id)
            context.delete(context.object(with: id))
            context.processPendingChanges()
            #expect(product.objectID(forKey: "category") == nil)
            #expect(product.isUpdated)
            try context.save()
        }
        #expect(
            try fixture.rows("SELECT sku, category FROM Product ORDER BY sku") == [
                [.text("T-1"), .null], [.text("T-2"), .null],
            ])
        #expect(try fixture.integer("SELECT count(*) FROM Category") == 0)
    }

    @Test func cascadeDeletesTheDestinationObjects() async throws {
        let (fixture, id) = try await teaWithProducts(.cascade)
        try deleteCategory(fixture, id)
        #expect(try fixture.integer("SELECT count(*) FROM Product") == 0)
        #expect(try fixture.integer("SELECT count(*) FROM Category") == 0)
    }

    @Test func denyRefusesTheSaveWhileTheRelationshipHoldsObjects() async throws {
        let (fixture, id) = try await teaWithProducts(.deny)
        let context = fixture.context()
        try context.performAndWait {
            let tea = context.object(with: id)
            context.delete(tea)
            #expect {
                try context.save()
            } throws: { error in
                let error = error as? ValidationError
                return error?.code == .relationshipDeniedDelete && error?.code.rawValue == 1600
                    && error?.key == "products"
            }
            #expect(tea.isDeleted)
            // Emptying the relationship first lets the deletion through.
            context.rollback()
            for product in tea.objects(forKey: "products") { context.delete(product) }
            context.delete(tea)
            try context.save()
        }
        #expect(try fixture.integer("SELECT count(*) FROM Category") == 0)
    }

    @Test func noActionLeavesTheInverseDangling() async throws {
        let (fixture, id) = try await teaWithProducts(.noAction)
        try deleteCategory(fixture, id)
        #expect(try fixture.integer("SELECT count(*) FROM Product WHERE category = \(id.primaryKey)") == 2)
    }

    @Test func deletingAnObjectRemovesItsJoinRows() async throws {
        let fixture = try await ContextFixture()
        let context = fixture.context()
        try context.performAndWait {
            let product = context.insertProduct("T-1")
            for label in ["green", "loose"] {
                let tag = context.insertObject(entityName: "Tag")
                tag["label"] = label
                product.add(tag, toKey: "tags")
            }
            try context.save()
            #expect(try fixture.integer("SELECT count(*) FROM Product_tags") == 2)
            let green = try #require(try context.all("Tag", sortedBy: "label").first)
            context.delete(green)
            try context.save()
            #expect(product.objects(forKey: "tags").map { $0["label"] as String? } == ["loose"])
            context.delete(product)
            try context.save()
        }
        #expect(try fixture.integer("SELECT count(*) FROM Product_tags") == 0)
        #expect(try fixture.integer("SELECT count(*) FROM Tag") == 1)
    }
}

import Foundation
import Testing

@testable import FerryStore

/// Object IDs hold their entity name and store identifier as numbers from a process-wide table
/// (``ObjectIDName``); they must behave exactly as when they held the texts.
struct ObjectIDNameTests {
    @Test func anIDReadsBackTheEntityNameAndStoreIdentifierItWasMadeWith() {
        let store = UUID().uuidString
        let id = ObjectID(entityName: "Product", primaryKey: 12, storeIdentifier: store)
        #expect(id.entityName == "Product")
        #expect(id.storeIdentifier == store)
        #expect(id.primaryKey == 12)
        #expect(!id.isTemporaryID)
    }

    @Test func idsOfEqualTextsAreEqualAndHashEqual() {
        let store = UUID().uuidString
        // Texts built apart, so they share no storage with each other.
        let first = ObjectID(entityName: "Prod" + "uct", primaryKey: 7, storeIdentifier: String(store.reversed()))
        let second = ObjectID(
            entityName: String("tcudorP".reversed()), primaryKey: 7, storeIdentifier: String(store.reversed()))
        #expect(first == second)
        #expect(Set([first, second]).count == 1)
        var table: [ObjectID: Int] = [:]
        table[first] = 1
        #expect(table[second] == 1)
    }

    @Test func idsDifferingInEntityStoreOrKeyAreNotEqual() {
        let store = UUID().uuidString
        let id = ObjectID(entityName: "Product", primaryKey: 7, storeIdentifier: store)
        #expect(id != ObjectID(entityName: "Category", primaryKey: 7, storeIdentifier: store))
        #expect(id != ObjectID(entityName: "Product", primaryKey: 7, storeIdentifier: UUID().uuidString))
        #expect(id != ObjectID(entityName: "Product", primaryKey: 8, storeIdentifier: store))
        #expect(Set([id, ObjectID(entityName: "Category", primaryKey: 7, storeIdentifier: store)]).count == 2)
    }

    @Test func settingTheEntityNameOrStoreIdentifierChangesTheIDAsTheTextsWould() {
        let store = UUID().uuidString
        let other = UUID().uuidString
        var id = ObjectID(entityName: "Product", primaryKey: 3, storeIdentifier: store)
        id.entityName = "Category"
        #expect(id.entityName == "Category")
        #expect(id == ObjectID(entityName: "Category", primaryKey: 3, storeIdentifier: store))
        id.storeIdentifier = other
        #expect(id.storeIdentifier == other)
        #expect(id == ObjectID(entityName: "Category", primaryKey: 3, storeIdentifier: other))
        id.storeIdentifier = ""
        #expect(id.storeIdentifier.isEmpty)
    }

    @Test func aTemporaryIDHasAnEmptyStoreIdentifierAndIsUnlikeEveryOther() {
        let first = ObjectID.temporary(entityName: "Product")
        let second = ObjectID.temporary(entityName: "Product")
        #expect(first.isTemporaryID)
        #expect(first.entityName == "Product")
        #expect(first.storeIdentifier.isEmpty)
        #expect(first.primaryKey == 0)
        #expect(first != second)
        #expect(Set([first, second]).count == 2)
        #expect(ObjectID(uriString: first.uriString) == nil)
    }

    @Test func aPermanentIDsURIParsesBackToAnEqualID() throws {
        let id = ObjectID(entityName: "Product", primaryKey: 42, storeIdentifier: UUID().uuidString)
        let parsed = try #require(ObjectID(uriRepresentation: id.uriRepresentation))
        #expect(parsed == id)
        #expect(parsed.storeIdentifier == id.storeIdentifier)
        #expect(parsed.entityName == "Product")
        #expect(id.description == "<x-ferry://\(id.storeIdentifier)/Product/p42>")
    }

    @Test func anIDMadeFromNamesEqualsOneMadeFromTheirTexts() {
        let store = UUID().uuidString
        let made = ObjectID(entity: ObjectIDName("Product"), primaryKey: 5, store: ObjectIDName(store))
        #expect(made == ObjectID(entityName: "Product", primaryKey: 5, storeIdentifier: store))
        #expect(ObjectIDName("Product") == ObjectIDName("Product"))
        #expect(ObjectIDName("Product") != ObjectIDName("Category"))
        #expect(ObjectIDName("") == .empty)
        #expect(ObjectIDName(store).text == store)
    }

    @Test func theMakerGivesTheIDsThePublicInitializerGivesAcrossEntities() {
        let store = UUID().uuidString
        var maker = ObjectIDMaker(storeIdentifier: store)
        let rows: [(String, Int64)] = [("Product", 1), ("Product", 2), ("Category", 2), ("Product", 3), ("", 4)]
        for (entity, key) in rows {
            let id = maker.id(entityName: entity, primaryKey: key)
            #expect(id == ObjectID(entityName: entity, primaryKey: key, storeIdentifier: store))
            #expect(id.entityName == entity)
        }
    }

    @Test func namesLookedUpFromManyThreadsAtOnceAgree() async {
        let texts = (0..<64).map { "Entity\($0)-" + UUID().uuidString }
        let results = await withTaskGroup(of: [ObjectIDName].self) { group in
            for _ in 0..<8 {
                group.addTask { texts.shuffled().sorted { $0 < $1 }.map { ObjectIDName($0) } }
            }
            var results: [[ObjectIDName]] = []
            for await names in group { results.append(names) }
            return results
        }
        let sortedTexts = texts.sorted()
        for names in results {
            #expect(names == results[0])
            #expect(names.map(\.text) == sortedTexts)
        }
        #expect(Set(results[0]).count == texts.count)
    }
}

import FerrySQLite
import FerryTestSupport
import Foundation
import Testing

@testable import FerryStore

/// SQL that names a table outright while a table alias is in scope: the alias must never be a name a user's table
/// can have, or the table's name reaches the alias instead (a first load into an entity `E` failed on
/// "UNIQUE constraint failed: E.id" and wedged the store).
struct TableAliasCollisionTests {
    /// Entity names that collide with an alias or keyword the store's SQL uses (compared case-insensitively, as
    /// SQLite does), and the aliases Ferry used before.
    static let names = [
        "e", "E", "d", "D", "d1", "D2", "j", "J", "l", "m", "t", "t0", "src", "dst", "del", "main", "temp", "select",
        "order", "group", "where", "new", "old", "earlier",
    ]

    @Test(arguments: names)
    func theDeferredIndexBuildKeepsTheFirstRowOfARepeatedKeyWhateverTheEntityIsCalled(_ name: String) async throws {
        let folder = try TestSupport.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let model = ManagedObjectModel(entities: [
            EntityDescription(
                name: name,
                attributes: [
                    AttributeDescription(name: "id", type: .string),
                    AttributeDescription(name: "label", type: .string),
                ],
                uniquenessConstraints: [["id"]])
        ])
        let store = try await PersistentStore.open(
            PersistentStoreDescription(path: folder.appendingPathComponent("store.sqlite").path), model: model)
        #expect(try await store.deferIndexes(ofEntity: name, owner: "test"))
        let rows = [("A", "first A"), ("B", "B"), ("A", "second A")]
        _ = try await store.execute(
            BatchInsertRequest(
                entityName: name, objects: rows.map { ["id": .string($0.0), "label": .string($0.1)] }),
            mergePolicy: .mergeByPropertyStoreTrump)

        #expect(try await store.buildDeferredIndexes(ofTable: name) == 1)

        #expect(try await store.deferredIndexes().isEmpty)
        let connection = try Connection(path: folder.appendingPathComponent("store.sqlite").path, mode: .readOnly)
        let kept = try connection.prepare("SELECT id, label FROM \(SQL.identifier(name)) ORDER BY _pk").fetchAll()
            .map { [$0[0], $0[1]] }
        #expect(kept == [[.text("A"), .text("first A")], [.text("B"), .text("B")]])
    }

    /// Owner `D` sums and counts its members `D1` (a foreign key), `J` counts them over a join table, and each
    /// member copies its owner's name (a to-one path): the aliases `d`, `d1` and `j` the derivation triggers used
    /// named these very tables.
    @Test func derivedAttributesAreRightWhenTheirTablesAreNamedLikeTheTriggersAliases() async throws {
        let model = ManagedObjectModel(entities: [
            EntityDescription(
                name: "D",
                attributes: [
                    AttributeDescription(name: "name", type: .string),
                    AttributeDescription(name: "total", type: .integer64, derivation: "@sum members.quantity"),
                    AttributeDescription(name: "largest", type: .integer64, derivation: "@max members.quantity"),
                ],
                relationships: [
                    RelationshipDescription(
                        name: "members", destinationEntity: "D1", inverseName: "owner", isToMany: true)
                ]),
            EntityDescription(
                name: "D1",
                attributes: [
                    AttributeDescription(name: "quantity", type: .integer64),
                    AttributeDescription(name: "ownerName", type: .string, derivation: "owner.name"),
                ],
                relationships: [
                    RelationshipDescription(name: "owner", destinationEntity: "D", inverseName: "members"),
                    RelationshipDescription(
                        name: "groups", destinationEntity: "J", inverseName: "members", isToMany: true),
                ]),
            EntityDescription(
                name: "J",
                attributes: [
                    AttributeDescription(name: "size", type: .integer64, derivation: "@count members"),
                    AttributeDescription(name: "most", type: .integer64, derivation: "@max members.quantity"),
                ],
                relationships: [
                    RelationshipDescription(
                        name: "members", destinationEntity: "D1", inverseName: "groups", isToMany: true)
                ]),
        ])
        let fixture = try await ContextFixture(model: model)
        let context = fixture.context()
        try context.performAndWait {
            let first = context.insertObject(entityName: "D")
            first["name"] = "first"
            let second = context.insertObject(entityName: "D")
            second["name"] = "second"
            let group = context.insertObject(entityName: "J")
            for (quantity, owner) in [(2, first), (5, first), (7, second)] {
                let member = context.insertObject(entityName: "D1")
                member["quantity"] = quantity
                member.setObject(owner, forKey: "owner")
                if quantity != 7 { member.add(group, toKey: "groups") }
            }
            try context.save()
        }

        #expect(
            try fixture.rows("SELECT name, total, largest FROM D ORDER BY name") == [
                [.text("first"), .integer(7), .integer(5)], [.text("second"), .integer(7), .integer(7)],
            ])
        #expect(
            try fixture.rows("SELECT quantity, ownerName FROM D1 ORDER BY quantity") == [
                [.integer(2), .text("first")], [.integer(5), .text("first")], [.integer(7), .text("second")],
            ])
        #expect(try fixture.rows("SELECT size, most FROM J") == [[.integer(2), .integer(5)]])
    }
}

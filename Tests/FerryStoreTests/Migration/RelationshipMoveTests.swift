import FerrySQLite
import Foundation
import Testing

@testable import FerryStore

/// Relationship moves with data, read back through a context on the migrated store: a new many-to-many whose owner
/// is a new entity, ordered one-to-many ↔ many-to-many with the order kept, and relationships to a parent entity
/// whose rows are of its sub-entities.
struct RelationshipMoveTests {
    /// Runs `body` in a context of a container on `path` with `yaml`'s model.
    static func withContext<Result>(
        _ path: String, _ yaml: String, _ body: (ManagedObjectContext) throws -> Result
    ) async throws -> Result {
        let container = PersistentContainer(
            name: "Moves", model: try MigrationFixture.model(yaml),
            storeDescription: PersistentStoreDescription(path: path))
        try await container.loadPersistentStores()
        let context = container.newBackgroundContext()
        return try context.performAndWait { try body(context) }
    }

    static func all(_ context: ManagedObjectContext, _ entity: String, by key: String) throws -> [ManagedObject] {
        Array(try context.fetch(FetchRequest(entityName: entity, sortDescriptors: [FetchSortDescriptor(key: key)])))
    }

    /// The schema statements of the entity and join tables, as SQLite keeps them.
    static func layout(_ path: String) throws -> [SQLiteValue] {
        try MigrationFixture.column(
            at: path,
            "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'ferry%' AND name NOT LIKE 'sqlite%' "
                + "ORDER BY name")
    }

    // MARK: - A new many-to-many owned by a new entity

    static let books = """
        entities:
          Book:
            attributes: { title: string }
        """
    /// `Aisle` is new, and owns the new join table `Aisle_books`.
    static let shelved = """
        entities:
          Aisle:
            attributes: { name: string }
            relationships:
              books: { to: Book, toMany: true, inverse: aisles }
          Book:
            attributes: { title: string }
            relationships:
              aisles: { to: Aisle, toMany: true, inverse: books }
        """

    @Test func aNewManyToManyOwnedByANewEntityGetsTheJoinTableAFreshStoreHas() async throws {
        try await MigrationFixture.withStorePath { path in
            try await MigrationFixture.makeStore(
                at: path, Self.books, rows: "INSERT INTO Book (_pk, _ent, title) VALUES (1, 1, 'x'), (2, 1, 'y');")
            let plan = try StoreMigrator(storePath: path).plan(to: MigrationFixture.model(Self.shelved))
            #expect(plan.isAutomatic)
            try StoreMigrator(storePath: path).migrate(to: plan)
            try await MigrationFixture.withStorePath { fresh in
                try await MigrationFixture.makeStore(at: fresh, Self.shelved)
                #expect(try Self.layout(path) == Self.layout(fresh))
            }
            try await Self.withContext(path, Self.shelved) { context in
                let books = try Self.all(context, "Book", by: "title")
                let aisle = context.insertObject(entityName: "Aisle")
                aisle["name"] = "A1"
                aisle.setObjects(books, forKey: "books")
                try context.save()
            }
            try await Self.withContext(path, Self.shelved) { context in
                let books = try Self.all(context, "Book", by: "title")
                #expect(books.map { $0.objects(forKey: "aisles").map { $0["name"] as String? } } == [["A1"], ["A1"]])
            }
        }
    }

    // MARK: - Ordered one-to-many ↔ many-to-many

    /// An ordered one-to-many: a book has one author, whose books keep their order in `Book._order_author`.
    static let orderedOneToMany = """
        entities:
          Author:
            attributes: { name: string }
            relationships:
              books: { to: Book, toMany: true, ordered: true, inverse: author }
          Book:
            attributes: { title: string }
            relationships:
              author: { to: Author, inverse: books, renamingIdentifier: authors }
        """
    /// Ann's books in the order y, x, w (not the order of their keys); Bo's is z.
    static let orderedRows = """
        INSERT INTO Author (_pk, _ent, name) VALUES (1, 1, 'Ann'), (2, 1, 'Bo');
        INSERT INTO Book (_pk, _ent, title, author, _order_author) VALUES
            (1, 2, 'x', 1, 2), (2, 2, 'y', 1, 1), (3, 2, 'z', 2, 1), (4, 2, 'w', 1, 3), (5, 2, 'v', NULL, NULL);
        """

    static func titles(_ path: String, _ yaml: String) async throws -> [String: [String]] {
        try await withContext(path, yaml) { context in
            var titles: [String: [String]] = [:]
            for author in try all(context, "Author", by: "name") {
                titles[author["name"] ?? ""] = author.objects(forKey: "books").map { $0["title"] ?? "" }
            }
            return titles
        }
    }

    @Test func anOrderedOneToManyTurnedManyToManyKeepsItsOrderAndTurnsBack() async throws {
        try await MigrationFixture.withStorePath { path in
            try await MigrationFixture.makeStore(at: path, Self.orderedOneToMany, rows: Self.orderedRows)
            let expected = ["Ann": ["y", "x", "w"], "Bo": ["z"]]
            #expect(try await Self.titles(path, Self.orderedOneToMany) == expected)

            let manyToMany = RelationshipMigrationTests.manyToMany(ordered: true)
            let plan = try StoreMigrator(storePath: path).plan(to: MigrationFixture.model(manyToMany))
            #expect(plan.isAutomatic)
            try StoreMigrator(storePath: path).migrate(to: plan)
            #expect(try await Self.titles(path, manyToMany) == expected)
            #expect(
                try MigrationFixture.column(at: path, "SELECT count(*) FROM pragma_table_info('Book')") == [.integer(4)]
            )

            // Back: each book has one author, so the ordered one-to-many takes the links and their order.
            let back = try StoreMigrator(storePath: path).plan(to: MigrationFixture.model(Self.orderedOneToMany))
            #expect(back.isAutomatic)
            try StoreMigrator(storePath: path).migrate(to: back)
            #expect(try await Self.titles(path, Self.orderedOneToMany) == expected)
            let order = try MigrationFixture.column(at: path, "SELECT _order_author FROM Book ORDER BY _pk")
            // A book without an author gets its key, as every new order column's rows without an owner do.
            #expect(order == [.integer(2), .integer(1), .integer(1), .integer(3), .integer(5)])
        }
    }

    @Test func anUnorderedManyToManyTurnedOrderedOneToManyKeepsEveryLinkNumberedByKey() async throws {
        try await MigrationFixture.withStorePath { path in
            try await MigrationFixture.makeStore(
                at: path, RelationshipMigrationTests.manyToMany(),
                rows: RelationshipMigrationTests.authors + """
                    INSERT INTO Book (_pk, _ent, title) VALUES (1, 2, 'x'), (2, 2, 'y'), (3, 2, 'z');
                    INSERT INTO Author_books (source, destination) VALUES (1, 1), (1, 2), (2, 3);
                    """)
            try StoreMigrator(storePath: path).migrate(to: MigrationFixture.model(Self.orderedOneToMany))
            // The links had no order: each author's books are numbered by key.
            #expect(try await Self.titles(path, Self.orderedOneToMany) == ["Ann": ["x", "y"], "Bo": ["z"]])
            #expect(
                try MigrationFixture.column(at: path, "SELECT _order_author FROM Book ORDER BY _pk")
                    == [.integer(1), .integer(2), .integer(1)])
        }
    }

    // MARK: - Destinations with sub-entities

    /// `Owner.pets` reaches `Animal`, whose rows are dogs and cats.
    static func pets(toOne: Bool) -> String {
        """
        entities:
          Owner:
            attributes: { name: string }
            relationships:
              \(toOne ? "pet: { to: Animal, inverse: owners, renamingIdentifier: pets }" : "pets: { to: Animal, toMany: true, inverse: owners, renamingIdentifier: pet }")
          Animal:
            attributes: { name: string }
            relationships:
              owners: { to: Owner, toMany: true, inverse: \(toOne ? "pet" : "pets") }
          Dog:
            parent: Animal
            attributes: { breed: string }
          Cat:
            parent: Animal
            attributes: { indoor: boolean }
        """
    }

    static func pets(_ path: String, _ yaml: String, key: String) async throws -> [String: [String]] {
        try await withContext(path, yaml) { context in
            var pets: [String: [String]] = [:]
            for owner in try all(context, "Owner", by: "name") {
                let members =
                    key == "pet"
                    ? [owner.object(forKey: "pet")].compactMap { $0 } : owner.objects(forKey: "pets")
                pets[owner["name"] ?? ""] = members.map { "\($0.entity.name) \($0["name"] as String? ?? "")" }.sorted()
            }
            return pets
        }
    }

    @Test func linksToAParentWhoseRowsAreItsChildrenMoveBetweenAKeyAndAJoinTable() async throws {
        try await MigrationFixture.withStorePath { path in
            let toOne = Self.pets(toOne: true)
            let toMany = Self.pets(toOne: false)
            try await MigrationFixture.makeStore(at: path, toOne)
            try await Self.withContext(path, toOne) { context in
                let rex = context.insertObject(entityName: "Dog")
                rex["name"] = "Rex"
                let tom = context.insertObject(entityName: "Cat")
                tom["name"] = "Tom"
                for (name, pet) in [("Ann", rex), ("Bo", tom), ("Cy", nil)] as [(String, ManagedObject?)] {
                    let owner = context.insertObject(entityName: "Owner")
                    owner["name"] = name
                    owner.setObject(pet, forKey: "pet")
                }
                try context.save()
            }
            let one = ["Ann": ["Dog Rex"], "Bo": ["Cat Tom"], "Cy": []]
            #expect(try await Self.pets(path, toOne, key: "pet") == one)

            try StoreMigrator(storePath: path).migrate(to: MigrationFixture.model(toMany))
            #expect(try await Self.pets(path, toMany, key: "pets") == one)

            // Back to a key column: the key's entity column names each member's sub-entity again.
            try StoreMigrator(storePath: path).migrate(to: MigrationFixture.model(toOne))
            #expect(try await Self.pets(path, toOne, key: "pet") == one)
            #expect(
                try MigrationFixture.column(
                    at: path,
                    "SELECT e.name FROM Owner o LEFT JOIN ferry_entities e ON e.ent = o.pet_ent ORDER BY o.name")
                    == [.text("Dog"), .text("Cat"), .null])
        }
    }
}

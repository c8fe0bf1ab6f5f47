import FerrySQLite
import Foundation
import Testing

@testable import FerryStore

/// Relationships turned between to-one and to-many, and between ordered and unordered, in stores holding links: the
/// links move to the new layout's key column or join table, and an object left with several members of a relationship
/// turned to-one is a violation the policy decides.
struct RelationshipMigrationTests {
    /// One-to-many: a book has one author (the key column `Book.author`).
    static let oneToMany = """
        entities:
          Author:
            attributes: { name: string }
            relationships:
              books: { to: Book, toMany: true, inverse: author }
          Book:
            attributes: { title: string }
            relationships:
              author: { to: Author, inverse: books, renamingIdentifier: authors }
        """
    /// Many-to-many: the join table `Author_books` (source: author, destination: book).
    static func manyToMany(ordered: Bool = false) -> String {
        """
        entities:
          Author:
            attributes: { name: string }
            relationships:
              books: { to: Book, toMany: true, inverse: authors\(ordered ? ", ordered: true" : "") }
          Book:
            attributes: { title: string }
            relationships:
              authors: { to: Author, toMany: true, inverse: books, renamingIdentifier: author }
        """
    }
    static let authors = "INSERT INTO Author (_pk, _ent, name) VALUES (1, 1, 'Ann'), (2, 1, 'Bo');"

    static func values(_ path: String, _ sql: String) throws -> [[SQLiteValue]] {
        let connection = try Connection(path: path, mode: .readOnly)
        return try connection.prepare(sql).fetchAll().map { row in (0..<row.count).map { row[$0] } }
    }

    static func links(_ path: String) throws -> [[SQLiteValue]] {
        try values(path, "SELECT source, destination FROM Author_books ORDER BY source, destination")
    }

    @Test func aToOneTurnedToManyMovesEveryLinkIntoTheJoinTable() async throws {
        try await MigrationFixture.withStorePath { path in
            try await MigrationFixture.makeStore(
                at: path, Self.oneToMany,
                rows: Self.authors + """
                    INSERT INTO Book (_pk, _ent, title, author) VALUES
                        (1, 2, 'x', 1), (2, 2, 'y', 1), (3, 2, 'z', 2), (4, 2, 'w', NULL);
                    """)
            let plan = try StoreMigrator(storePath: path).plan(to: MigrationFixture.model(Self.manyToMany()))
            // The key column's index goes with it.
            #expect(plan.steps.map(\.kind) == ["changeRelationship", "removeIndex"])
            #expect(plan.steps.first?.rows == 3)
            #expect(plan.isAutomatic)
            try StoreMigrator(storePath: path).migrate(to: plan)
            #expect(
                try Self.links(path) == [
                    [.integer(1), .integer(1)], [.integer(1), .integer(2)], [.integer(2), .integer(3)],
                ])
            let columns = try Self.values(path, "SELECT name FROM pragma_table_info('Book') ORDER BY cid")
            #expect(columns.map { $0[0] } == [.text("_pk"), .text("_ent"), .text("_opt"), .text("title")])
        }
    }

    static let crowded =
        authors + """
            INSERT INTO Book (_pk, _ent, title) VALUES (1, 2, 'x'), (2, 2, 'y'), (3, 2, 'z');
            INSERT INTO Author_books (source, destination) VALUES (1, 1), (2, 1), (1, 2), (2, 3);
            """

    @Test func aToManyTurnedToOneIsBlockedByObjectsWithSeveralMembers() async throws {
        try await MigrationFixture.withStorePath { path in
            try await MigrationFixture.makeStore(at: path, Self.manyToMany(), rows: Self.crowded)
            let plan = try StoreMigrator(storePath: path).plan(to: MigrationFixture.model(Self.oneToMany))
            #expect(plan.isBlocked)
            let check = try #require(plan.checks.first { $0.kind == "severalMembers" })
            #expect(check.violations == 1 && check.samples == ["_pk 1"])
            #expect(plan.text.contains("--on-violation keep-first"))
            let error = #expect(throws: MigrationError.self) { try StoreMigrator(storePath: path).migrate(to: plan) }
            #expect(error?.code == .dataViolation)
            #expect(try Self.links(path).count == 4)
        }
    }

    @Test func keepLastGivesEachObjectItsLastMemberAndKeepsTheOthersLinks() async throws {
        try await MigrationFixture.withStorePath { path in
            try await MigrationFixture.makeStore(at: path, Self.manyToMany(), rows: Self.crowded)
            let plan = try StoreMigrator(storePath: path).plan(
                to: MigrationFixture.model(Self.oneToMany), policy: .keepLast)
            #expect(!plan.isBlocked && plan.isDestructive)
            #expect(throws: MigrationError.self) { try StoreMigrator(storePath: path).migrate(to: plan) }
            try StoreMigrator(storePath: path).migrate(to: plan, allowsDestructiveChanges: true)
            #expect(
                try Self.values(path, "SELECT title, author FROM Book ORDER BY _pk")
                    == [[.text("x"), .integer(2)], [.text("y"), .integer(1)], [.text("z"), .integer(2)]])
            #expect(try Self.values(path, "SELECT name FROM sqlite_master WHERE name = 'Author_books'").isEmpty)
        }
    }

    @Test func rejectRemovesTheObjectsWithSeveralMembersIntoTheRejects() async throws {
        try await MigrationFixture.withStorePath { path in
            try await MigrationFixture.makeStore(at: path, Self.manyToMany(), rows: Self.crowded)
            let plan = try StoreMigrator(storePath: path).plan(
                to: MigrationFixture.model(Self.oneToMany), policy: .reject)
            let result = try StoreMigrator(storePath: path).migrate(to: plan, allowsDestructiveChanges: true)
            #expect(result.rejected == 1)
            #expect(
                try Self.values(path, "SELECT title, author FROM Book ORDER BY _pk")
                    == [[.text("y"), .integer(1)], [.text("z"), .integer(2)]])
            #expect(
                try Self.values(path, "SELECT pk, reason FROM ferry_migration_rejects") == [
                    [.integer(1), .text("more than one member of 'Book.author', which the new model makes to-one")]
                ])
        }
    }

    @Test func aManyToManyTurnedOrderedNumbersItsLinksAndBackDropsTheOrder() async throws {
        try await MigrationFixture.withStorePath { path in
            try await MigrationFixture.makeStore(at: path, Self.manyToMany(), rows: Self.crowded)
            let plan = try StoreMigrator(storePath: path).plan(
                to: MigrationFixture.model(Self.manyToMany(ordered: true)))
            #expect(plan.steps.map(\.kind) == ["changeRelationship"])
            #expect(plan.isAutomatic)
            try StoreMigrator(storePath: path).migrate(to: plan)
            #expect(
                try Self.values(
                    path, "SELECT source, destination, position FROM Author_books ORDER BY source, position")
                    == [
                        [.integer(1), .integer(1), .integer(1)], [.integer(1), .integer(2), .integer(2)],
                        [.integer(2), .integer(1), .integer(1)], [.integer(2), .integer(3), .integer(2)],
                    ])
            try StoreMigrator(storePath: path).migrate(to: MigrationFixture.model(Self.manyToMany()))
            #expect(try Self.links(path).count == 4)
            let columns = try Self.values(path, "SELECT name FROM pragma_table_info('Author_books') ORDER BY cid")
            #expect(columns.map { $0[0] } == [.text("source"), .text("destination")])
        }
    }
}

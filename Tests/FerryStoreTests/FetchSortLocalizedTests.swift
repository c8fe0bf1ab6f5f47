import Foundation
import Testing

@testable import FerryStore

/// Sort descriptors with Core Data's string comparisons (`caseInsensitiveCompare:`, `localizedCompare:`,
/// `localizedCaseInsensitiveCompare:`, `localizedStandardCompare:`), in the store's SQL and in memory for unsaved
/// objects: both must give the same order.
///
/// The words are chosen so that the order is the same in every locale that uses the root collation's Latin order
/// (English, French, German, POSIX…).
struct FetchSortLocalizedTests {
    static let words = ["File10", "file2", "éclair", "Eclair", "zebra", "apple", "Äpfel", "b", "File2", "eclair"]

    /// The labels of tags sorted by `comparison`: with every tag unsaved, with half of them saved, and all saved.
    static func orders(
        _ comparison: FetchSortDescriptor.Comparison, ascending: Bool = true
    ) async throws -> (noneSaved: [String?], halfSaved: [String?], allSaved: [String?]) {
        let fixture = try await ContextFixture()
        let context = fixture.context()
        return try context.performAndWait {
            var request = FetchRequest(
                entityName: "Tag",
                sortDescriptors: [FetchSortDescriptor(key: "label", ascending: ascending, comparison: comparison)])
            request.includesPendingChanges = true
            func labels() throws -> [String?] { try context.fetch(request).map { $0["label"] as String? } }
            for word in words.prefix(5) {
                context.insertObject(entityName: "Tag")["label"] = word
            }
            let noneSaved = try labels()
            try context.save()
            for word in words.dropFirst(5) {
                context.insertObject(entityName: "Tag")["label"] = word
            }
            let halfSaved = try labels()
            try context.save()
            return (noneSaved, halfSaved, try labels())
        }
    }

    @Test(arguments: [
        (
            FetchSortDescriptor.Comparison.standard,
            ["Eclair", "File10", "File2", "apple", "b", "eclair", "file2", "zebra", "Äpfel", "éclair"]
        ),
        (.caseInsensitive, ["apple", "b", "Eclair", "eclair", "File10", "File2", "file2", "zebra", "Äpfel", "éclair"]),
        (.localized, ["Äpfel", "apple", "b", "eclair", "Eclair", "éclair", "File10", "file2", "File2", "zebra"]),
        (
            .localizedCaseInsensitive,
            ["Äpfel", "apple", "b", "Eclair", "eclair", "éclair", "File10", "File2", "file2", "zebra"]
        ),
        (
            .localizedStandard,
            ["Äpfel", "apple", "b", "eclair", "Eclair", "éclair", "file2", "File2", "File10", "zebra"]
        ),
    ])
    func theStoreAndTheUnsavedObjectsSortAlike(comparison: FetchSortDescriptor.Comparison, expected: [String])
        async throws
    {
        let orders = try await Self.orders(comparison)
        #expect(orders.allSaved == expected, "saved, \(comparison)")
        #expect(orders.halfSaved == expected, "half saved, \(comparison)")
        // The first five words, unsaved, in the same relative order.
        #expect(orders.noneSaved == expected.filter { Self.words.prefix(5).contains($0) }, "unsaved, \(comparison)")
        let descending = try await Self.orders(comparison, ascending: false)
        #expect(descending.allSaved == expected.reversed(), "saved, descending, \(comparison)")
        #expect(descending.halfSaved == expected.reversed(), "half saved, descending, \(comparison)")
    }

    @Test func theDescriptionNamesTheComparison() {
        #expect(
            FetchSortDescriptor(key: "title", comparison: .localizedStandard).description
                == "title ASC [localizedStandard]")
        #expect(
            FetchSortDescriptor(key: "name", ascending: false, comparison: .caseInsensitive).description
                == "name DESC [c]")
    }
}

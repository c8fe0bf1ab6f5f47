import FerryPipeline
import FerrySQLite
import FerryStore
import Foundation
import Testing

/// Full sync: rows the input no longer holds are deleted, within a scope, behind a guard against mass deletion.
struct ImporterFullSyncTests {
    private static func products(_ skus: [Int], bad: Set<Int> = []) -> String {
        "sku,name,price,active\n"
            + skus.map { "SKU-\($0),Product \($0),\(bad.contains($0) ? "oops" : "\($0).00"),\($0 % 2 == 0)\n" }
            .joined()
    }

    private func sync(
        _ fixture: ImportFixture, _ skus: [Int], bad: Set<Int> = [], _ sync: FullSync
    ) async throws -> ImportResult {
        let input = try fixture.file("sync.csv", Self.products(skus, bad: bad))
        return try await fixture.importProducts([input]) {
            $0.relationships = []
            $0.fullSync = sync
        }
    }

    private func skus(_ fixture: ImportFixture) throws -> [String] {
        try fixture.rows("SELECT sku FROM Product ORDER BY _pk").compactMap { $0[0].text }
    }

    @Test func rowsTheInputNoLongerHoldsAreDeletedButNotThoseOfRefusedRecords() async throws {
        let fixture = try await ImportFixture()
        _ = try await sync(fixture, Array(1...10), FullSync(maxDeleteFraction: 1))

        // SKU-3 is refused (bad price) yet present: its row stays. SKU-9 and SKU-10 are gone from the input.
        let result = try await sync(fixture, Array(1...8), bad: [3], FullSync(maxDeleteFraction: 0.25))

        #expect(result.counts.deleted == 2 && result.counts.rejected == 1 && result.counts.unchanged == 7)
        #expect(try skus(fixture) == (1...8).map { "SKU-\($0)" })
        #expect(try fixture.rows("SELECT count(*) FROM ferry_seen") == [[.integer(0)]])
    }

    @Test func theGuardRefusesAMassDeletionUnlessForced() async throws {
        let fixture = try await ImportFixture()
        _ = try await sync(fixture, Array(1...10), FullSync())

        let error = await #expect(throws: PipelineError.self) {
            try await sync(fixture, [1, 2, 3], FullSync(maxDeleteFraction: 0.5))
        }
        #expect(error?.code == .syncGuard)
        #expect(error?.message.contains("would delete 7 of 10 rows (70%)") == true)
        #expect(try skus(fixture).count == 10)

        let forced = try await sync(fixture, [1, 2, 3], FullSync(maxDeleteFraction: 0.5, force: true))
        #expect(forced.counts.deleted == 7)
        #expect(try skus(fixture) == ["SKU-1", "SKU-2", "SKU-3"])
    }

    @Test func onlyRowsInsideTheScopeAreDeleted() async throws {
        let fixture = try await ImportFixture()
        _ = try await sync(fixture, Array(1...6), FullSync())

        // The input covers active products only: inactive ones (odd numbers) are out of scope and stay.
        let result = try await sync(fixture, [2, 4], FullSync(scope: "active == YES", maxDeleteFraction: 0.5))

        #expect(result.counts.deleted == 1)
        #expect(try skus(fixture) == ["SKU-1", "SKU-2", "SKU-3", "SKU-4", "SKU-5"])
    }
}

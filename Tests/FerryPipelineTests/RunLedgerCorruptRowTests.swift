import FerrySQLite
import FerryStore
import Foundation
import Testing

@testable import FerryPipeline

/// A ledger row that cannot be read stops the run that needs it: counts read as zero would let `--resume` go on from
/// counts that no longer balance.
struct RunLedgerCorruptRowTests {
    @Test(arguments: ["counts", "checkpoint", "inputs"])
    func aResumeFromARunWhoseRowCannotBeReadFailsNamingTheRun(column: String) async throws {
        let fixture = try await ImportFixture()
        let input = try fixture.file("products.csv", ImportFixture.products)
        let stop = StopSignal()
        _ = await #expect(throws: PipelineError.self) {
            try await fixture.importProducts([input], stop: stop, progress: { _ in stop.raise("SIGTERM") })
        }
        try Connection(path: fixture.storePath).execute("UPDATE ferry_runs SET \(column) = '{\"read\": \"many\"'")

        let error = await #expect(throws: PipelineError.self) {
            try await fixture.importProducts([input], resume: true)
        }

        #expect(error?.code == .corruptLedger)
        #expect(error?.message.contains("run 1 ") == true && error?.message.contains(column) == true)
    }
}

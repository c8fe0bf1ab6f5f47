import FerryPipeline
import Testing

struct StepCountsTests {
    @Test func balanceHoldsOnlyWhenEveryRecordReadIsAccountedFor() {
        var counts = StepCounts()
        counts.read = 10
        counts.inserted = 6
        counts.updated = 2
        counts.unchanged = 1
        #expect(!counts.isBalanced)
        counts.rejected = 1
        counts.deleted = 4  // deletions are not records read
        #expect(counts.isBalanced)
    }

    @Test func addingSumsEveryCount() {
        var total = StepCounts()
        var chunk = StepCounts()
        chunk.read = 3
        chunk.inserted = 2
        chunk.rejected = 1
        chunk.deleted = 5
        total.add(chunk)
        total.add(chunk)
        #expect(total.read == 6 && total.inserted == 4 && total.rejected == 2 && total.deleted == 10)
        #expect(total.isBalanced)
    }
}

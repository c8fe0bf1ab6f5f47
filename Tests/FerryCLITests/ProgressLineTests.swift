import Testing

@testable import ferry

/// The progress line's text: percentage and ETA when the input's size is known, bytes read otherwise.
struct ProgressLineTests {
    @Test func aKnownSizeGivesPercentageAndETA() {
        let line = ProgressLine.line(records: 250_000, bytesRead: 50_000_000, totalBytes: 200_000_000, elapsed: 2)
        #expect(line == "25.0% of 200 MB · 250,000 records · 125,000 records/s · ETA 0:06")
    }

    @Test func anUnknownSizeGivesBytesRead() {
        let line = ProgressLine.line(records: 1_000, bytesRead: 3_000_000, totalBytes: nil, elapsed: 1)
        #expect(line == "3 MB read · 1,000 records · 1,000 records/s")
    }
}

import Foundation

/// A one-line progress display on standard error, shown only when standard error is a terminal (never in a
/// pipe or a cron job's log).
///
/// `12.5% of 210 MB · 180,000 records · 95,000 records/s · ETA 0:14`
final class ProgressLine: @unchecked Sendable {
    // @unchecked: a progress line belongs to one command and is updated from one task at a time.
    private let enabled = isatty(STDERR_FILENO) == 1
    private let totalBytes: Int?
    private let started = Date()
    private var lastShown = Date.distantPast
    private var shown = false

    /// Creates the display for an input of `path`; the percentage and ETA need a regular file's size.
    init(inputPath: String) {
        let attributes = inputPath == "-" ? nil : try? FileManager.default.attributesOfItem(atPath: inputPath)
        totalBytes = (attributes?[.size] as? NSNumber)?.intValue
    }

    /// Shows the counts, at most four times a second.
    func update(records: Int, bytesRead: Int) {
        guard enabled else { return }
        let now = Date()
        guard now.timeIntervalSince(lastShown) >= 0.25 else { return }
        lastShown = now
        FileHandle.standardError.write(
            Data(
                ("\r"
                    + Self.line(
                        records: records, bytesRead: bytesRead, totalBytes: totalBytes,
                        elapsed: now.timeIntervalSince(started)) + "\u{1B}[K").utf8))
        shown = true
    }

    /// Erases the line if one was shown.
    func clear() {
        guard shown else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
        shown = false
    }

    /// The text of the line.
    static func line(records: Int, bytesRead: Int, totalBytes: Int?, elapsed: TimeInterval) -> String {
        let elapsed = max(elapsed, 0.001)
        let rate = Int(Double(records) / elapsed)
        var parts: [String] = []
        if let totalBytes, totalBytes > 0 {
            let fraction = min(Double(bytesRead) / Double(totalBytes), 1)
            parts.append(String(format: "%.1f%% of %@", fraction * 100, megabytes(totalBytes)))
        } else {
            parts.append("\(megabytes(bytesRead)) read")
        }
        parts.append("\(records.formatted()) records")
        parts.append("\(rate.formatted()) records/s")
        if let totalBytes, totalBytes > 0, bytesRead > 0 {
            let remaining = elapsed * Double(max(totalBytes - bytesRead, 0)) / Double(bytesRead)
            let seconds = Int(remaining.rounded())
            parts.append(String(format: "ETA %d:%02d", seconds / 60, seconds % 60))
        }
        return parts.joined(separator: " · ")
    }

    private static func megabytes(_ bytes: Int) -> String {
        String(format: "%.0f MB", Double(bytes) / 1_000_000)
    }
}

import Foundation

/// A one-line progress display on standard error, shown only when standard error is a terminal.
final class ProgressLine {
    private let enabled = isatty(STDERR_FILENO) == 1
    private let started = Date()
    private var lastShown = Date.distantPast
    private var shown = false

    /// Shows the counts, at most four times a second.
    func update(records: Int, bytesRead: Int) {
        guard enabled else { return }
        let now = Date()
        guard now.timeIntervalSince(lastShown) >= 0.25 else { return }
        lastShown = now
        let elapsed = max(now.timeIntervalSince(started), 0.001)
        let rate = Int(Double(records) / elapsed)
        let megabytes = String(format: "%.1f", Double(bytesRead) / 1_048_576)
        FileHandle.standardError.write(Data("\r\(records) records, \(megabytes) MB read, \(rate) records/s  ".utf8))
        shown = true
    }

    /// Erases the line if one was shown.
    func clear() {
        guard shown else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
        shown = false
    }
}

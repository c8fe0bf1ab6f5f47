import FerryPipeline
import Foundation

/// A one-line progress display on standard error, shown only when standard error is a terminal (never in a
/// pipe or a cron job's log) and the command is not `--quiet`.
///
/// `import Product · 12.5% of 210 MB · 180,000 records · 95,000 records/s · ETA 0:14`
final class ProgressLine: @unchecked Sendable {
    // @unchecked: a progress line belongs to one command and is updated from one task at a time.
    private let enabled: Bool
    private var sizes: [String: Int?] = [:]
    private var step: String?
    private var started = Date()
    private var lastShown = Date.distantPast
    /// Whether any update came yet (the first one starts the first step).
    private var updated = false

    /// A display shown on a terminal unless `quiet` (`--quiet`: nothing but errors).
    init(quiet: Bool) {
        enabled = !quiet && isatty(STDERR_FILENO) == 1
    }

    /// Shows how far an import has come (see ``update(step:inputPath:records:bytesRead:)``).
    func update(_ progress: ImportProgress) {
        update(
            step: progress.step, inputPath: progress.inputPath, records: progress.counts.read,
            bytesRead: progress.bytesRead)
    }

    /// Shows how far a pipeline's import, export or publish step has come.
    func update(_ progress: StepProgress) {
        switch progress {
        case .importing(let imported): update(imported)
        case .exporting(let step, let exported): update(step: step, export: exported)
        case .publishing(let step, let rows): update(step: step, rows: rows)
        }
    }

    /// Shows `records` read from `bytesRead` bytes of `inputPath`, at most four times a second. The percentage and
    /// ETA need the input to be a regular file; the rate and ETA count from the first update of each `step`.
    func update(step: String? = nil, inputPath: String, records: Int, bytesRead: Int) {
        show(step: step) { elapsed in
            Self.line(
                step: step, records: records, bytesRead: bytesRead, totalBytes: size(of: inputPath), elapsed: elapsed)
        }
    }

    /// Starts `step` now, so that its rate counts from here rather than from its first update.
    func begin(step: String) {
        updated = true
        self.step = step
        started = Date()
        lastShown = .distantPast
    }

    /// Shows `rows` done so far by `step` (`publish Product`), at most four times a second; the rate counts from the
    /// step's ``begin(step:)``, or else from its first update.
    func update(step: String, rows: Int) {
        update(step: step, export: .rows(rows))
    }

    /// Shows how far `step` (`export Product`) has come, at most four times a second; the rate counts from the
    /// step's ``begin(step:)``, or else from its first update.
    ///
    /// A partitioned export's first report of writing files shows at once, so that the line does not keep the rows
    /// read while the files are written.
    func update(step: String, export progress: ExportProgress) {
        var startsWritingFiles = false
        if case .partitionFiles(written: 0, _, rowsWritten: 0, _) = progress { startsWritingFiles = true }
        show(step: step, immediately: startsWritingFiles) { elapsed in
            Self.line(step: step, export: progress, elapsed: elapsed)
        }
    }

    /// Writes the line `text` makes from the seconds since `step` began, unless one was shown in the last quarter
    /// of a second and it is not to be shown `immediately`; a new step shows at once.
    private func show(step: String?, immediately: Bool = false, _ text: (TimeInterval) -> String) {
        guard enabled else { return }
        let now = Date()
        if step != self.step || !updated {
            updated = true
            self.step = step
            started = now
            lastShown = .distantPast
        }
        guard immediately || now.timeIntervalSince(lastShown) >= 0.25 else { return }
        lastShown = now
        TerminalLine.draw(text(now.timeIntervalSince(started)))
    }

    /// Erases the line if one is shown.
    func clear() {
        guard enabled else { return }
        TerminalLine.erase()
    }

    /// The text of the line.
    static func line(step: String? = nil, records: Int, bytesRead: Int, totalBytes: Int?, elapsed: TimeInterval)
        -> String
    {
        let elapsed = max(elapsed, 0.001)
        let rate = Int(Double(records) / elapsed)
        var parts: [String] = step.map { [$0] } ?? []
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

    /// The text of an export's line: `export Product · 1,200,000 rows · 950,000 rows/s` while rows are read, then,
    /// for a partitioned export, `export Product · partition files 37 of 200 · 180,000 of 1,200,000 rows written`.
    static func line(step: String, export progress: ExportProgress, elapsed: TimeInterval) -> String {
        switch progress {
        case .rows(let rows):
            let rate = Int(Double(rows) / max(elapsed, 0.001))
            return "\(step) · \(rows.formatted()) rows · \(rate.formatted()) rows/s"
        case .partitionFiles(let written, let files, let rowsWritten, let rows):
            return "\(step) · partition files \(written.formatted()) of \(files.formatted()) · "
                + "\(rowsWritten.formatted()) of \(rows.formatted()) rows written"
        }
    }

    /// The size of the input at `path` (standard input and other streams have none), looked up once.
    private func size(of path: String) -> Int? {
        if let known = sizes[path] { return known }
        let attributes = path == "-" ? nil : try? FileManager.default.attributesOfItem(atPath: path)
        let isRegular = attributes?[.type] as? FileAttributeType == .typeRegular
        let size = isRegular ? (attributes?[.size] as? NSNumber)?.intValue : nil
        sizes[path] = size
        return size
    }

    private static func megabytes(_ bytes: Int) -> String {
        String(format: "%.0f MB", Double(bytes) / 1_000_000)
    }
}

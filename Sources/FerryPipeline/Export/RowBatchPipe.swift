import Dispatch
import FerryStore
import Synchronization

/// Runs an export on two threads: the calling thread steps the snapshot's statement and copies each row into a
/// ``RowBatch``, while a thread of its own formats the batches filled before. Batches take turns, so reading
/// never waits for formatting unless every batch is full, and memory stays that of the batches (4 MiB unless told
/// otherwise) whatever the row count.
///
/// When formatting fails, reading stops at the next batch and the failure is thrown; when reading fails, the rows
/// read before it are formatted and the reading failure is thrown. Either way no batch is in use once
/// ``run(_:format:)`` returns. A pipe runs once.
final class RowBatchPipe: @unchecked Sendable {
    // @unchecked: a batch is touched by one thread at a time, handed over by the two semaphores (the reader fills
    // it between `emptied` and `filled`, the formatter reads it between `filled` and `emptied`), and
    // `formatFailure` is written by the formatting thread before the group it runs in leaves and read after
    // `group.wait()`.
    private let batches: [RowBatch]
    /// Signalled once per batch filled, waited on by the formatting thread.
    private let filled = DispatchSemaphore(value: 0)
    /// Signalled once per batch the formatting thread is done with, waited on by the reading thread.
    private let emptied: DispatchSemaphore
    private let queue = DispatchQueue(label: "ferry.export.format")
    private let group = DispatchGroup()
    /// Set when formatting failed, so that reading stops.
    private let formatFailed = Atomic<Bool>(false)
    private var formatFailure: (any Error)?

    /// A pipe for rows of `columnCount` columns, with `batchCount` batches of `batchBytes` bytes each.
    ///
    /// Sixteen batches (4 MiB) absorb the moments when formatting falls behind (a row group written out, a page
    /// compressed late), so that reading goes on meanwhile; four made the reading thread wait more often.
    init(columnCount: Int, batchBytes: Int = 256 * 1024, batchCount: Int = 16) {
        batches = (0..<max(batchCount, 2)).map { _ in RowBatch(columnCount: columnCount, byteCount: batchBytes) }
        emptied = DispatchSemaphore(value: batches.count)
    }

    /// Reads every row of `rows` on this thread and calls `format` with each, in order, on the formatting thread;
    /// returns the rows read.
    ///
    /// - Throws: what `format` threw (reading stops soon after), or else what reading threw (``StoreError``).
    func run(_ rows: SnapshotRows, format: (RowBatch.Row) throws -> Void) throws -> Int {
        try runBatches(rows) { try $0.forEachRow(format) }
    }

    /// Reads every row of `rows` on this thread and calls `format` with each batch filled, in order, on the
    /// formatting thread; returns the rows read.
    ///
    /// - Throws: what `format` threw (reading stops soon after), or else what reading threw (``StoreError``).
    func runBatches(_ rows: SnapshotRows, format: (RowBatch) throws -> Void) throws -> Int {
        try withoutActuallyEscaping(format) { format in
            let formatter = UncheckedFormat(format: format)
            queue.async(group: group) { [self] in consume(formatter.format) }
            let read = Result { try produce(rows) }
            group.wait()
            if let formatFailure { throw formatFailure }
            return try read.get()
        }
    }

    /// The reading thread's loop: fills batches in turn until the rows end, reading fails or formatting did.
    private func produce(_ rows: SnapshotRows) throws -> Int {
        var turn = 0
        var count = 0
        // Whether the statement sits on a row that did not fit in the batch before.
        var rowWaiting = false
        while true {
            emptied.wait()
            let batch = batches[turn % batches.count]
            batch.removeAll()
            do {
                if formatFailed.load(ordering: .acquiring) {
                    batch.isLast = true
                } else {
                    while true {
                        if !rowWaiting {
                            guard try rows.next() else {
                                batch.isLast = true
                                break
                            }
                            rowWaiting = true
                        }
                        if batch.append(rows) {
                            rowWaiting = false
                        } else if batch.rowCount > 0 {
                            break
                        } else {
                            batch.reserveRoom(for: rows)
                        }
                    }
                }
            } catch {
                // The rows read before the failure are formatted; the batch ends the rows.
                batch.isLast = true
                filled.signal()
                throw error
            }
            count += batch.rowCount
            let isLast = batch.isLast
            filled.signal()
            if isLast { return count }
            turn += 1
        }
    }

    /// The formatting thread's loop: formats each batch as it is filled, until the last one; after a failure it
    /// hands batches back without formatting them.
    private func consume(_ format: (RowBatch) throws -> Void) {
        var turn = 0
        while true {
            filled.wait()
            let batch = batches[turn % batches.count]
            if formatFailure == nil {
                do {
                    try format(batch)
                } catch {
                    formatFailure = error
                    formatFailed.store(true, ordering: .releasing)
                }
            }
            let isLast = batch.isLast
            emptied.signal()
            if isLast { return }
            turn += 1
        }
    }

    /// The formatting closure, handed to the formatting thread: only that thread calls it, and only while
    /// ``run(_:format:)`` waits.
    private struct UncheckedFormat: @unchecked Sendable {
        let format: (RowBatch) throws -> Void
    }
}

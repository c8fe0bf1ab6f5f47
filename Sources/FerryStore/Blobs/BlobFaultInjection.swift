import Synchronization

/// A test hook for the crash that external storage must survive: the process dying after a blob file was written
/// and before the transaction that refers to it committed.
///
/// Armed with ``crashAfterNextBlobWrite()``, the store's next blob write throws ``SimulatedCrash`` right after the
/// file is written and registered; the transaction rolls back as SQLite would after a crash, and the file is left
/// in place, as a dead process leaves it, for ``PersistentStore/sweepBlobs()`` to find.
package final class BlobFaultInjection: Sendable {
    /// The error a simulated crash throws.
    package struct SimulatedCrash: Error, Sendable {
        /// The blob whose file was written.
        package var reference: String

        init(reference: BlobReference) {
            self.reference = reference.hash
        }
    }

    private let armed = Mutex(false)

    package init() {}

    /// Makes the next blob write throw ``SimulatedCrash`` after its file is written.
    package func crashAfterNextBlobWrite() {
        armed.withLock { $0 = true }
    }

    /// Whether to crash now (disarming the hook).
    func takeCrash() -> Bool {
        armed.withLock { armed in
            defer { armed = false }
            return armed
        }
    }
}

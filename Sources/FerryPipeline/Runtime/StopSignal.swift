import Foundation

/// A request to stop at the next chunk boundary (SIGINT, SIGTERM), checked by the importer between chunks.
public final class StopSignal: @unchecked Sendable {
    // @unchecked: the flag is guarded by `lock`.
    private let lock = NSLock()
    private var reason: String?

    /// A signal nobody has raised yet.
    public init() {}

    /// Asks the run to stop; `why` is reported (such as `SIGINT`).
    public func raise(_ why: String) {
        lock.withLock { if reason == nil { reason = why } }
    }

    /// Why a stop was asked for, or `nil`.
    public var raised: String? { lock.withLock { reason } }
}

public import Logging
import Synchronization

/// What a logger was given, kept for a test to read.
///
/// ```swift
/// let log = CapturedLog()
/// let logger = Logger(label: "test") { _ in CapturedLog.Handler(log: log) }
/// ```
public final class CapturedLog: Sendable {
    /// One message and its level.
    public struct Entry: Sendable {
        public var level: Logger.Level
        public var message: String
    }

    private let kept = Mutex<[Entry]>([])
    /// The messages logged so far, in order.
    public var entries: [Entry] { kept.withLock { $0 } }

    public init() {}

    /// A logger whose every message, at any level, goes to this log.
    public var logger: Logger { Logger(label: "test") { _ in Handler(log: self) } }

    /// Hands every message, at any level, to `log`.
    public struct Handler: LogHandler {
        let log: CapturedLog
        public var metadata: Logger.Metadata = [:]
        public var logLevel: Logger.Level = .trace

        public init(log: CapturedLog) { self.log = log }

        public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        public func log(event: LogEvent) {
            log.kept.withLock { $0.append(Entry(level: event.level, message: "\(event.message)")) }
        }
    }
}

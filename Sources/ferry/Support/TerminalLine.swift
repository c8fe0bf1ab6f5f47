import Foundation
import Logging
import Synchronization

/// The line a progress display holds at the bottom of a terminal, on standard error, shared with log messages: a
/// message erases the line before it is printed, and the next progress update draws the line again below it.
enum TerminalLine {
    /// Whether a line is drawn. Holding the lock also keeps a line and a message from being written into each other.
    private static let drawn = Mutex(false)

    /// Draws `text` over the line.
    static func draw(_ text: String) {
        drawn.withLock { drawn in
            write("\r" + text + "\u{1B}[K")
            drawn = true
        }
    }

    /// Erases the line, if one is drawn.
    static func erase() {
        drawn.withLock { eraseDrawn(&$0) }
    }

    /// Calls `body`, which writes to standard error, with the line erased first.
    static func whileErased(_ body: () -> Void) {
        drawn.withLock { drawn in
            eraseDrawn(&drawn)
            body()
        }
    }

    private static func eraseDrawn(_ drawn: inout Bool) {
        guard drawn else { return }
        write("\r\u{1B}[K")
        drawn = false
    }

    private static func write(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }
}

/// swift-log's standard-error handler, but a message first erases the progress line (see ``TerminalLine``), so that
/// the two do not share a line.
struct TerminalLogHandler: LogHandler {
    private var base: StreamLogHandler

    init(label: String, level: Logger.Level) {
        base = StreamLogHandler.standardError(label: label)
        base.logLevel = level
    }

    func log(event: LogEvent) {
        TerminalLine.whileErased { base.log(event: event) }
    }

    var metadataProvider: Logger.MetadataProvider? {
        get { base.metadataProvider }
        set { base.metadataProvider = newValue }
    }

    var metadata: Logger.Metadata {
        get { base.metadata }
        set { base.metadata = newValue }
    }

    var logLevel: Logger.Level {
        get { base.logLevel }
        set { base.logLevel = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { base[metadataKey: key] }
        set { base[metadataKey: key] = newValue }
    }
}

public import ArgumentParser
import Foundation
public import Logging

/// `--log-level` and `--quiet`: how much `ferry` says on standard error.
struct LoggingOptions: ParsableArguments {
    @Option(help: "Log level on standard error: trace, debug, info, notice, warning, error, critical.")
    var logLevel: Logger.Level = .notice

    @Flag(name: .shortAndLong, help: "Print nothing but errors (no summary, no progress).")
    var quiet = false

    /// Sends swift-log's output to standard error at the chosen level; call once, first thing in `run()`.
    func bootstrap() -> Logger {
        let level = quiet ? Logger.Level.error : logLevel
        LoggingSystem.bootstrap { label in TerminalLogHandler(label: label, level: level) }
        return Logger(label: "ferry")
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}

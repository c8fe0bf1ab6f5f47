import Dispatch
import FerryPipeline
import Foundation

/// SIGINT and SIGTERM become a ``StopSignal``: the run stops at the next chunk boundary with nothing partial
/// committed. A second signal ends the process at once (the store is still safe: every chunk is a transaction).
enum SignalStop {
    /// Installs the handlers and returns the signal they raise.
    static func install() -> StopSignal {
        let stop = StopSignal()
        for (number, name) in [(SIGINT, "SIGINT"), (SIGTERM, "SIGTERM")] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                // Stopped by the user either way: the same exit code as a stop at a chunk boundary.
                if stop.raised != nil { exit(130) }
                stop.raise(name)
                FileHandle.standardError.write(
                    Data("ferry: \(name): stopping at the next chunk boundary (again to stop at once)\n".utf8))
            }
            source.resume()
            sources.append(source)
        }
        return stop
    }

    /// Keeps the signal sources alive for the life of the process.
    nonisolated(unsafe) private static var sources: [any DispatchSourceSignal] = []
}

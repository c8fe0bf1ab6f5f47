import Dispatch
import Foundation
import Glibc
import Synchronization
import Testing

@testable import FerryIO

/// The threads Parquet pages compress on: several jobs at once, each on a thread whose priority is below the
/// process's.
@Suite("Parquet compression threads")
struct ParquetCompressionThreadsTests {
    /// What a job saw of the thread it ran on.
    struct ThreadFacts: Sendable {
        let nice: Int32
        let name: String
    }

    @Test("A job runs on a thread named for what it does, whose nice value is the process's plus five")
    func lowerPriority() throws {
        errno = 0
        let process = getpriority(ParquetCompressionThreads.priorityOfThread, id_t(getpid()))
        try #require(errno == 0)
        let seen = Mutex<ThreadFacts?>(nil)
        let done = DispatchSemaphore(value: 0)
        ParquetCompressionThreads.shared.run {
            let name = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? ""
            // 0: the calling thread.
            let nice = getpriority(ParquetCompressionThreads.priorityOfThread, 0)
            seen.withLock { $0 = ThreadFacts(nice: nice, name: name.trimmingCharacters(in: .newlines)) }
            done.signal()
        }
        try #require(done.wait(timeout: .now() + 60) == .success)
        let facts = try #require(seen.withLock { $0 })
        #expect(facts.nice == min(19, process + 5))
        #expect(facts.name == "ferry-compress")
    }

    /// Two jobs that each wait for the other finish only if they run at once.
    @Test(
        "Jobs run several at once", .enabled(if: ParquetCompressionThreads.shared.count >= 2, "one core, one thread"))
    func severalAtOnce() {
        let first = DispatchSemaphore(value: 0)
        let second = DispatchSemaphore(value: 0)
        let met = Atomic<Int>(0)
        let done = DispatchGroup()
        for (mine, other) in [(first, second), (second, first)] {
            done.enter()
            ParquetCompressionThreads.shared.run {
                mine.signal()
                if other.wait(timeout: .now() + 60) == .success { met.add(1, ordering: .relaxed) }
                done.leave()
            }
        }
        #expect(done.wait(timeout: .now() + 120) == .success)
        #expect(met.load(ordering: .relaxed) == 2)
    }
}

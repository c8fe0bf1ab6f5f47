import CGlibcExtras
import Dispatch
import Glibc
import Synchronization

/// The threads that compress Parquet pages (``ParquetPageQueue``), one per core, shared by every writer in the process
/// and run at a lower scheduling priority than the threads that read and encode.
///
/// An export keeps more threads busy than there are cores: the reading thread steps the store, the encoding thread
/// turns rows into pages, and pages compress meanwhile. Compressing is the step that can wait: pages queue up in a few
/// buffers while the reading thread, which everything else waits for, runs. At one priority the scheduler shares each
/// core evenly between the threads that want it, so the reading thread fell behind and the cores went idle once the
/// pages ran out; at a lower one for compression, the reading thread gets its core first and compression fills the
/// rest. The threads lower their own priority by ``niceIncrement`` from the process's with `setpriority`, which Linux
/// applies to one thread and which needs no privilege to lower a priority. The cost: another process in the same
/// scheduling group (the same session, or the same cgroup) that keeps a core busy takes precedence over compression
/// too.
///
/// Jobs start in the order they were handed over, several at once. The threads start when first needed and stay for the
/// process's life, waiting for work.
final class ParquetCompressionThreads: Sendable {
    /// The threads every ``ParquetPageQueue`` compresses on: as many as the machine's cores online.
    static let shared: ParquetCompressionThreads = {
        let threads = ParquetCompressionThreads()
        for _ in 0..<max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN))) {
            guard threads.startThread() else { break }
            threads.started.add(1, ordering: .relaxed)
        }
        return threads
    }()

    /// The number of threads: 0 when none could start (the process at its limit of threads), and jobs then run on
    /// the thread that hands them over.
    var count: Int { started.load(ordering: .relaxed) }

    /// How much higher the threads' `nice` value is than the process's. At 5, a compression thread gets a quarter of a
    /// core that a thread at the process's priority wants too.
    static let niceIncrement: Int32 = 5

    /// The jobs handed over and not yet taken by a thread, first to run first: no more than the pages in flight.
    private let jobs = Mutex<[@Sendable () -> Void]>([])
    /// Counts the jobs handed over and not yet taken by a thread.
    private let waiting = DispatchSemaphore(value: 0)
    /// Set while ``shared`` is made, before any job is handed over.
    private let started = Atomic<Int>(0)

    private init() {}

    /// Runs `job` on one of the threads, after the jobs handed over before it have started.
    func run(_ job: @escaping @Sendable () -> Void) {
        guard count > 0 else { return job() }
        jobs.withLock { $0.append(job) }
        waiting.signal()
    }

    /// Starts a thread running ``work()``; returns whether it started.
    private func startThread() -> Bool {
        var thread = pthread_t()
        let context = Unmanaged.passRetained(self).toOpaque()
        let created = pthread_create(
            &thread, nil,
            { context in
                guard let context else { return nil }
                Unmanaged<ParquetCompressionThreads>.fromOpaque(context).takeRetainedValue().work()
                return nil
            }, context)
        guard created == 0 else {
            Unmanaged<ParquetCompressionThreads>.fromOpaque(context).release()
            return false
        }
        pthread_detach(thread)
        return true
    }

    /// A thread's loop: lowers its own priority, then runs each job it takes, for good.
    private func work() {
        _ = ferry_name_this_thread("ferry-compress")
        _ = setpriority(Self.priorityOfThread, 0, Self.niceValue)
        while true {
            waiting.wait()
            let job = jobs.withLock { $0.removeFirst() }
            job()
        }
    }

    /// The threads' `nice` value: the process's (its main thread's) plus ``niceIncrement``, at most 19. A thread
    /// starts with the `nice` value of the thread that started it, which need not be the process's.
    static var niceValue: Int32 {
        errno = 0
        let process = getpriority(priorityOfThread, id_t(getpid()))
        // -1 with errno set: the process's value is unknown, so take the default's.
        return min(19, (errno == 0 ? process : 0) + niceIncrement)
    }

    /// `PRIO_PROCESS`, which Linux applies to one thread: the calling one for 0, else the thread of that ID (the
    /// main thread's is the process's ID).
    static let priorityOfThread = __priority_which_t(PRIO_PROCESS.rawValue)
}

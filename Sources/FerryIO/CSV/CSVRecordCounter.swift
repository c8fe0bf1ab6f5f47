import Dispatch
import Synchronization

#if canImport(Glibc)
    import Glibc
#else
    import Darwin
#endif

/// Counts the data records of a CSV or TSV file on every core: the file is cut into parts at line ends, and each
/// part is parsed by libcsv on a thread of its own.
///
/// A cut is only a guess: the line end may lie inside a quoted field. Each part is therefore parsed as if it began
/// the input, and its count is used only when the part before it ended where a record starts; otherwise that
/// part's parser goes on through the next part itself, so the count is always that of one parse from the start.
///
/// The count is that of a ``CSVReader`` with the same dialect, which this counter only stands in for when the file
/// is valid: whenever the reader would fail or repair something (a malformed quote, bad UTF-8, a NUL byte, an
/// oversized field, records of different widths, an unterminated quote), ``count(progress:)`` returns `nil`, and
/// a ``CSVReader`` must read the file to give the error with its exact line and column. Standard input, files
/// other than regular files and dialects that trim spaces are never counted here (`nil` too).
///
/// ```swift
/// let counter = CSVRecordCounter(path: "products.csv")
/// if let records = counter.count() { print(records) }
/// ```
public struct CSVRecordCounter: Sendable {
    /// The file to count.
    public let path: String
    /// The dialect the file is read with.
    public let dialect: CSVDialect
    /// Parts parsed at once, at most.
    public let partCount: Int
    /// Bytes read from the file at a time, per part.
    public let readBufferSize: Int
    /// The smallest part: a smaller file is parsed in fewer parts.
    let minimumPartBytes: Int

    /// A counter for `path` read with `dialect`.
    ///
    /// - Parameters:
    ///   - partCount: parts parsed at once; by default the number of active processors.
    ///   - readBufferSize: bytes read at a time by each part.
    public init(
        path: String, dialect: CSVDialect = .csv, partCount: Int? = nil, readBufferSize: Int = 256 * 1024
    ) {
        self.init(
            path: path, dialect: dialect, partCount: partCount, readBufferSize: readBufferSize,
            minimumPartBytes: 4 * 1024 * 1024)
    }

    /// A counter whose parts may be as small as `minimumPartBytes` (tests cut small files into many parts).
    init(path: String, dialect: CSVDialect, partCount: Int?, readBufferSize: Int, minimumPartBytes: Int) {
        precondition(readBufferSize > 0 && minimumPartBytes > 0, "sizes must be positive")
        self.path = path
        self.dialect = dialect
        self.partCount = max(1, partCount ?? ProcessInfoCores.active)
        self.readBufferSize = readBufferSize
        self.minimumPartBytes = minimumPartBytes
    }

    /// The number of data records (a header not counted), or `nil` when the file must be read by a ``CSVReader``
    /// instead: it cannot be opened or is not a regular file, the dialect trims spaces, or the reader would fail or
    /// repair something.
    ///
    /// - Parameter progress: called now and then, on one thread at a time, with the bytes parsed and records counted
    ///   so far (records of a part whose count is not used yet included).
    public func count(progress: (@Sendable (_ bytesRead: Int, _ records: Int) -> Void)? = nil) -> Int? {
        guard path != "-", !dialect.trimsSpaces else { return nil }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else { return nil }
        let size = Int(status.st_size)
        guard let bounds = partBounds(descriptor: descriptor, size: size) else { return nil }
        let parts = (0..<bounds.count - 1).map { _ in
            CSVSegmentCounter(dialect: dialect, readBufferSize: readBufferSize)
        }
        let tally = CSVCountTally()
        DispatchQueue.concurrentPerform(iterations: parts.count) { index in
            parts[index].parse(descriptor: descriptor, range: bounds[index]..<bounds[index + 1]) { bytes, records in
                tally.add(bytes: bytes, records: records)
                if index == 0, let progress { progress(tally.bytes, tally.records) }
            }
        }
        return combine(parts, bounds: bounds, descriptor: descriptor)
    }

    /// Where the parts start: after a UTF-8 byte-order mark, then after the first LF at or past each even share
    /// of the file, and the file's size last. `nil` when the file cannot be read.
    private func partBounds(descriptor: Int32, size: Int) -> [Int]? {
        var mark: (UInt8, UInt8, UInt8) = (0, 0, 0)
        let markBytes = size >= 3 ? pread(descriptor, &mark, 3, 0) : 0
        guard markBytes >= 0 else { return nil }
        let start = markBytes == 3 && mark == (0xEF, 0xBB, 0xBF) ? 3 : 0
        var bounds = [start]
        let parts = min(partCount, max(1, size / minimumPartBytes))
        var window = [UInt8](repeating: 0, count: 64 * 1024)
        for part in 1..<max(parts, 1) {
            var cursor = max(size / parts * part, bounds[bounds.count - 1])
            var cut: Int?
            // The first LF from the share's start on; none before the next share means no cut here.
            while cut == nil && cursor < min(size, size / parts * (part + 1)) {
                let count = window.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, off_t(cursor)) }
                guard count > 0 else { return nil }
                if let index = window[0..<count].firstIndex(of: 0x0A) { cut = cursor + index + 1 }
                cursor += count
            }
            if let cut, cut < size, cut > bounds[bounds.count - 1] { bounds.append(cut) }
        }
        bounds.append(size)
        return bounds
    }

    /// Adds up the parts' counts: a part whose predecessor did not end at a record start is parsed again by that
    /// predecessor, which goes on until it ends at one, or at the end of the file.
    private func combine(_ parts: [CSVSegmentCounter], bounds: [Int], descriptor: Int32) -> Int? {
        var records = 0
        var width = -1
        var index = 0
        while index < parts.count {
            let part = parts[index]
            var next = index + 1
            while next < parts.count && !part.isAbandoned && !part.isAtRecordStart {
                part.parse(descriptor: descriptor, range: bounds[next]..<bounds[next + 1])
                next += 1
            }
            if next == parts.count { part.finish() }
            guard !part.isAbandoned else { return nil }
            if !dialect.allowsRaggedRows && part.firstWidth >= 0 {
                // Every record must be as wide as the first (the header, if any), in every part.
                if part.widthsDiffer || (width >= 0 && part.firstWidth != width) { return nil }
                width = part.firstWidth
            }
            records += part.records
            index = next
        }
        return dialect.hasHeader ? max(0, records - 1) : records
    }
}

/// The bytes and records the parts of a count have got through, for progress.
private final class CSVCountTally: Sendable {
    private let byteTotal = Atomic<Int>(0)
    private let recordTotal = Atomic<Int>(0)

    var bytes: Int { byteTotal.load(ordering: .relaxed) }
    var records: Int { recordTotal.load(ordering: .relaxed) }

    func add(bytes: Int, records: Int) {
        byteTotal.add(bytes, ordering: .relaxed)
        recordTotal.add(records, ordering: .relaxed)
    }
}

/// The number of processors available to this process.
private enum ProcessInfoCores {
    static var active: Int { max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))) }
}

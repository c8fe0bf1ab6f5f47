import Dispatch

/// Writes a Parquet file, row by row, in memory bounded by one row group.
///
/// Each row's values are written in column order with the call for the column's type, then ``endRow()`` (or runs of
/// rows column by column, with ``writeRows(_:_:)``); a row group ends when it reaches ``Options/rowGroupRows`` rows or
/// ``Options/rowGroupBytes`` bytes of pages (as encoded, before compression) and is written out on a thread of its
/// own while the next one is encoded, and ``finish()`` writes the footer and moves the file into place (see
/// ``OutputFile``):
///
/// ```swift
/// let writer = try ParquetWriter(path: "products.parquet", columns: [
///     ParquetColumn(name: "sku", type: .string, isOptional: false),
///     ParquetColumn(name: "price", type: .decimal(precision: 10, scale: 2)),
///     ParquetColumn(name: "stock", type: .int32),
/// ])
/// try writer.write(string: "TEA-001")
/// try writer.write(decimalText: "12.50")
/// try writer.writeNull()
/// try writer.endRow()
/// try writer.finish()          // the file appears only now
/// ```
///
/// The file uses data pages v1, PLAIN and RLE_DICTIONARY encodings with RLE/bit-packed definition levels (for
/// optional columns only), column statistics (minimum, maximum, null count) in the footer, and the compression of
/// ``Options/compression``, done on worker threads, several pages at once, while the next pages are encoded (see
/// ``Options/compressesConcurrently``). Writing a value allocates nothing once the buffers have grown to a page's
/// size.
///
/// A dataset of many files is written by one writer going on from file to file: ``reopen(at:observer:)`` after
/// ``finish()``, or ``finishInBackground(continuingAt:observer:completion:)``, which ends each file on a thread of its
/// own while the next is written.
public final class ParquetWriter {
    /// How the file is laid out.
    public struct Options: Sendable, Hashable {
        /// The page compression; Zstandard unless told otherwise.
        public var compression: ParquetCompression = .zstd
        /// Zstandard's level, from 1 (fastest) to 22 (smallest; ``zstdLevels``); ignored by the other codecs.
        ///
        /// 1 by default, as Apache Arrow's writer does: compressing is the largest single cost of writing a file,
        /// and level 1 takes about a tenth less CPU time than level 3 for files about a tenth larger (typical
        /// tabular data; still within 1.2 times what level 3 gives). Choose 3 or more when size matters more than
        /// time.
        public var zstdLevel = 1
        /// The most rows in one row group.
        public var rowGroupRows = 1_048_576
        /// The most bytes one row group's pages take, as encoded before compression; the row group is written out
        /// when it reaches them.
        public var rowGroupBytes = 128 * 1024 * 1024
        /// ``rowGroupBytes`` in whole mebibytes (rounded down); setting more than `Int.max` bytes sets `Int.max`.
        public var rowGroupMebibytes: Int {
            get { rowGroupBytes >> 20 }
            set { rowGroupBytes = newValue > Int.max >> 20 ? .max : newValue << 20 }
        }
        /// The size at which a data page ends (its values before compression).
        public var pageBytes = 1024 * 1024
        /// The size at which a column chunk's dictionary stops growing and later pages fall back to PLAIN. A
        /// column's dictionary and its hash table take up to five times this in memory (8-byte numbers: 16-byte
        /// slots, at most half of them used).
        public var dictionaryBytes = 512 * 1024
        /// Whether values are dictionary-encoded at all.
        public var usesDictionary = true
        /// Whether pages are compressed on worker threads, several at once, while the next ones are encoded (the
        /// default), or on the writing thread. The file's bytes are the same either way.
        public var compressesConcurrently = true
        /// Whether `uuid` columns are written as STRING holding the lower-case `8-4-4-4-12` text, rather than as
        /// FIXED_LEN_BYTE_ARRAY(16) annotated UUID (the default, which DuckDB and pyarrow read as UUIDs): for readers
        /// without Parquet's UUID type, such as Apache Spark, which refuses a file with such a column. Values are
        /// given as their 16 bytes either way.
        public var writesUUIDsAsText = false

        /// The Zstandard levels a writer accepts.
        public static let zstdLevels = 1...22

        /// The defaults: Zstandard at level 1, row groups of 1M rows or 128 MiB, pages of 1 MiB, dictionaries to
        /// 512 KiB.
        public init() {}
    }

    /// The destination path.
    public var path: String { output.path }
    /// The columns, in order, as the file declares them: a `uuid` column is a `string` one with
    /// ``Options/writesUUIDsAsText``.
    public let columns: [ParquetColumn]
    /// The options the file is written with.
    public let options: Options
    /// Rows ended so far.
    public var rowCount: Int { state.pointee.rowCount }
    /// Bytes written to the file so far: the row groups ended, once the one being written out in the background is
    /// (this waits for it), and the footer after ``finish()``.
    public var bytesWritten: Int {
        waitForFileFinishing()
        return output.bytesWritten
    }

    /// The file being written.
    private var output: OutputFile { rowGroups.output }
    /// Compresses the pages of every column.
    private let pages: ParquetPageQueue
    /// The column writers, in memory of their own: values are written into them in place, without the reference
    /// counting and exclusivity checks of class properties.
    private let writers: UnsafeMutablePointer<ParquetColumnWriter>
    private let state: UnsafeMutablePointer<State>
    /// The file's row groups written out so far, in the background.
    private var rowGroups: ParquetWrittenRowGroups
    private var finished = false
    /// The chunk buffers of the row group (or the file) being written out in the background, the columns' next ones
    /// once it is done; `nil` until a row group ends.
    private var spareChunks: [ParquetChunkBuffer]?
    /// Writes row groups out and finishes files in the background, one at a time, in order.
    private lazy var finisher = DispatchQueue(label: "ferry.parquet.finish")
    /// Entered while a row group is written out or a file finished in the background.
    private let finishing = DispatchGroup()

    private struct State {
        /// The column the next value goes to.
        var current = 0
        var rowCount = 0
        var rowGroupStart = 0
    }

    /// Opens `path` for writing `columns` (at least one, with distinct names); `observer` sees every byte as
    /// it goes out (see ``OutputFile/observer``).
    ///
    /// - Throws: ``FerryIOError`` `.invalidValue` when ``Options/zstdLevel`` is outside ``Options/zstdLevels`` (with
    ///   Zstandard) or ``Options/rowGroupRows`` or ``Options/rowGroupBytes`` is not positive, ``FerryIOError`` when the
    ///   file cannot be created.
    public init(
        path: String, columns: [ParquetColumn], options: Options = Options(),
        observer: ((UnsafeRawBufferPointer) -> Void)? = nil
    ) throws {
        precondition(!columns.isEmpty, "a Parquet file needs at least one column")
        for column in columns {
            if case .decimal(let precision, let scale) = column.type {
                precondition(
                    (1...ParquetValueType.maxDecimalPrecision).contains(precision) && (0...precision).contains(scale),
                    "decimal precision must be 1...38 and scale 0...precision")
            }
        }
        guard options.compression != .zstd || Options.zstdLevels.contains(options.zstdLevel) else {
            throw FerryIOError(
                .invalidValue, "zstd level \(options.zstdLevel) is outside 1...22 (1 fastest, 22 smallest)", file: path)
        }
        guard options.rowGroupRows > 0, options.rowGroupBytes > 0 else {
            throw FerryIOError(
                .invalidValue,
                "a row group must be allowed at least one row and one byte; the options allow \(options.rowGroupRows) "
                    + "rows and \(options.rowGroupBytes) bytes", file: path)
        }
        let writesAsText = { (column: ParquetColumn) in options.writesUUIDsAsText && column.type == .uuid }
        self.columns = columns.map { column in
            guard writesAsText(column) else { return column }
            return ParquetColumn(name: column.name, type: .string, isOptional: column.isOptional)
        }
        self.options = options
        let output = try OutputFile(path: path)
        output.observer = observer
        rowGroups = ParquetWrittenRowGroups(output: output)
        pages = ParquetPageQueue(
            compression: options.compression, level: Int32(options.zstdLevel),
            concurrent: options.compressesConcurrently, columns: columns.count, pageBytes: options.pageBytes)
        writers = .allocate(capacity: columns.count)
        for (index, column) in self.columns.enumerated() {
            (writers + index).initialize(
                to: ParquetColumnWriter(
                    column: column, writesUUIDText: writesAsText(columns[index]), options: options,
                    chunk: ParquetChunkBuffer(outputPath: path), pages: pages))
        }
        state = .allocate(capacity: 1)
        state.initialize(to: State())
        try ParquetFormat.magic.withUnsafeBytes { try output.write($0) }
    }

    deinit {
        // A file finished in the background uses the page queue and the spare chunks until it is done.
        finishing.wait()
        for index in 0..<columns.count { writers[index].deallocate() }
        writers.deinitialize(count: columns.count)
        writers.deallocate()
        state.deinitialize(count: 1)
        state.deallocate()
    }

    // MARK: Values

    /// Writes a null as the next value.
    ///
    /// - Throws: ``FerryIOError`` `.invalidValue` when the column is required.
    public func writeNull() throws {
        var values = try nextValues()
        try values.appendNull()
    }

    /// Writes an integer: for `int16`, `int32`, `int64` and `timestampMicros` columns (microseconds since
    /// 1970-01-01T00:00:00Z), and unscaled values of decimal columns up to 18 digits.
    ///
    /// - Throws: ``FerryIOError`` `.invalidValue` when the value is outside the column's integer type.
    public func write(integer value: Int64) throws {
        var values = try nextValues()
        try values.append(integer: value)
    }

    /// Writes a floating-point value to a `float` or `double` column.
    public func write(real value: Double) throws {
        var values = try nextValues()
        try values.append(real: value)
    }

    /// Writes a boolean to a `boolean` column.
    public func write(boolean value: Bool) throws {
        var values = try nextValues()
        try values.append(boolean: value)
    }

    /// Writes bytes to a `string` column (UTF-8), a `binary` column, or a `uuid` column (its 16 bytes).
    ///
    /// - Throws: ``FerryIOError`` `.invalidValue` for a UUID that is not 16 bytes.
    public func write(bytes value: UnsafeRawBufferPointer) throws {
        var values = try nextValues()
        try values.append(bytes: value)
    }

    /// Writes a string to a `string` column.
    public func write(string value: String) throws {
        var value = value
        try value.withUTF8 { try write(bytes: UnsafeRawBufferPointer($0)) }
    }

    /// Writes a decimal given as text (`-12.50`) to a `decimal` column, exactly.
    ///
    /// - Throws: ``FerryIOError`` `.invalidValue` when the text is not a number, has more significant digits than
    ///   the column's precision, or more fraction digits than its scale (other than trailing zeros).
    public func write(decimalText text: UnsafeRawBufferPointer) throws {
        var values = try nextValues()
        try values.append(decimalText: text)
    }

    /// Writes the next `count` rows column by column: `body` is called with each column's index in turn, a run of
    /// the rows (offsets from the first of the `count`) and the column's values, to which it adds one value per row
    /// of the run, in order; then the same for the next run, until `count` rows are written. Runs end where a row
    /// group may end (every 1024 rows of a group), so the file is the one that writing the same rows row by row
    /// gives.
    ///
    /// Writing a column's values in one loop keeps that column's state at hand and leaves the choice of how to
    /// convert them out of the loop: it costs less per value than writing row by row.
    ///
    /// ```swift
    /// try writer.writeRows(prices.count) { column, rows, values in
    ///     for row in rows {
    ///         if column == 0 { try values.append(bytes: skus[row]) } else { try values.append(real: prices[row]) }
    ///     }
    /// }
    /// ```
    ///
    /// - Throws: what `body` throws (the writer is then unusable: the file cannot be finished), or ``FerryIOError``
    ///   when writing a full row group out fails.
    public func writeRows(
        _ count: Int, _ body: (_ column: Int, _ rows: Range<Int>, _ values: inout ParquetColumnValues) throws -> Void
    ) throws {
        precondition(state.pointee.current == 0, "writeRows(_:_:) in the middle of a row")
        var done = 0
        while done < count {
            let inGroup = state.pointee.rowCount - state.pointee.rowGroupStart
            let run = min(count - done, options.rowGroupRows - inGroup, 1024 - (inGroup & 1023))
            let record = state.pointee.rowCount + 1
            for column in 0..<columns.count {
                var values = ParquetColumnValues(writer: writers + column, owner: self, record: record)
                try body(column, done..<(done + run), &values)
                precondition(values.record == record + run, "writeRows(_:_:) takes one value per row of each column")
            }
            state.pointee.rowCount += run
            done += run
            try endRows()
        }
    }

    /// Ends the row; columns not written get nulls.
    ///
    /// - Throws: ``FerryIOError`` `.invalidValue` when a required column was not written, or when writing a full
    ///   row group out fails.
    public func endRow() throws {
        while state.pointee.current < columns.count { try writeNull() }
        state.pointee.current = 0
        state.pointee.rowCount += 1
        try endRows()
    }

    /// Writes the row group out when the rows ended so far fill it.
    @inline(__always)
    private func endRows() throws {
        let inGroup = state.pointee.rowCount - state.pointee.rowGroupStart
        if inGroup >= options.rowGroupRows || (inGroup & 1023 == 0 && bufferedBytes >= options.rowGroupBytes) {
            try writeRowGroup()
        }
    }

    private var bufferedBytes: Int {
        (0..<columns.count).reduce(0) { $0 + writers[$1].bufferedBytes }
    }

    /// Writes the last row group and the footer, and moves the file into place, once what is written out in the
    /// background (the file's row groups before it, a file finished before it) is done.
    ///
    /// - Throws: ``FerryIOError`` when writing, syncing or renaming fails; the destination is then untouched.
    public func finish() throws {
        let ending = try end()
        waitForFileFinishing()
        _ = try ending.complete()
    }

    /// Ends the file as ``finish()`` does, and goes on at once with a new one at `path`, as
    /// ``reopen(at:observer:)`` does after ``finish()``: the file's last pages are compressed, its last row group and
    /// footer written and the file moved into place on a thread of its own, while the next file's values are encoded.
    /// A dataset of many small files, each of one row group whose pages are all compressed at its end, then keeps both
    /// compressing and encoding going instead of taking turns.
    ///
    /// `completion` is called on that thread with the finished file, or with what failed; files finish one at a time,
    /// in the order they were written, and this call first waits for the file finished before, if any, to be done.
    /// ``finish()`` and dropping the writer wait for it too.
    ///
    /// - Throws: ``FerryIOError`` when ending the file (compressing a dictionary page) or creating the next one fails;
    ///   the writer is then unusable.
    public func finishInBackground(
        continuingAt path: String, observer: ((UnsafeRawBufferPointer) -> Void)? = nil,
        completion: @escaping @Sendable (Result<ParquetFinishedFile, any Error>) -> Void
    ) throws {
        pages.allowPagesForFileEnds()
        let ending = try end()
        swapChunks()
        finishing.enter()
        finisher.async { [finishing] in
            defer { finishing.leave() }
            completion(Result { try ending.complete() })
        }
        try reopen(at: path, observer: observer)
    }

    /// Waits until the file finished in the background, if any, is done and its completion has returned, and the
    /// row group being written out, if any, is written.
    public func waitForFileFinishing() {
        finishing.wait()
    }

    /// Waits for what is written out in the background, if anything (a row group, a file's end), and gives the
    /// columns the chunk buffers it used; theirs go to the background next.
    private func swapChunks() {
        waitForFileFinishing()
        let free = spareChunks ?? columns.map { _ in ParquetChunkBuffer(outputPath: path) }
        spareChunks = (0..<columns.count).map { writers[$0].chunk }
        for index in 0..<columns.count {
            free[index].outputPath = path
            writers[index].chunk = free[index]
        }
    }

    /// Hands the last row group's pages over and seals its chunks; returns what writes the rest of the file once they
    /// are in.
    private func end() throws -> ParquetFileEnding {
        precondition(state.pointee.current == 0, "finish() in the middle of a row")
        precondition(!finished, "ParquetWriter finished twice")
        finished = true
        return ParquetFileEnding(
            rowGroups: rowGroups, last: try sealRowGroup(), pages: pages.pagesHandedOver(),
            columns: columns, codec: options.compression.codec, rows: rowCount)
    }

    /// Starts a new file at `path`, after ``finish()``, with the same columns and options, whose bytes `observer`
    /// sees: the file is the one a new writer would write, but the writer keeps its memory (its pages' buffers,
    /// dictionaries and compressors), so that a dataset of many files does not allocate and fault them in for each.
    ///
    /// - Throws: ``FerryIOError`` when the file cannot be created; the writer is then unusable.
    public func reopen(at path: String, observer: ((UnsafeRawBufferPointer) -> Void)? = nil) throws {
        precondition(finished, "reopen(at:observer:) before finish()")
        let output = try OutputFile(path: path)
        output.observer = observer
        for index in 0..<columns.count { writers[index].chunk.outputPath = path }
        rowGroups = ParquetWrittenRowGroups(output: output)
        state.pointee = State()
        finished = false
        try ParquetFormat.magic.withUnsafeBytes { try output.write($0) }
    }

    /// Hands the row group over, when it has rows, to be written out in the background once its pages are in, while
    /// the next one is encoded into the chunk buffers of the row group before it (waited for first).
    ///
    /// - Throws: what writing a row group before it out threw.
    private func writeRowGroup() throws {
        guard let group = try sealRowGroup() else { return }
        let pagesIn = pages.pagesHandedOver()
        swapChunks()
        try rowGroups.throwFailure()
        finishing.enter()
        finisher.async { [finishing, rowGroups] in
            defer { finishing.leave() }
            rowGroups.write(group, once: pagesIn)
        }
    }

    /// Hands the row group's open pages over and seals its chunks, if it has rows.
    private func sealRowGroup() throws -> ParquetSealedRowGroup? {
        let rows = state.pointee.rowCount - state.pointee.rowGroupStart
        guard rows > 0 else { return nil }
        // The open pages, largest first: the compression workers then take the longest ones first, and the others
        // fill in beside them, so that the wait for them does not end on one large page compressed alone. Each
        // chunk's pages still reach it in order, so the file is the same.
        let largestFirst = (0..<columns.count).sorted { writers[$0].openPageBytes > writers[$1].openPageBytes }
        for index in largestFirst { try writers[index].writePage() }
        let chunks = try (0..<columns.count).map { try writers[$0].sealChunk() }
        state.pointee.rowGroupStart = state.pointee.rowCount
        return ParquetSealedRowGroup(chunks: chunks, rows: rows)
    }

    /// Where the next value of the row goes.
    @inline(__always)
    private func nextValues() throws -> ParquetColumnValues {
        ParquetColumnValues(writer: try next(), owner: self, record: state.pointee.rowCount + 1)
    }

    /// The writer of the next value's column.
    @inline(__always)
    private func next() throws -> UnsafeMutablePointer<ParquetColumnWriter> {
        let current = state.pointee.current
        guard current < columns.count else {
            throw FerryIOError(
                .unknownColumn, "a row has more values than the \(columns.count) columns", file: path,
                record: rowCount + 1)
        }
        state.pointee.current = current + 1
        return writers + current
    }
}

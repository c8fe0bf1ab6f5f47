import CSnappy
import CZstd

/// How a Parquet file's pages are compressed.
public enum ParquetCompression: String, Sendable, Hashable, CaseIterable {
    /// Zstandard (the default): small files, fast to read.
    case zstd
    /// Snappy: faster to write, larger files.
    case snappy
    /// No compression.
    case uncompressed

    /// The format's `CompressionCodec` number.
    var codec: Int32 {
        switch self {
        case .uncompressed: 0
        case .snappy: 1
        case .zstd: 6
        }
    }
}

/// Compresses pages with one codec (and, for Zstandard, one reused compression context) into buffers reused from
/// page to page, so compressing allocates only when a page is larger than any before. One compressor serves one
/// thread at a time.
///
/// At Zstandard's level 1 matches start at 5 bytes (``zstdLevel1MinMatch``) instead of the library's 7 for inputs
/// of a page's size: on tabular pages (short strings, numbers, length prefixes) the shorter matches make pages
/// smaller for no more compression time. Every page is still one self-contained frame any reader decodes.
final class ParquetCompressor: @unchecked Sendable {
    // @unchecked: used by one thread at a time; a page queue hands its compressors from thread to thread through a
    // mutex-guarded pool.
    /// The shortest match searched for at Zstandard level 1.
    static let zstdLevel1MinMatch: Int32 = 5

    let compression: ParquetCompression
    private var zstd: OpaquePointer?
    /// The buffer ``compress(_:_:)`` compresses into.
    private var output = ParquetCompressedBytes()

    /// A compressor for `compression`; `level` is Zstandard's level (ignored by the others).
    init(_ compression: ParquetCompression, level: Int32) {
        self.compression = compression
        zstd = compression == .zstd ? ZSTD_createCCtx() : nil
        if let zstd {
            // Kept for every ZSTD_compress2 call (the writer checks levels to be 1...22 first).
            _ = ZSTD_CCtx_setParameter(zstd, ZSTD_c_compressionLevel, level)
            if level == 1 { _ = ZSTD_CCtx_setParameter(zstd, ZSTD_c_minMatch, Self.zstdLevel1MinMatch) }
        }
    }

    deinit {
        if let zstd { ZSTD_freeCCtx(zstd) }
    }

    /// Compresses `input` and hands the result to `body` (valid only during the call).
    ///
    /// - Throws: ``FerryIOError`` `.io` when the library reports an error, or what `body` throws.
    func compress<Result>(
        _ input: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) throws -> Result
    ) throws -> Result {
        if compression == .uncompressed { return try body(input) }
        try compress(input, into: output)
        return try body(output.bytes)
    }

    /// Compresses `input` into `output`, replacing what it held. A page of an uncompressed file is never handed here:
    /// it goes to its chunk as it is.
    ///
    /// - Throws: ``FerryIOError`` `.io` when the library reports an error.
    func compress(_ input: UnsafeRawBufferPointer, into output: ParquetCompressedBytes) throws {
        // The libraries want an address even for nothing.
        let start = input.baseAddress ?? UnsafeRawPointer(output.base)
        switch compression {
        case .uncompressed:
            preconditionFailure("an uncompressed page goes to its chunk as it is, without a copy")
        case .snappy:
            output.reserve(snappy_max_compressed_length(input.count))
            var length = output.capacity
            let status = snappy_compress(
                start.assumingMemoryBound(to: CChar.self), input.count,
                output.base.assumingMemoryBound(to: CChar.self), &length)
            guard status == SNAPPY_OK else {
                throw FerryIOError(.io, "snappy could not compress a page (status \(status.rawValue))")
            }
            output.count = length
        case .zstd:
            output.reserve(ZSTD_compressBound(input.count))
            let length = ZSTD_compress2(zstd, output.base, output.capacity, start, input.count)
            if ZSTD_isError(length) != 0 {
                throw FerryIOError(
                    .io, "zstd could not compress a page: \(String(cString: ZSTD_getErrorName(length)))")
            }
            output.count = length
        }
    }
}

/// A page's compressed bytes: a buffer that grows to the largest page compressed into it and is reused.
final class ParquetCompressedBytes {
    /// The memory, of which the first ``count`` bytes hold the last page compressed into it.
    fileprivate private(set) var base: UnsafeMutableRawPointer
    fileprivate private(set) var capacity: Int
    /// Bytes of the last page compressed into it.
    fileprivate(set) var count = 0

    /// The compressed bytes (valid until the next page is compressed into the buffer).
    var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base, count: count) }

    /// An empty buffer with room for `capacity` bytes.
    init(capacity: Int = 64 * 1024) {
        self.capacity = max(capacity, 1)
        base = .allocate(byteCount: self.capacity, alignment: 8)
    }

    deinit {
        base.deallocate()
    }

    /// Makes room for at least `capacity` bytes, dropping what the buffer held.
    fileprivate func reserve(_ capacity: Int) {
        guard self.capacity < capacity else { return }
        base.deallocate()
        base = .allocate(byteCount: capacity, alignment: 8)
        self.capacity = capacity
        count = 0
    }
}

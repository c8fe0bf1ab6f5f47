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

/// Compresses pages with one codec into a buffer reused from page to page (and, for Zstandard, one reused
/// compression context), so compressing allocates only when a page is larger than any before.
///
/// At Zstandard's level 1 matches start at 5 bytes (``zstdLevel1MinMatch``) instead of the library's 7 for inputs
/// of a page's size: on tabular pages (short strings, numbers, length prefixes) the shorter matches make pages
/// smaller for no more compression time. Every page is still one self-contained frame any reader decodes.
final class ParquetCompressor {
    /// The shortest match searched for at Zstandard level 1.
    static let zstdLevel1MinMatch: Int32 = 5

    let compression: ParquetCompression
    private let level: Int32
    private var zstd: OpaquePointer?
    /// The last page's compressed bytes (the first `count` of them).
    private var output: UnsafeMutableRawBufferPointer

    /// A compressor for `compression`; `level` is Zstandard's level (ignored by the others).
    init(_ compression: ParquetCompression, level: Int32) {
        self.compression = compression
        self.level = level
        zstd = compression == .zstd ? ZSTD_createCCtx() : nil
        output = .allocate(byteCount: 64 * 1024, alignment: 8)
        if let zstd {
            // Kept for every ZSTD_compress2 call (the writer checks levels to be 1...22 first).
            _ = ZSTD_CCtx_setParameter(zstd, ZSTD_c_compressionLevel, level)
            if level == 1 { _ = ZSTD_CCtx_setParameter(zstd, ZSTD_c_minMatch, Self.zstdLevel1MinMatch) }
        }
    }

    deinit {
        if let zstd { ZSTD_freeCCtx(zstd) }
        output.deallocate()
    }

    /// Compresses `input` and hands the result to `body` (valid only during the call).
    ///
    /// - Throws: ``FerryIOError`` `.io` when the library reports an error, or what `body` throws.
    func compress<Result>(
        _ input: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) throws -> Result
    ) throws -> Result {
        guard let start = input.baseAddress else {
            // The libraries want an address even for nothing.
            let zero: UInt8 = 0
            return try withUnsafeBytes(of: zero) {
                try compress(UnsafeRawBufferPointer(start: $0.baseAddress, count: 0), body)
            }
        }
        switch compression {
        case .uncompressed:
            return try body(input)
        case .snappy:
            ensureCapacity(snappy_max_compressed_length(input.count))
            var length = output.count
            let status = snappy_compress(
                start.assumingMemoryBound(to: CChar.self), input.count,
                output.baseAddress?.assumingMemoryBound(to: CChar.self), &length)
            guard status == SNAPPY_OK else {
                throw FerryIOError(.io, "snappy could not compress a page (status \(status.rawValue))")
            }
            return try body(UnsafeRawBufferPointer(rebasing: output[0..<length]))
        case .zstd:
            ensureCapacity(ZSTD_compressBound(input.count))
            let length = ZSTD_compress2(zstd, output.baseAddress, output.count, start, input.count)
            if ZSTD_isError(length) != 0 {
                throw FerryIOError(
                    .io, "zstd could not compress a page: \(String(cString: ZSTD_getErrorName(length)))")
            }
            return try body(UnsafeRawBufferPointer(rebasing: output[0..<length]))
        }
    }

    private func ensureCapacity(_ count: Int) {
        guard output.count < count else { return }
        output.deallocate()
        output = .allocate(byteCount: count, alignment: 8)
    }
}

import Foundation

#if canImport(Glibc)
    import Glibc
#else
    import Darwin
#endif

/// SHA-256 digests of files, for import ledgers and export and snapshot manifests, read in 1 MiB pieces so memory
/// stays flat however large the file.
package enum FileDigest {
    /// The SHA-256 of the file at `path`, as 64 lowercase hex digits, and its size in bytes.
    ///
    /// - Throws: ``StoreError`` `.fileNotFound` or `.openFailed` when the file cannot be read.
    package static func sha256(ofFileAt path: String) throws -> (hex: String, bytes: Int) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            let missing = !FileManager.default.fileExists(atPath: path)
            throw StoreError(
                missing ? .fileNotFound : .openFailed, "cannot read the file to compute its SHA-256", path: path)
        }
        defer { close(descriptor) }
        // One buffer for the whole file: reading into a fresh `Data` per piece cost a 1 MiB allocation, its page
        // faults and a copy each time, on a thread that runs beside an import's two.
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        var hasher = SHA256.Hasher()
        var total = 0
        while true {
            let count = read(descriptor, buffer.baseAddress, buffer.count)
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else {
                throw StoreError(.openFailed, "reading the file to compute its SHA-256 failed", path: path)
            }
            if count == 0 { break }
            total += count
            hasher.update(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
        }
        return (hex(hasher.finalize()), total)
    }

    /// The SHA-256 of the file at `path`, as 64 lowercase hex digits.
    ///
    /// - Throws: as ``sha256(ofFileAt:)``.
    package static func sha256Hex(ofFileAt path: String) throws -> String {
        try sha256(ofFileAt: path).hex
    }

    /// `bytes` as lowercase hex digits.
    package static func hex(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}

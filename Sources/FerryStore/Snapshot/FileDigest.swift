import Foundation

/// SHA-256 digests of files, for export and snapshot manifests: the file is read in 1 MiB pieces, so memory stays
/// flat whatever its size.
///
/// ```swift
/// let sha = try FileDigest.sha256Hex(ofFileAt: "out/products.csv")  // 64 lowercase hex digits
/// ```
///
/// The compression function is Ferry's own, like ``SHA256`` (which reads its whole message at once and is meant for
/// model texts); the two agree on the FIPS 180-2 vectors.
package enum FileDigest {
    /// The SHA-256 of the file at `path`, as 64 lowercase hex digits.
    ///
    /// - Throws: ``StoreError`` `.fileNotFound` when there is no such file, `.openFailed` when it cannot be read.
    package static func sha256Hex(ofFileAt path: String) throws -> String {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            let missing = !FileManager.default.fileExists(atPath: path)
            throw StoreError(
                missing ? .fileNotFound : .openFailed, "cannot read the file to compute its SHA-256", path: path)
        }
        defer { try? handle.close() }
        var hasher = StreamingSHA256()
        while true {
            let piece: Data?
            do {
                piece = try handle.read(upToCount: 1 << 20)
            } catch {
                throw StoreError(.openFailed, "reading the file for its SHA-256 failed: \(error)", path: path)
            }
            guard let piece, !piece.isEmpty else { break }
            piece.withUnsafeBytes { hasher.update($0) }
        }
        return hex(hasher.finalize())
    }

    /// The SHA-256 of `bytes`, as 64 lowercase hex digits.
    package static func sha256Hex(of bytes: some Sequence<UInt8>) -> String {
        var hasher = StreamingSHA256()
        Array(bytes).withUnsafeBytes { hasher.update($0) }
        return hex(hasher.finalize())
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

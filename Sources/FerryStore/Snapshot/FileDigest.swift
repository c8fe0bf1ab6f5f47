import Foundation

/// SHA-256 digests of files, for export and snapshot manifests.
package enum FileDigest {
    /// The SHA-256 of the file at `path`, as 64 lowercase hex digits.
    ///
    /// The file is read whole today (``SHA256`` has no streaming form on this branch); with a streaming hasher it
    /// should read in pieces of a few hundred KiB.
    /// - Throws: ``StoreError`` `.fileNotFound` or `.openFailed` when the file cannot be read.
    package static func sha256Hex(ofFileAt path: String) throws -> String {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path), options: .mappedIfSafe)
        } catch {
            let missing = !FileManager.default.fileExists(atPath: path)
            throw StoreError(
                missing ? .fileNotFound : .openFailed, "cannot read the file to compute its SHA-256", path: path)
        }
        return hex(SHA256.digest(data))
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

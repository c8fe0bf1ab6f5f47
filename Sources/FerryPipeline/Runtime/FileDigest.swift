import FerryStore
import Foundation

/// The SHA-256 of a file, read in 1 MiB pieces so memory stays flat however large the file.
enum FileDigest {
    /// The lower-case hex SHA-256 of the file at `path`, and its size.
    ///
    /// - Throws: ``PipelineError`` `.inputMissing` when the file cannot be opened or read.
    static func sha256(ofFileAt path: String) throws -> (hex: String, bytes: Int) {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw PipelineError(.inputMissing, "cannot open \(path) to compute its SHA-256")
        }
        defer { try? handle.close() }
        var hasher = SHA256.Hasher()
        var total = 0
        while true {
            let data: Data?
            do {
                data = try handle.read(upToCount: 1 << 20)
            } catch {
                throw PipelineError(.inputMissing, "cannot read \(path): \(error.localizedDescription)")
            }
            guard let data, !data.isEmpty else { break }
            total += data.count
            data.withUnsafeBytes { hasher.update($0) }
        }
        let digits = Array("0123456789abcdef".utf8)
        var hex: [UInt8] = []
        for byte in hasher.finalize() {
            hex.append(digits[Int(byte >> 4)])
            hex.append(digits[Int(byte & 0x0f)])
        }
        return (String(decoding: hex, as: UTF8.self), total)
    }
}

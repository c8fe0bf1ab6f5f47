internal import CLibCrypto

/// SHA-256 (FIPS 180-4): for model version hashes (a few kilobytes per model), the content addresses of externally
/// stored blobs, and the digests of inputs and exports (hundreds of megabytes, hashed beside an import that keeps
/// both cores busy).
///
/// OpenSSL's libcrypto does the work, with its SHA-NI and AVX2 code. Tested against the FIPS 180-2 vectors.
package enum SHA256 {
    /// The 32-byte digest of `bytes`.
    package static func digest(_ bytes: some Collection<UInt8>) -> [UInt8] {
        var hasher = Hasher()
        let done: Void? = bytes.withContiguousStorageIfAvailable { hasher.update(UnsafeRawBufferPointer($0)) }
        if done == nil { Array(bytes).withUnsafeBytes { hasher.update($0) } }
        return hasher.finalize()
    }

    /// A running SHA-256: feed it bytes in pieces of any size with ``update(_:)``, then take ``finalize()``.
    ///
    /// ```swift
    /// var hasher = SHA256.Hasher()
    /// data.withUnsafeBytes { hasher.update($0) }
    /// let digest = hasher.finalize()  // 32 bytes
    /// ```
    package struct Hasher {
        private var context = SHA256_CTX()

        package init() {
            SHA256_Init(&context)
        }

        /// Adds `bytes` to the message.
        package mutating func update(_ bytes: UnsafeRawBufferPointer) {
            guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
            SHA256_Update(&context, base, bytes.count)
        }

        /// The 32-byte digest of everything added.
        package mutating func finalize() -> [UInt8] {
            var digest = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
            SHA256_Final(&digest, &context)
            return digest
        }
    }

    /// The digest of `text`'s UTF-8 bytes, as 64 lowercase hex digits.
    package static func hex(of text: String) -> String {
        let digits = Array("0123456789abcdef")
        return String(digest(Array(text.utf8)).flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0x0f)]] })
    }
}

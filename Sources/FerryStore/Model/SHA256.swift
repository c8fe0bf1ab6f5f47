/// SHA-256 (FIPS 180-4): for model version hashes (a few kilobytes per model) and for the content addresses of
/// externally stored blobs (megabytes per value, so the core streams and allocates nothing per block).
///
/// Ferry's own rather than a dependency: Foundation on Linux has no CryptoKit, and swift-crypto would add
/// BoringSSL to every build. Tested against the FIPS 180-2 vectors.
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
        private var state: (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32) = (
            0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19
        )
        /// Bytes of an unfinished block (fewer than 64).
        private var pending: [UInt8] = []
        private var byteCount: UInt64 = 0

        package init() {
            pending.reserveCapacity(128)
        }

        /// Adds `bytes` to the message.
        package mutating func update(_ bytes: UnsafeRawBufferPointer) {
            byteCount &+= UInt64(bytes.count)
            var offset = 0
            if !pending.isEmpty {
                let taken = min(64 - pending.count, bytes.count)
                pending.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[0..<taken]))
                offset = taken
                guard pending.count == 64 else { return }
                let block = pending
                block.withUnsafeBytes { compress($0) }
                pending.removeAll(keepingCapacity: true)
            }
            while bytes.count - offset >= 64 {
                compress(UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + 64]))
                offset += 64
            }
            pending.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[offset...]))
        }

        /// The 32-byte digest of everything added.
        package mutating func finalize() -> [UInt8] {
            // Padding: a 1 bit, zeros up to 56 mod 64 bytes, then the length in bits, big-endian.
            var tail = pending
            tail.append(0x80)
            while tail.count % 64 != 56 { tail.append(0) }
            let bitLength = byteCount &* 8
            for shift in stride(from: 56, through: 0, by: -8) {
                tail.append(UInt8(truncatingIfNeeded: bitLength >> shift))
            }
            tail.withUnsafeBytes { bytes in
                for start in stride(from: 0, to: bytes.count, by: 64) {
                    compress(UnsafeRawBufferPointer(rebasing: bytes[start..<start + 64]))
                }
            }
            pending.removeAll()
            let words = [state.0, state.1, state.2, state.3, state.4, state.5, state.6, state.7]
            return words.flatMap { word in
                stride(from: 24, through: 0, by: -8).map { UInt8(truncatingIfNeeded: word >> $0) }
            }
        }

        /// One 64-byte block; the message schedule lives on the stack.
        private mutating func compress(_ block: UnsafeRawBufferPointer) {
            withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { schedule in
                for t in 0..<16 {
                    let i = t * 4
                    schedule[t] =
                        UInt32(block[i]) << 24 | UInt32(block[i + 1]) << 16 | UInt32(block[i + 2]) << 8
                        | UInt32(block[i + 3])
                }
                for t in 16..<64 {
                    let s0 =
                        SHA256.rotate(schedule[t - 15], 7) ^ SHA256.rotate(schedule[t - 15], 18)
                        ^ (schedule[t - 15] >> 3)
                    let s1 =
                        SHA256.rotate(schedule[t - 2], 17) ^ SHA256.rotate(schedule[t - 2], 19)
                        ^ (schedule[t - 2] >> 10)
                    schedule[t] = schedule[t - 16] &+ s0 &+ schedule[t - 7] &+ s1
                }
                var (a, b, c, d, e, f, g, h) = state
                SHA256.roundConstants.withUnsafeBufferPointer { constants in
                    for t in 0..<64 {
                        let sum1 = SHA256.rotate(e, 6) ^ SHA256.rotate(e, 11) ^ SHA256.rotate(e, 25)
                        let choice = (e & f) ^ (~e & g)
                        let temp1 = h &+ sum1 &+ choice &+ constants[t] &+ schedule[t]
                        let sum0 = SHA256.rotate(a, 2) ^ SHA256.rotate(a, 13) ^ SHA256.rotate(a, 22)
                        let majority = (a & b) ^ (a & c) ^ (b & c)
                        let temp2 = sum0 &+ majority
                        (h, g, f, e, d, c, b, a) = (g, f, e, d &+ temp1, c, b, a, temp1 &+ temp2)
                    }
                }
                state = (
                    state.0 &+ a, state.1 &+ b, state.2 &+ c, state.3 &+ d, state.4 &+ e, state.5 &+ f,
                    state.6 &+ g, state.7 &+ h
                )
            }
        }
    }

    /// The digest of `text`'s UTF-8 bytes, as 64 lowercase hex digits.
    package static func hex(of text: String) -> String {
        let digits = Array("0123456789abcdef")
        return String(digest(Array(text.utf8)).flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0x0f)]] })
    }

    @inline(__always)
    private static func rotate(_ value: UInt32, _ count: UInt32) -> UInt32 {
        value >> count | value << (32 - count)
    }

    /// The first 32 bits of the fractional parts of the cube roots of the first 64 primes.
    fileprivate static let roundConstants: [UInt32] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
    ]
}

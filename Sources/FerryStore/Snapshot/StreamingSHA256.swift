/// A running SHA-256 (FIPS 180-4): ``update(_:)`` with pieces of any size, then ``finalize()``.
struct StreamingSHA256 {
    private var state: [UInt32] = [
        0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19,
    ]
    /// Bytes of an unfinished block (fewer than 64).
    private var pending: [UInt8] = []
    private var byteCount: UInt64 = 0
    private var schedule = [UInt32](repeating: 0, count: 64)

    /// Adds `bytes` to the message.
    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        byteCount &+= UInt64(bytes.count)
        var offset = 0
        if !pending.isEmpty {
            let taken = min(64 - pending.count, bytes.count)
            pending.append(contentsOf: bytes[0..<taken])
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
        pending.append(contentsOf: bytes[offset...])
    }

    /// The 32-byte digest of everything added.
    mutating func finalize() -> [UInt8] {
        // Padding: a 1 bit, zeros up to 56 mod 64 bytes, then the length in bits, big-endian.
        var tail = pending
        tail.append(0x80)
        while tail.count % 64 != 56 { tail.append(0) }
        let bitLength = byteCount &* 8
        for shift in stride(from: 56, through: 0, by: -8) { tail.append(UInt8(truncatingIfNeeded: bitLength >> shift)) }
        tail.withUnsafeBytes { bytes in
            for start in stride(from: 0, to: bytes.count, by: 64) {
                compress(UnsafeRawBufferPointer(rebasing: bytes[start..<start + 64]))
            }
        }
        pending.removeAll()
        return state.flatMap { word in
            stride(from: 24, through: 0, by: -8).map { UInt8(truncatingIfNeeded: word >> $0) }
        }
    }

    private mutating func compress(_ block: UnsafeRawBufferPointer) {
        schedule.withUnsafeMutableBufferPointer { w in
            for t in 0..<16 {
                let i = t * 4
                w[t] =
                    UInt32(block[i]) << 24 | UInt32(block[i + 1]) << 16 | UInt32(block[i + 2]) << 8
                    | UInt32(block[i + 3])
            }
            for t in 16..<64 {
                let s0 = Self.rotate(w[t - 15], 7) ^ Self.rotate(w[t - 15], 18) ^ (w[t - 15] >> 3)
                let s1 = Self.rotate(w[t - 2], 17) ^ Self.rotate(w[t - 2], 19) ^ (w[t - 2] >> 10)
                w[t] = w[t - 16] &+ s0 &+ w[t - 7] &+ s1
            }
            state.withUnsafeMutableBufferPointer { h in
                var (a, b, c, d, e, f, g, k) = (h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7])
                for t in 0..<64 {
                    let sum1 = Self.rotate(e, 6) ^ Self.rotate(e, 11) ^ Self.rotate(e, 25)
                    let choice = (e & f) ^ (~e & g)
                    let temp1 = k &+ sum1 &+ choice &+ Self.roundConstants[t] &+ w[t]
                    let sum0 = Self.rotate(a, 2) ^ Self.rotate(a, 13) ^ Self.rotate(a, 22)
                    let majority = (a & b) ^ (a & c) ^ (b & c)
                    (k, g, f, e, d, c, b, a) = (g, f, e, d &+ temp1, c, b, a, temp1 &+ sum0 &+ majority)
                }
                h[0] &+= a
                h[1] &+= b
                h[2] &+= c
                h[3] &+= d
                h[4] &+= e
                h[5] &+= f
                h[6] &+= g
                h[7] &+= k
            }
        }
    }

    @inline(__always)
    private static func rotate(_ value: UInt32, _ count: UInt32) -> UInt32 {
        value >> count | value << (32 - count)
    }

    /// The first 32 bits of the fractional parts of the cube roots of the first 64 primes.
    private static let roundConstants: [UInt32] = [
        0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
        0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
        0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
        0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
        0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
        0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
        0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
        0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
    ]
}

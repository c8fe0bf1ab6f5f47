import FerryTestSupport
import Foundation
import Testing

@testable import FerryStore

struct FileDigestTests {
    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (
            "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        ),
    ])
    func theDigestMatchesTheFIPSVectors(text: String, hex: String) {
        #expect(FileDigest.sha256Hex(of: Array(text.utf8)) == hex)
        #expect(FileDigest.hex(SHA256.digest(Array(text.utf8))) == hex)
    }

    @Test func piecesOfAnySizeGiveTheSameDigest() {
        let message = (0..<1000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        let whole = FileDigest.hex(SHA256.digest(message))
        for size in [1, 2, 3, 7, 55, 56, 63, 64, 65, 128, 999] {
            var hasher = StreamingSHA256()
            var offset = 0
            message.withUnsafeBytes { bytes in
                while offset < bytes.count {
                    let end = min(offset + size, bytes.count)
                    hasher.update(UnsafeRawBufferPointer(rebasing: bytes[offset..<end]))
                    offset = end
                }
            }
            #expect(FileDigest.hex(hasher.finalize()) == whole, "pieces of \(size)")
        }
    }

    @Test func aFileLargerThanOneReadIsHashedWhole() throws {
        try TestSupport.withTemporaryFolder { folder in
            let bytes = (0..<(3 << 20) + 17).map { UInt8(truncatingIfNeeded: $0 &* 13) }
            let path = try TestSupport.write(bytes, to: "big.bin", in: folder)
            #expect(try FileDigest.sha256Hex(ofFileAt: path) == FileDigest.hex(SHA256.digest(bytes)))
            #expect(throws: StoreError.self) { try FileDigest.sha256Hex(ofFileAt: folder.path + "/missing") }
        }
    }
}

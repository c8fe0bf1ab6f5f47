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
    func theDigestMatchesTheFIPSVectors(text: String, hex: String) throws {
        try TestSupport.withTemporaryFolder { folder in
            let path = try TestSupport.write(Array(text.utf8), to: "vector.txt", in: folder)
            #expect(try FileDigest.sha256(ofFileAt: path) == (hex, text.utf8.count))
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

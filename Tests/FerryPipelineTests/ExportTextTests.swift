import FerryStore
import Foundation
import Testing

@testable import FerryPipeline

struct ExportTextTests {
    @Test(arguments: [
        (0.0, "1970-01-01T00:00:00Z"), (-1.0, "1969-12-31T23:59:59Z"), (951_782_400, "2000-02-29T00:00:00Z"),
        (1_767_603_600, "2026-01-05T09:00:00Z"), (1_767_603_600.5, "2026-01-05T09:00:00.5Z"),
        (1_767_603_600.123, "2026-01-05T09:00:00.123Z"), (-0.25, "1969-12-31T23:59:59.75Z"),
        (-62_135_596_800, "0001-01-01T00:00:00Z"), (253_402_300_799, "9999-12-31T23:59:59Z"),
    ])
    func datesAreISO8601InUTCWithFractionsOnlyWhenPresent(seconds: Double, text: String) {
        #expect(ISO8601Text.string(seconds: seconds) == text)
    }

    @Test(arguments: [
        (-62_135_596_800, "0001-01-01T00:00:00Z", "0001-01-01T00:00:00Z"),
        (-62_135_596_800.5, "0000-12-31T23:59:59.5Z", "0001-12-31T23:59:59.5Z BC"),
        (-62_167_219_200, "0000-01-01T00:00:00Z", "0001-01-01T00:00:00Z BC"),
        (-62_198_755_200, "-0001-01-01T00:00:00Z", "0002-01-01T00:00:00Z BC"),
    ])
    func yearsBeforeOneAreAstronomicalOrBeforeChrist(seconds: Double, astronomical: String, beforeChrist: String) {
        #expect(ISO8601Text.string(seconds: seconds) == astronomical)
        #expect(ISO8601Text.string(seconds: seconds, years: .beforeChrist) == beforeChrist)
    }

    @Test func base64MatchesFoundationForEveryTailLength() {
        for count in 0...7 {
            let bytes = (0..<count).map { UInt8(truncatingIfNeeded: $0 * 97 + 250) }
            let encoded = bytes.withUnsafeBytes { source in
                [UInt8](unsafeUninitializedCapacity: Base64Text.encodedCount(count)) { buffer, initialized in
                    Base64Text.encode(source, into: UnsafeMutableRawBufferPointer(buffer))
                    initialized = Base64Text.encodedCount(count)
                }
            }
            #expect(String(decoding: encoded, as: UTF8.self) == Data(bytes).base64EncodedString(), "\(count) bytes")
        }
    }

    @Test func integersAreWrittenAsTheirDigits() {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64, alignment: 8)
        defer { buffer.deallocate() }
        for value: Int64 in [0, 7, -7, 10, 1_234_567_890, .max, .min] {
            let count = ExportFieldWriter.writeDigits(value, into: buffer)
            #expect(String(decoding: UnsafeRawBufferPointer(rebasing: buffer[0..<count]), as: UTF8.self) == "\(value)")
        }
    }
}

#if canImport(Glibc)
    import Glibc
#else
    import Darwin
#endif

import FerryIO
import FerryStore
import Foundation
import Testing

@testable import FerryPipeline

/// Integers, doubles, floats and decimals.
struct FieldConverterNumberTests {
    @Test func integersAcceptAnOptionalSignAndDigitsAfterTrimming() throws {
        let integer = try converter(.integer64)
        #expect(integer.convert("42") == .integer(42))
        #expect(integer.convert("-42") == .integer(-42))
        #expect(integer.convert("+42") == .integer(42))
        #expect(integer.convert("007") == .integer(7))
        #expect(integer.convert("-0") == .integer(0))
        #expect(integer.convert(" \t12\r\n") == .integer(12))
        #expect(integer.convert("42", kind: .number) == .integer(42))
    }

    @Test(arguments: ["1.0", "1e3", "12x", "x12", "1 2", "--1", "+-1", "-", "+", "0x10", "١٢", "½", "1_000", "1,000"])
    func integersRefuseAnythingButDigits(text: String) throws {
        #expect(try converter(.integer64).convert(text) == .failure(.invalidValue))
    }

    @Test func aJSONNumberWithAFractionIsNotSilentlyMadeAnInteger() throws {
        let integer = try converter(.integer32)
        #expect(integer.convert("2.0", kind: .number) == .failure(.invalidValue))
        #expect(integer.convert("2e0", kind: .number) == .failure(.invalidValue))
        #expect(integer.convert("true", kind: .boolean) == .failure(.wrongKind))
        #expect(integer.convert("[1]", kind: .json) == .failure(.wrongKind))
    }

    @Test func integersAreCheckedAgainstTheirTypesRange() throws {
        let small = try converter(.integer16)
        #expect(small.convert("32767") == .integer(32767))
        #expect(small.convert("-32768") == .integer(-32768))
        #expect(small.convert("32768") == .failure(.outOfRange))
        #expect(small.convert("-32769") == .failure(.outOfRange))

        let medium = try converter(.integer32)
        #expect(medium.convert("2147483647") == .integer(2_147_483_647))
        #expect(medium.convert("-2147483649") == .failure(.outOfRange))

        let large = try converter(.integer64)
        #expect(large.convert("9223372036854775807") == .integer(.max))
        #expect(large.convert("-9223372036854775808") == .integer(.min))
        #expect(large.convert("9223372036854775808") == .failure(.outOfRange))
        #expect(large.convert("-9223372036854775809") == .failure(.outOfRange))
        #expect(large.convert("123456789012345678901234567890") == .failure(.outOfRange))
        #expect(large.convert("123456789012345678901234567890x") == .failure(.invalidValue))
    }

    @Test func aNarrowerIntegerRangeIsEnforcedAndClampedToTheType() throws {
        let percent = try converter(.integer16, integerRange: 0...100)
        #expect(percent.convert("100") == .integer(100))
        #expect(percent.convert("101") == .failure(.outOfRange))
        #expect(percent.failure("-1")?.message == "expected an integer16 (0...100)")

        let clamped = try converter(.integer16, integerRange: -1_000_000...5)
        #expect(clamped.failure("x")?.message == "expected an integer16 (-32768...5)")
    }

    @Test func integerFailuresSayTheTypeAndRange() throws {
        let failure = try #require(try converter(.integer32).failure("12.5"))
        #expect(failure.code == .invalidValue)
        #expect(failure.message == "expected an integer32 (-2147483648...2147483647)")
        #expect(failure.excerpt == "12.5")
        #expect(failure.expandedDescription == "expected an integer32 (-2147483648...2147483647), got \"12.5\"")
        #expect(failure.description == failure.message, "the plain description carries no row data")
    }

    @Test func doublesAcceptDecimalNumbersWithExponents() throws {
        let double = try converter(.double)
        #expect(double.convert("12.5") == .real(12.5))
        #expect(double.convert("-12.5") == .real(-12.5))
        #expect(double.convert("+.5") == .real(0.5))
        #expect(double.convert("5.") == .real(5))
        #expect(double.convert("1.5e3") == .real(1500))
        #expect(double.convert("1E-2") == .real(0.01))
        #expect(double.convert("42") == .real(42))
        #expect(double.convert(" 0.1 ") == .real(0.1))
        #expect(double.convert("1e-400") == .real(0), "an underflow is zero, as strtod gives")
        #expect(double.convert("2.5", kind: .number) == .real(2.5))
        #expect(
            double.convert(
                "179769313486231570000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
            ) == .real(.greatestFiniteMagnitude))
    }

    @Test(arguments: [
        "0", "-0", "-0.0", "+0e5", "9403.07", "100.968", "0.1", "4.35", "1e22", "1e23", "1e-22", "1e-23", ".5e-21",
        "9007199254740992", "9007199254740993", "9007199254740992e22", "9007199254740993e-22",
        "1234567890123456789", "12345678901234567890", "1234567890123456789e-22", "0.0000000000000000001",
        "00000000000000000000000012.5", "123456789012345678.9", "1e1000", "2.2250738585072011e-308", "5e-324",
        "179769313486231570000000000000000000000000000000000000000000000000000000000000000000000000000000000e210",
    ])
    func doublesAreReadBitForBitAsStrtodReadsThem(text: String) throws {
        let expected = strtod(text, nil)
        let read = text.utf8.withContiguousStorageIfAvailable {
            FieldConverter.parseDouble(UnsafeRawBufferPointer($0))
        }
        switch read {
        case .success(let value): #expect(value.bitPattern == expected.bitPattern, "\(value) against \(expected)")
        case .failure: #expect(!expected.isFinite, "strtod reads \(expected)")
        case nil: Issue.record("no contiguous UTF-8")
        }
    }

    @Test func randomDecimalsAreReadBitForBitAsStrtodReadsThem() throws {
        // A fixed generator, so a failure repeats: mantissas of 1 to 20 digits, a point anywhere, exponents ±30.
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ bound: UInt64) -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return (state >> 33) % bound
        }
        var mismatches: [String] = []
        for _ in 0..<20000 {
            let digitCount = Int(next(20)) + 1
            var text = next(2) == 0 ? "" : "-"
            let point = Int(next(UInt64(digitCount + 1)))
            for index in 0..<digitCount {
                if index == point && point > 0 { text += "." }
                text += String(next(10))
            }
            if next(3) == 0 { text += "e" + String(Int(next(61)) - 30) }
            let expected = strtod(text, nil)
            let read = text.utf8.withContiguousStorageIfAvailable {
                FieldConverter.parseDouble(UnsafeRawBufferPointer($0))
            }
            guard case .success(let value) = read, value.bitPattern == expected.bitPattern else {
                mismatches.append(text)
                continue
            }
        }
        #expect(mismatches.isEmpty, "read differently from strtod: \(mismatches.prefix(10))")
    }

    @Test(arguments: [
        "nan", "NaN", "inf", "-inf", "infinity", "0x1p3", "1.2.3", "1e", "1e+", "e5", ".", "-", "1,5", "12abc", "1 2",
        "1e5x", "1d",
    ])
    func doublesRefuseWhatIsNotAPlainNumber(text: String) throws {
        #expect(try converter(.double).convert(text) == .failure(.invalidValue))
    }

    @Test func aDoubleTooLargeIsOutOfRangeAndAFloatHasItsOwnRange() throws {
        #expect(try converter(.double).convert("1e309") == .failure(.outOfRange))
        let float = try converter(.float)
        #expect(float.convert("3.4e38") == .real(3.4e38))
        #expect(float.convert("-3.5e38") == .failure(.outOfRange))
        #expect(float.convert("0.1") == .real(0.1), "floats are stored as the double read, as the store does")
        // The largest float's shortest text, which an export writes for it, is a little above it but rounds to it.
        let largest = "\(Float.greatestFiniteMagnitude)"
        #expect(largest == "3.4028235e+38")
        #expect(float.convert(largest) == .real(3.4028235e38))
        #expect(float.convert("-3.4028235e38") == .real(-3.4028235e38))
        #expect(float.convert("3.4028236e38") == .failure(.outOfRange), "rounds to infinity as a float")
    }

    /// Inputs whose canonical text must be exactly what `NSDecimalString` prints for `Decimal(string:)` of them.
    static let decimalInputs = [
        "24.90", "007", "-0.0", "1e3", "0.000", "0.5", "-0.5", ".5", "5.", "+3", "1E2", "0e5", "100", "1.0e1",
        "-12.3400", "1.5e-3", "1e-50", "1e50", "1e127", "1e-128", "-1e127", "9.99", "0.1", "-0.001", "123.456",
        "12345678901234567890123456789012345678", "99999999999999999999999999999999999999",
        "0.12345678901234567890123456789012345678", "1234567890123456789012345678901234567.8",
        "0.00000000000000000000000000000000000000000001234", "12345678901234567890123456789012345678e89",
        "1.2345678901234567890123456789012345678e-90", "000000000000000000000000000000000000000000001",
        "1.00000000000000000000000000000000000000000000", "-0", "10", "1010", "0.010", "3.14159265358979323846",
        "1.5e127", "15e126",
    ]

    @Test(arguments: decimalInputs)
    func decimalTextIsExactlyWhatNSDecimalStringPrints(input: String) throws {
        var decimal = try #require(Decimal(string: input, locale: Locale(identifier: "en_US_POSIX")))
        let expected = NSDecimalString(&decimal, Locale(identifier: "en_US_POSIX"))
        #expect(try converter(.decimal).convert(input) == .text(expected))
    }

    @Test func decimalsAcceptJSONNumbersAndTrimmedStrings() throws {
        let decimal = try converter(.decimal)
        #expect(decimal.convert("24.90", kind: .number) == .text("24.9"))
        #expect(decimal.convert(" 9.95 ") == .text("9.95"))
    }

    @Test(arguments: ["123456789012345678901234567890123456789", "1e128", "1e-129", "10e127", "1e1000000000"])
    func decimalsRefuseWhatADecimalCannotHoldExactly(input: String) throws {
        #expect(try converter(.decimal).convert(input) == .failure(.outOfRange))
        // 39 digits fit Decimal but not our rule; 10e127 fits it unnormalized (a fringe our rule refuses).
        if !["123456789012345678901234567890123456789", "10e127"].contains(input) {
            #expect(Decimal(string: input, locale: Locale(identifier: "en_US_POSIX")) == nil, "Decimal refuses it too")
        }
    }

    @Test(arguments: ["nan", "1.2.3", "12x", "e5", "", "1e", "0x10", "1,5"])
    func decimalsRefuseWhatIsNotANumber(input: String) throws {
        let expected: Converted = input.isEmpty ? .null : .failure(.invalidValue)
        #expect(try converter(.decimal).convert(input) == expected)
    }

    @Test func zeroIsZeroWhateverItsExponent() throws {
        #expect(try converter(.decimal).convert("-0e99999999999") == .text("0"))
    }
}

import Foundation
import Testing

@testable import FerryStore

/// The allocation-free appenders an importer uses write exactly what the store's codec writes for the same values.
struct PackedRowsStoredFormTests {
    /// The cells two ways: the hot-path appender (`fast`) and the codec's ``PackedRows/append(_:as:)`` of `value`.
    private static func bothWays(
        _ value: AttributeValue, as type: AttributeType, fast: (inout PackedRows) -> Void
    ) -> (fast: AttributeValue?, codec: AttributeValue?, sameCells: Bool) {
        var rows = PackedRows(columns: ["fast", "codec"])
        fast(&rows)
        rows.append(value, as: type)
        rows.endRow()
        let cells = (rows.cell(row: 0, column: 0), rows.cell(row: 0, column: 1))
        let fastBytes = rows.withBytes(of: cells.0) { Array($0) }
        let codecBytes = rows.withBytes(of: cells.1) { Array($0) }
        let sameKind: Bool
        switch cells {
        case (.integer(let a), .integer(let b)): sameKind = a == b
        case (.real(let a), .real(let b)): sameKind = a.bitPattern == b.bitPattern
        case (.text, .text), (.blob, .blob): sameKind = fastBytes == codecBytes
        default: sameKind = false
        }
        return (rows.value(row: 0, column: 0, as: type), rows.value(row: 0, column: 1, as: type), sameKind)
    }

    @Test(arguments: [
        "24.90", "007", "-0.0", "1e3", "0.000", ".5", "5.", "+3", "-12.3400", "1.5e-3", "1e-50", "1e127",
        "12345678901234567890123456789012345678", "0.00000000000000000000000000000000000000000001234",
    ])
    func aDecimalParsedFromTextIsStoredAsTheCodecStoresIt(text: String) throws {
        let decimal = try #require(Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")))
        let result = Self.bothWays(.decimal(decimal), as: .decimal) { rows in
            var copy = text
            copy.withUTF8 { bytes in
                let source = UnsafeRawBufferPointer(bytes)
                guard case .success(let number) = DecimalText.parse(source) else { return rows.appendNull() }
                rows.appendDecimal(number, parsedFrom: source)
            }
        }
        #expect(result.sameCells, "\(text)")
        #expect(result.fast == .decimal(decimal))
    }

    @Test func uuidsBooleansAndDatesAreStoredAsTheCodecStoresThem() throws {
        let uuid = try #require(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
        for text in [uuid.uuidString, uuid.uuidString.lowercased()] {
            var copy = text
            let result = Self.bothWays(.uuid(uuid), as: .uuid) { rows in
                copy.withUTF8 { rows.appendUUID(text: UnsafeRawBufferPointer($0)) }
            }
            #expect(result.sameCells && result.fast == .uuid(uuid), "\(text)")
        }
        for flag in [true, false] {
            let result = Self.bothWays(.boolean(flag), as: .boolean) { $0.appendBoolean(flag) }
            #expect(result.sameCells && result.fast == .boolean(flag))
        }
        let date = Date(timeIntervalSince1970: 1_767_603_600.25)
        let result = Self.bothWays(.date(date), as: .date) { $0.appendDate(secondsSince1970: 1_767_603_600.25) }
        #expect(result.sameCells && result.fast == .date(date))
    }
}

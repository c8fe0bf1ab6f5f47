import Foundation
import Testing

@testable import FerryStore

/// The compact cell storage of ``PackedRows``: every cell reads back as appended, in 16 bytes.
struct PackedRowsCellsTests {
    @Test func everyKindOfCellReadsBackAsItWasAppended() {
        var rows = PackedRows(columns: ["a", "b", "c", "d", "e", "f", "g", "h"])
        rows.appendAbsent()
        rows.appendNull()
        rows.appendInteger(.min)
        rows.appendInteger(-1)
        rows.appendReal(-0.0)
        rows.appendReal(.nan)
        rows.appendText("héllo")
        let blob: [UInt8] = [0, 255, 7]
        blob.withUnsafeBytes { rows.appendBlob($0) }
        rows.endRow()
        rows.appendAbsent()
        rows.appendNull()
        rows.appendInteger(.max)
        rows.appendInteger(0)
        rows.appendReal(.infinity)
        rows.appendReal(1e-310)
        rows.appendText("")
        rows.appendText("x")
        rows.endRow()

        #expect(rows.cells.count == 16)
        #expect(rows.cell(row: 0, column: 0) == .absent)
        #expect(rows.cell(row: 0, column: 1) == .null)
        #expect(rows.cell(row: 0, column: 2) == .integer(.min))
        #expect(rows.cell(row: 0, column: 3) == .integer(-1))
        guard case .real(let negativeZero) = rows.cell(row: 0, column: 4),
            case .real(let nan) = rows.cell(row: 0, column: 5)
        else {
            Issue.record("real cells read back as another kind")
            return
        }
        #expect(negativeZero.bitPattern == (-0.0 as Double).bitPattern)
        #expect(nan.isNaN)
        #expect(rows.cell(row: 0, column: 6) == .text(offset: 0, count: 6))
        #expect(rows.cell(row: 0, column: 7) == .blob(offset: 6, count: 3))
        #expect(rows.cell(row: 1, column: 2) == .integer(.max))
        #expect(rows.cell(row: 1, column: 3) == .integer(0))
        #expect(rows.cell(row: 1, column: 4) == .real(.infinity))
        #expect(rows.cell(row: 1, column: 5) == .real(1e-310))
        #expect(rows.cell(row: 1, column: 6) == .text(offset: 9, count: 0))
        #expect(rows.cell(row: 1, column: 7) == .text(offset: 9, count: 1))
        #expect(rows.withBytes(of: rows.cell(row: 0, column: 7)) { Array($0) } == blob)
        #expect(Array(rows.cells[8...]).count == 8)
    }

    @Test func aCellTakesSixteenBytes() {
        #expect(MemoryLayout<PackedRows.Cells.Slot>.stride == 16)
    }

    @Test func aReplacedCellReadsBackAsTheReplacement() {
        var rows = PackedRows(columns: ["a", "b"])
        rows.appendText("key")
        rows.appendText("other")
        rows.endRow()
        rows.replaceCell(row: 0, column: 1, with: .integer(42))
        #expect(rows.cell(row: 0, column: 0) == .text(offset: 0, count: 3))
        #expect(rows.cell(row: 0, column: 1) == .integer(42))
    }
}

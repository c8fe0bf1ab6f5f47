import Testing
import Foundation
@testable import FerryIO
import FerryTestSupport

@Test func smoke() throws {
    try TestSupport.withTemporaryFolder { folder in
        let text = "\u{FEFF}a,b,c\r\n1,\"x,y\",\r\n2,\"multi\nline\",\"\"\r\n3,q,z"
        let path = try TestSupport.write(Array(text.utf8), to: "t.csv", in: folder)
        for size in [1, 2, 3, 7, 64, 4096] {
            let reader = try CSVReader(path: path, readBufferSize: size)
            #expect(reader.columnNames == ["a", "b", "c"])
            var rows: [[String?]] = []
            var lines: [Int] = []
            while let r = try reader.next() { rows.append(r.strings); lines.append(r.position.line) }
            #expect(rows == [["1", "x,y", nil], ["2", "multi\nline", ""], ["3", "q", "z"]], "size \(size)")
            #expect(lines == [2, 3, 5], "size \(size)")
        }
    }
}

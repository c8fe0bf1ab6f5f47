import FerryIO
import FerryStore
import FerryTestSupport
import Foundation
import Testing

@testable import FerryPipeline

/// Real records from FerryIO's readers through the converters into packed rows.
struct FieldConverterRecordTests {
    /// Every cell of `rows`, row by row.
    private func cells(_ rows: PackedRows) -> [[Converted]] {
        (0..<rows.count).map { row in
            (0..<rows.columns.count).map { Converted(cell: rows.cell(row: row, column: $0), in: rows) }
        }
    }

    private func convert(
        _ reader: some RecordReader, converters: [FieldConverter], columns: [String]
    ) throws -> (PackedRows, [String]) {
        var rows = PackedRows(columns: columns)
        var rejects: [String] = []
        while let record = try reader.next() {
            var failed: ConversionFailure?
            for (index, converter) in converters.enumerated() {
                if let failure = converter.append(record[index], to: &rows) {
                    failed = failure
                    break
                }
            }
            if let failed {
                rows.discardOpenRow()
                rejects.append("record \(record.position.record): \(failed.expandedDescription)")
            } else {
                rows.endRow()
            }
        }
        return (rows, rejects)
    }

    @Test func csvRecordsBecomePackedRowsAndBadOnesAreRejected() throws {
        let csv = """
            sku,price,quantity,active,updated,id
            P-1,24.90,3,yes,2026-01-05T09:00:00Z,123E4567-E89B-12D3-A456-426614174000
            P-2,,0,N,2026-01-05,
            P-3,1e3,many,true,2026-01-05,
            P-4,-0.0,-12,0,2026-02-30,
            "P,5",007, 7 ,T,2026-01-05 10:00:00+01:00,00000000-0000-0000-0000-000000000000

            """
        let (rows, rejects) = try TestSupport.withTemporaryFolder { folder in
            let path = try TestSupport.write(Array(csv.utf8), to: "products.csv", in: folder)
            let reader = try CSVReader(path: path)
            let converters = try [
                FieldConverter(type: .string), FieldConverter(type: .decimal), FieldConverter(type: .integer32),
                FieldConverter(type: .boolean), FieldConverter(type: .date), FieldConverter(type: .uuid),
            ]
            return try convert(reader, converters: converters, columns: try #require(reader.columnNames))
        }
        #expect(
            cells(rows) == [
                [
                    .text("P-1"), .text("24.9"), .integer(3), .integer(1), .real(1_767_603_600),
                    .text("123e4567-e89b-12d3-a456-426614174000"),
                ],
                [.text("P-2"), .null, .integer(0), .integer(0), .real(1_767_571_200), .null],
                [
                    .text("P,5"), .text("7"), .integer(7), .integer(1), .real(1_767_603_600),
                    .text("00000000-0000-0000-0000-000000000000"),
                ],
            ])
        #expect(
            rejects == [
                "record 3: expected an integer32 (-2147483648...2147483647), got \"many\"",
                "record 4: expected a date in ISO-8601 (2026-01-05T09:00:00Z), got \"2026-02-30\"",
            ])
    }

    @Test func jsonRecordsKeepTheirKindsThroughConversion() throws {
        let ndjson = """
            {"sku":"P-1","price":24.90,"quantity":3,"active":true,"tags":["red","blue"],"size":{"w":2}}
            {"sku":"P-2","price":"9.5","quantity":"4","active":"no","tags":[],"size":null}
            {"sku":"P-3","price":1,"quantity":2.0,"active":false,"tags":["x"],"size":"L"}
            {"sku":"P-4","price":1,"quantity":1,"active":[true],"tags":"plain","size":"L"}
            {"sku":"P-5","price":null,"quantity":null,"active":null,"tags":null}

            """
        let (rows, rejects) = try TestSupport.withTemporaryFolder { folder in
            let path = try TestSupport.write(Array(ndjson.utf8), to: "products.ndjson", in: folder)
            let reader = try JSONReader(path: path, layout: .ndjson)
            let options = ConversionOptions(arraySeparator: "|")
            let converters = try [
                FieldConverter(type: .string), FieldConverter(type: .decimal), FieldConverter(type: .integer16),
                FieldConverter(type: .boolean), FieldConverter(type: .string, options: options),
                FieldConverter(type: .string),
            ]
            // Fields are looked up by name, as the importer does for JSON.
            var packed = PackedRows(columns: ["sku", "price", "quantity", "active", "tags", "size"])
            var rejects: [String] = []
            while let record = try reader.next() {
                var failed: ConversionFailure?
                for (converter, name) in zip(converters, packed.columns) {
                    let failure: ConversionFailure?
                    if let field = record.field(named: name) {
                        failure = converter.append(field, to: &packed)
                    } else {
                        failure = converter.append(text: nil, to: &packed)
                    }
                    if let failure {
                        failed = failure
                        break
                    }
                }
                if let failed {
                    packed.discardOpenRow()
                    rejects.append("record \(record.position.record): \(failed.expandedDescription)")
                } else {
                    packed.endRow()
                }
            }
            return (packed, rejects)
        }
        #expect(
            cells(rows) == [
                [.text("P-1"), .text("24.9"), .integer(3), .integer(1), .text("red|blue"), .text(#"{"w":2}"#)],
                [.text("P-2"), .text("9.5"), .integer(4), .integer(0), .text(""), .null],
                [.text("P-5"), .null, .null, .null, .null, .null],
            ])
        #expect(
            rejects == [
                "record 3: expected an integer16 (-32768...32767), got \"2.0\"",
                "record 4: expected true/false (true, yes, y, t, 1 / false, no, n, f, 0), not a JSON array or object, got \"[true]\"",
            ])
    }

    @Test func contextModeValuesComeFromRecordsToo() throws {
        let csv = "when,amount\n2026-01-05T09:00:00Z,12.50\n"
        let values = try TestSupport.withTemporaryFolder { folder in
            let path = try TestSupport.write(Array(csv.utf8), to: "values.csv", in: folder)
            let reader = try CSVReader(path: path)
            let record = try #require(try reader.next())
            return (
                try FieldConverter(type: .date).value(of: record[0]).get(),
                try FieldConverter(type: .decimal).value(of: record[1]).get()
            )
        }
        #expect(values.0 == .date(Date(timeIntervalSince1970: 1_767_603_600)))
        #expect(values.1 == .decimal(Decimal(string: "12.5", locale: Locale(identifier: "en_US_POSIX")) ?? 0))
    }

    @Test func typeInferenceReadsTheKindsOfJSONFields() throws {
        let ndjson = """
            {"n":1,"x":1.5,"b":true,"d":"2026-01-05","s":["a"],"z":"007"}
            {"n":-2,"x":2,"b":false,"d":"2026-01-06T09:00:00Z","s":"b","z":null}

            """
        let types = try TestSupport.withTemporaryFolder { folder in
            let path = try TestSupport.write(Array(ndjson.utf8), to: "sample.ndjson", in: folder)
            let reader = try JSONReader(path: path, layout: .ndjson)
            var inferences = [String: TypeInference]()
            while let record = try reader.next() {
                for index in 0..<record.count {
                    inferences[record[index].name ?? "", default: TypeInference()].add(record[index])
                }
            }
            return inferences.mapValues { "\($0.inferredType)\($0.hasEmptyValues ? "?" : "")" }
        }
        #expect(types == ["n": "integer64", "x": "double", "b": "boolean", "d": "date", "s": "string", "z": "string?"])
    }
}

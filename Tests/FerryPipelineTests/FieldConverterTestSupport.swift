import FerryIO
import FerryStore
import Foundation
import Testing

@testable import FerryPipeline

/// What a conversion gave, in stored form: the cell batch mode appended, or the failure's code.
enum Converted: Equatable, CustomStringConvertible {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])
    case failure(ConversionFailure.Code)

    var description: String {
        switch self {
        case .null: "null"
        case .integer(let value): "integer(\(value))"
        case .real(let value): "real(\(value))"
        case .text(let value): "text(\(value.debugDescription))"
        case .blob(let value): "blob(\(value))"
        case .failure(let code): "failure(\(code))"
        }
    }

    /// The stored form of a context-mode value, as ``StoredValueEncoder`` would bind it.
    init(_ value: AttributeValue?) {
        switch value {
        case nil: self = .null
        case .integer(let value): self = .integer(value)
        case .boolean(let value): self = .integer(value ? 1 : 0)
        case .double(let value): self = .real(value)
        case .date(let value): self = .real(value.timeIntervalSince1970)
        case .decimal(var value): self = .text(NSDecimalString(&value, Locale(identifier: "en_US_POSIX")))
        case .string(let value): self = .text(value)
        case .uuid(let value): self = .text(value.uuidString.lowercased())
        case .uri(let value): self = .text(value.absoluteString)
        case .binary(let value), .transformable(let value): self = .blob(Array(value))
        }
    }
}

extension FieldConverter {
    /// Converts `text` (`nil` is null) in batch mode and in context mode, expects both modes to agree (same stored
    /// form, or same failure) and returns the result.
    func convert(_ text: String?, kind: FieldKind = .string, sourceLocation: SourceLocation = #_sourceLocation)
        -> Converted
    {
        let batch = batchConversion(text, kind: kind, sourceLocation: sourceLocation)
        let context: Converted
        switch value(of: text, kind: kind) {
        case .success(let value): context = Converted(value)
        case .failure(let failure): context = .failure(failure.code)
        }
        #expect(
            batch == context, "batch and context modes disagree on \(String(describing: text))",
            sourceLocation: sourceLocation)
        return batch
    }

    /// The failure converting `text` gives (batch mode), or `nil` when it converts.
    func failure(_ text: String?, kind: FieldKind = .string) -> ConversionFailure? {
        var rows = PackedRows(columns: ["value"])
        return append(text: text, kind: kind, to: &rows)
    }

    private func batchConversion(_ text: String?, kind: FieldKind, sourceLocation: SourceLocation) -> Converted {
        var rows = PackedRows(columns: ["value"])
        if let failure = append(text: text, kind: kind, to: &rows) {
            #expect(rows.openRowCellCount == 0, "a failure appends no cell", sourceLocation: sourceLocation)
            return .failure(failure.code)
        }
        #expect(rows.openRowCellCount == 1, "a success appends exactly one cell", sourceLocation: sourceLocation)
        rows.endRow()
        return Converted(cell: rows.cell(row: 0, column: 0), in: rows)
    }
}

extension Converted {
    /// A packed cell, its bytes copied out.
    init(cell: PackedRows.Cell, in rows: PackedRows) {
        switch cell {
        case .absent: preconditionFailure("converters never append an absent cell")
        case .null: self = .null
        case .integer(let value): self = .integer(value)
        case .real(let value): self = .real(value)
        case .text: self = .text(rows.withBytes(of: cell) { String(decoding: $0, as: UTF8.self) })
        case .blob: self = .blob(rows.withBytes(of: cell) { Array($0) })
        }
    }
}

/// Converters for tests, whose construction cannot fail for these types.
func converter(
    _ type: AttributeType, integerRange: ClosedRange<Int64>? = nil, options: ConversionOptions = ConversionOptions()
)
    throws -> FieldConverter
{
    try FieldConverter(type: type, integerRange: integerRange, options: options)
}

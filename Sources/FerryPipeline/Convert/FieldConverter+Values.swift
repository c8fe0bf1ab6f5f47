public import FerryIO
public import FerryStore
import Foundation

/// Context mode: values as ``AttributeValue`` for managed objects. Reads fields exactly as batch mode does.
extension FieldConverter {
    /// The value `field` holds for this attribute: `nil` for null (and, but for strings, empty).
    ///
    /// - Returns: the value, or what was expected with an excerpt of the field.
    public func value(of field: Field) -> Result<AttributeValue?, ConversionFailure> {
        let kind = field.kind
        return field.withUnsafeBytes { value(bytes: $0, kind: kind) }
    }

    /// The value `text` holds when read as a field of `kind` (`nil` is null). For constants and tests.
    ///
    /// - Returns: as ``value(of:)-(Field)``.
    public func value(of text: String?, kind: FieldKind = .string) -> Result<AttributeValue?, ConversionFailure> {
        guard var text else { return .success(nil) }
        return text.withUTF8 { value(bytes: UnsafeRawBufferPointer($0), kind: kind) }
    }

    /// The value of a field given as UTF-8 `bytes` of `kind`: the field converted to its stored form as batch mode
    /// converts it (``append(bytes:kind:to:)``), read back through the store's codec, so both modes read a field
    /// the same way by construction.
    ///
    /// - Returns: as ``value(of:)-(Field)``.
    public func value(bytes: UnsafeRawBufferPointer, kind: FieldKind) -> Result<AttributeValue?, ConversionFailure> {
        var cell = PackedRows(columns: [""])
        if let failure = append(bytes: bytes, kind: kind, to: &cell) { return .failure(failure) }
        cell.endRow()
        if case .null = cell.cell(row: 0, column: 0) { return .success(nil) }
        // The codec reads every valid stored form back; a decimal Decimal cannot hold, or a URI Foundation would
        // rewrite, does not read back and is refused here as context mode always refused it.
        guard let value = cell.value(row: 0, column: 0, as: attributeType) else {
            return .failure(failure(attributeType == .decimal ? .outOfRange : .invalid, bytes))
        }
        if case .uri(let url) = value {
            guard cell.withBytes(of: cell.cell(row: 0, column: 0), { url.absoluteString.utf8.elementsEqual($0) })
            else { return .failure(failure(.invalid, bytes)) }
        }
        return .success(value)
    }
}

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

    /// The value of a field given as UTF-8 `bytes` of `kind`.
    ///
    /// - Returns: as ``value(of:)-(Field)``.
    public func value(bytes: UnsafeRawBufferPointer, kind: FieldKind) -> Result<AttributeValue?, ConversionFailure> {
        if kind == .null { return .success(nil) }
        if case .string(let trims, let separator) = storage {
            let text = trims ? bytes.trimmingASCIIWhitespace() : bytes
            if kind == .json, let separator, let count = JSONArrayJoiner.joinedCount(text, separator: separator) {
                let joined = String(unsafeUninitializedCapacity: count) {
                    JSONArrayJoiner.write(text, separator: separator, into: UnsafeMutableRawBufferPointer($0))
                }
                return .success(.string(joined))
            }
            return .success(.string(String(decoding: text, as: UTF8.self)))
        }
        let text = bytes.trimmingASCIIWhitespace()
        if text.isEmpty { return .success(nil) }
        guard accepts(kind) else { return .failure(failure(.wrongKind(kind), bytes)) }
        switch convertedValue(text, kind: kind) {
        case .success(let value): return .success(value)
        case .failure(let rejection): return .failure(failure(rejection, bytes))
        }
    }

    private func convertedValue(_ text: UnsafeRawBufferPointer, kind: FieldKind) -> Result<AttributeValue, Rejection> {
        switch storage {
        case .integer(let range):
            return Self.parseInteger(text, in: range).map { .integer($0) }
        case .double, .float:
            return parseReal(text).map { .double($0) }
        case .decimal:
            switch DecimalText.parse(text) {
            case .success(let number):
                let canonical = String(unsafeUninitializedCapacity: number.textCount) {
                    number.write(from: text, into: UnsafeMutableRawBufferPointer($0))
                }
                guard let decimal = Decimal(string: canonical, locale: Locale(identifier: "en_US_POSIX")) else {
                    return .failure(.outOfRange)
                }
                return .success(.decimal(decimal))
            case .failure(let problem):
                return .failure(problem == .range ? .outOfRange : .invalid)
            }
        case .boolean(let tokens):
            guard let value = tokens.value(of: text, kind: kind) else { return .failure(.invalid) }
            return .success(.boolean(value))
        case .date(let formats):
            guard let seconds = Self.parseDate(text, formats: formats) else { return .failure(.invalid) }
            return .success(.date(Date(timeIntervalSince1970: seconds)))
        case .uuid:
            guard Self.isUUID(text), let uuid = UUID(uuidString: String(decoding: text, as: UTF8.self)) else {
                return .failure(.invalid)
            }
            return .success(.uuid(uuid))
        case .uri:
            let string = String(decoding: text, as: UTF8.self)
            // URL would percent-encode or rewrite other text; only text it keeps as is is accepted.
            guard Self.isURI(text), let url = URL(string: string), url.absoluteString == string else {
                return .failure(.invalid)
            }
            return .success(.uri(url))
        case .binary:
            guard let data = Base64.data(text) else { return .failure(.invalid) }
            return .success(.binary(data))
        case .string:
            preconditionFailure("strings are converted by value(bytes:kind:)")
        }
    }
}

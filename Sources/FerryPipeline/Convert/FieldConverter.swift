public import FerryIO
public import FerryStore

/// Turns one column's fields into the stored form of one attribute: built once per import for each mapped column,
/// then called for every record.
///
/// Batch mode appends each field to `PackedRows` with ``append(_:to:)``, without allocating on success; context
/// mode gets an `AttributeValue` from ``value(of:)``. Both read a field the same way:
///
/// - A null field is null. After trimming, an empty field is null for every type but string (Our rule).
/// - Integers: an optional sign and digits only (`+12`, `-7`, `007`), within the attribute's range. No `1.0`, no
///   `1e3`, and a JSON number such as `2.0` is refused too (Our rule: never silently coerce).
/// - Doubles and floats: a decimal number (`-12.5`, `.5`, `1.5e3`); no `nan`, `inf` or hexadecimal.
/// - Decimals: the same syntax, stored as exact canonical text, at most 38 significant digits.
/// - Booleans: the options' tokens, ignoring ASCII case, and JSON `true`/`false`.
/// - Dates: the options' formats, in order (``DateFormat``), stored as seconds since 1970.
/// - UUIDs: 8-4-4-4-12 hexadecimal digits in either case, stored lower-case.
/// - URIs: RFC 3986 characters only (others percent-encoded), so both modes store the text unchanged.
/// - Binary: base64 (standard alphabet, padding optional).
/// - Strings: the text as read (trimmed only when asked); JSON numbers and booleans as written; JSON arrays joined
///   with ``ConversionOptions/arraySeparator`` or kept as compact JSON text, as are JSON objects.
///
/// JSON numbers are accepted for numeric, date and boolean attributes, JSON strings holding a value for every type;
/// JSON booleans only for booleans and strings; JSON arrays and objects only for strings.
///
/// ```swift
/// let price = try FieldConverter(type: .decimal)
/// if let failure = price.append(record[3], to: &rows) { reject(record, failure.expandedDescription) }
/// ```
public struct FieldConverter: Sendable {
    /// How values are read and stored; one case per storage concern.
    enum Storage: Sendable {
        case integer(ClosedRange<Int64>)
        case double
        case float
        case decimal
        case string(trims: Bool, separator: [UInt8]?)
        case boolean(BooleanTokens)
        case date([DateFormat])
        case binary
        case uuid
        case uri
    }

    /// Why a value was refused, before it becomes a ``ConversionFailure`` (which allocates).
    enum Rejection: Error {
        case invalid
        case outOfRange
        case wrongKind(FieldKind)
    }

    /// The attribute type values are converted to.
    public let attributeType: AttributeType
    let storage: Storage
    /// `expected …`: what a failure says was expected. Built once here so the failure path only copies it.
    let expectation: String

    /// A converter for attributes of `type`.
    ///
    /// - Parameters:
    ///   - type: the attribute type values are converted to.
    ///   - integerRange: for integer types, the values accepted; `nil` means all the type can hold. It is clamped
    ///     to the type's range.
    ///   - options: trimming, tokens, date formats, array separator.
    /// - Throws: ``ConversionFailure`` `.unsupportedType` for transformable attributes ("transformable attributes
    ///   cannot be imported from a field": their bytes come from a `Codable` value and its transformer); `.invalidOptions`
    ///   when ``ConversionOptions/problem`` finds one.
    public init(
        type: AttributeType, integerRange: ClosedRange<Int64>? = nil, options: ConversionOptions = ConversionOptions()
    ) throws(ConversionFailure) {
        if let problem = options.problem { throw ConversionFailure(.invalidOptions, problem) }
        attributeType = type
        switch type {
        case .integer16, .integer32, .integer64:
            let full = type.integerRange ?? Int64.min...Int64.max
            let range = integerRange?.clamped(to: full) ?? full
            storage = .integer(range)
            expectation = "expected an \(type.name) (\(range.lowerBound)...\(range.upperBound))"
        case .double:
            storage = .double
            expectation = "expected a double (a number such as -12.5 or 1.5e3)"
        case .float:
            storage = .float
            expectation = "expected a float (a number such as -12.5 or 1.5e3, at most ±3.4028235e38)"
        case .decimal:
            storage = .decimal
            expectation = "expected a decimal (a number such as -12.50 or 1.5e3, at most 38 significant digits)"
        case .string:
            let separator = options.arraySeparator.map { Array($0.utf8) }
            storage = .string(trims: options.trimsStrings, separator: separator)
            expectation = "expected a string"
        case .boolean:
            storage = .boolean(BooleanTokens(options))
            expectation =
                "expected true/false (\(options.trueTokens.joined(separator: ", ")) / "
                + "\(options.falseTokens.joined(separator: ", ")))"
        case .date:
            storage = .date(options.dateFormats)
            expectation = "expected a date in " + Self.alternatives(options.dateFormats.map(\.expectationName))
        case .binary:
            storage = .binary
            expectation = "expected binary data in base64 (standard alphabet, padding optional)"
        case .uuid:
            storage = .uuid
            expectation =
                "expected a UUID (8-4-4-4-12 hexadecimal digits, such as 123e4567-e89b-12d3-a456-426614174000)"
        case .uri:
            storage = .uri
            expectation = "expected a URI (RFC 3986 characters, no spaces; others percent-encoded)"
        case .transformable:
            throw ConversionFailure(.unsupportedType, "transformable attributes cannot be imported from a field")
        }
    }

    // MARK: Batch mode

    /// Appends `field`'s stored form to the open row of `rows`: exactly one cell on success (a null cell for null),
    /// nothing on failure. Allocates nothing on success.
    ///
    /// - Returns: `nil` on success; otherwise what was expected, with an excerpt of the value.
    public func append(_ field: Field, to rows: inout PackedRows) -> ConversionFailure? {
        let kind = field.kind
        return field.withUnsafeBytes { append(bytes: $0, kind: kind, to: &rows) }
    }

    /// Appends the stored form of a value given as UTF-8 `bytes` of `kind` (for constants, defaults and tests).
    ///
    /// - Returns: as ``append(_:to:)``.
    public func append(bytes: UnsafeRawBufferPointer, kind: FieldKind, to rows: inout PackedRows)
        -> ConversionFailure?
    {
        if kind == .null {
            rows.appendNull()
            return nil
        }
        if case .string(let trims, let separator) = storage {
            Self.appendString(bytes, kind: kind, trims: trims, separator: separator, to: &rows)
            return nil
        }
        let text = bytes.trimmingASCIIWhitespace()
        if text.isEmpty {
            rows.appendNull()
            return nil
        }
        guard accepts(kind) else { return failure(.wrongKind(kind), bytes) }
        switch storage {
        case .integer(let range):
            switch Self.parseInteger(text, in: range) {
            case .success(let value): rows.appendInteger(value)
            case .failure(let rejection): return failure(rejection, bytes)
            }
        case .double, .float:
            switch parseReal(text) {
            case .success(let value): rows.appendReal(value)
            case .failure(let rejection): return failure(rejection, bytes)
            }
        case .decimal:
            switch DecimalText.parse(text) {
            case .success(let number):
                rows.appendDecimal(number, parsedFrom: text)
            case .failure(let problem): return failure(problem == .range ? .outOfRange : .invalid, bytes)
            }
        case .boolean(let tokens):
            guard let value = tokens.value(of: text, kind: kind) else { return failure(.invalid, bytes) }
            rows.appendBoolean(value)
        case .date(let formats):
            guard let seconds = Self.parseDate(text, formats: formats) else { return failure(.invalid, bytes) }
            rows.appendDate(secondsSince1970: seconds)
        case .uuid:
            guard Self.isUUID(text) else { return failure(.invalid, bytes) }
            rows.appendUUID(text: text)
        case .uri:
            guard Self.isURI(text) else { return failure(.invalid, bytes) }
            rows.appendText(text)
        case .binary:
            guard Base64.appendDecoded(text, to: &rows) else { return failure(.invalid, bytes) }
        case .string:
            preconditionFailure("strings are appended above")
        }
        return nil
    }

    /// Appends the stored form of `text` read as a field of `kind` (`nil` is null). For constants and tests.
    ///
    /// - Returns: as ``append(_:to:)``.
    public func append(text: String?, kind: FieldKind = .string, to rows: inout PackedRows) -> ConversionFailure? {
        guard var text else {
            return append(bytes: UnsafeRawBufferPointer(start: nil, count: 0), kind: .null, to: &rows)
        }
        return text.withUTF8 { append(bytes: UnsafeRawBufferPointer($0), kind: kind, to: &rows) }
    }

    // MARK: Shared

    /// Whether a field of `kind` can become this attribute's value at all (null aside).
    func accepts(_ kind: FieldKind) -> Bool {
        switch (kind, storage) {
        case (.null, _), (.string, _), (_, .string): true
        case (.number, .integer), (.number, .double), (.number, .float), (.number, .decimal), (.number, .date),
            (.number, .boolean):
            true
        case (.boolean, .boolean): true
        default: false
        }
    }

    /// The failure for `rejection` of the field `bytes` (the rare path: it allocates).
    func failure(_ rejection: Rejection, _ bytes: UnsafeRawBufferPointer) -> ConversionFailure {
        switch rejection {
        case .invalid: ConversionFailure(.invalidValue, expectation, bytes: bytes)
        case .outOfRange: ConversionFailure(.outOfRange, expectation, bytes: bytes)
        case .wrongKind(let kind): ConversionFailure(.wrongKind, "\(expectation), not \(kind.phrase)", bytes: bytes)
        }
    }

    /// `a`, `a or b`, `a, b or c`.
    static func alternatives(_ names: [String]) -> String {
        guard let last = names.last else { return "" }
        return names.count == 1 ? last : names.dropLast().joined(separator: ", ") + " or " + last
    }
}

extension FieldKind {
    /// How a failure names a field of this kind: `a JSON array or object`.
    var phrase: String {
        switch self {
        case .null: "null"
        case .string: "a string"
        case .number: "a JSON number"
        case .boolean: "a JSON boolean"
        case .json: "a JSON array or object"
        }
    }
}

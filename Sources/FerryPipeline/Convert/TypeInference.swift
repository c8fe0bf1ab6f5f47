public import FerryIO
public import FerryStore

/// Infers a column's attribute type from its values, for `ferry import` without a model: feed it every value
/// (or a sample), then read ``inferredType``. Streaming: it keeps a few flags, not the values.
///
/// Conservative, so that importing as the inferred type never changes what a value says:
///
/// - `AttributeType.integer64` when every value is `-?digits` without leading zeros (`0` alone is fine; `00123`,
///   `+5` and `-0` stay strings, as do integers past Int64).
/// - `AttributeType.double` when every value is such an integer or `-?digits.digits` with the same rule before
///   the point (`0.5`, `-12.25`; not `.5`, `5.`, `01.5`, `-0` or `1e3`), with at most 15 significant digits so
///   that a double holds it as written. JSON numbers may also use an exponent.
/// - `AttributeType.boolean` only for `true` and `false`, in any case (not `yes`, `1`…), and JSON booleans.
/// - `AttributeType.date` only when every value is ISO-8601 with at least a full date (`2026-01-05`).
/// - `AttributeType.string` otherwise, including when there are no non-empty values at all.
///
/// Values are not trimmed: ` 12` is a string. Null and empty values are skipped and reported by
/// ``hasEmptyValues`` (the attribute should then be optional).
///
/// ```swift
/// var inference = TypeInference()
/// for value in ["12", "7", ""] { inference.add(value) }
/// inference.inferredType  // .integer64
/// inference.hasEmptyValues  // true
/// ```
public struct TypeInference: Sendable, Hashable {
    private struct Candidates: OptionSet, Hashable {
        let rawValue: UInt8
        static let integer = Candidates(rawValue: 1 << 0)
        static let double = Candidates(rawValue: 1 << 1)
        static let boolean = Candidates(rawValue: 1 << 2)
        static let date = Candidates(rawValue: 1 << 3)
        static let all: Candidates = [.integer, .double, .boolean, .date]
    }

    private var candidates = Candidates.all
    /// The number of values added that were neither null nor empty.
    public private(set) var valueCount = 0
    /// Whether any value added was null or empty.
    public private(set) var hasEmptyValues = false

    /// An inference that has seen no value.
    public init() {}

    /// The type every non-empty value so far fits, most specific first; `AttributeType.string` when none.
    public var inferredType: AttributeType {
        guard valueCount > 0 else { return .string }
        if candidates.contains(.integer) { return .integer64 }
        if candidates.contains(.double) { return .double }
        if candidates.contains(.boolean) { return .boolean }
        if candidates.contains(.date) { return .date }
        return .string
    }

    /// Adds a field's value (its kind counts: a JSON array is a string, a JSON boolean a boolean).
    public mutating func add(_ field: Field) {
        let kind = field.kind
        field.withUnsafeBytes { add(bytes: $0, kind: kind) }
    }

    /// Adds a value; `nil` is null.
    public mutating func add(_ text: String?, kind: FieldKind = .string) {
        guard var text else { return add(bytes: UnsafeRawBufferPointer(start: nil, count: 0), kind: .null) }
        text.withUTF8 { add(bytes: UnsafeRawBufferPointer($0), kind: kind) }
    }

    /// Adds a value given as UTF-8 `bytes` of `kind`.
    public mutating func add(bytes: UnsafeRawBufferPointer, kind: FieldKind) {
        if kind == .null || bytes.isEmpty {
            hasEmptyValues = true
            return
        }
        valueCount += 1
        guard !candidates.isEmpty else { return }
        switch kind {
        case .json:
            candidates = []
            return
        case .boolean:
            candidates.formIntersection(.boolean)
            return
        case .null, .string, .number:
            break
        }
        if candidates.contains(.integer) && !Self.isPlainInteger(bytes) { candidates.remove(.integer) }
        if candidates.contains(.double) && !Self.isPlainDouble(bytes, allowsExponent: kind == .number) {
            candidates.remove(.double)
        }
        if candidates.contains(.boolean)
            && !(bytes.equalsIgnoringASCIICase(Self.trueBytes) || bytes.equalsIgnoringASCIICase(Self.falseBytes))
        {
            candidates.remove(.boolean)
        }
        if candidates.contains(.date) && ISO8601Parser.parse(bytes)?.secondsSince1970 == nil {
            candidates.remove(.date)
        }
    }

    /// Adds what `other` has seen (for inferring over chunks in parallel).
    public mutating func merge(_ other: TypeInference) {
        candidates.formIntersection(other.candidates)
        valueCount += other.valueCount
        hasEmptyValues = hasEmptyValues || other.hasEmptyValues
    }

    private static let trueBytes = Array("true".utf8)
    private static let falseBytes = Array("false".utf8)

    /// `-?(0|[1-9][0-9]*)` within Int64, not `-0`.
    static func isPlainInteger(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let negative = !bytes.isEmpty && bytes[0] == UInt8(ascii: "-")
        let start = negative ? 1 : 0
        guard start < bytes.count else { return false }
        for index in start..<bytes.count where !bytes[index].isASCIIDigit { return false }
        if bytes[start] == UInt8(ascii: "0") && (bytes.count - start > 1 || negative) { return false }
        guard case .success = FieldConverter.parseInteger(bytes, in: Int64.min...Int64.max) else { return false }
        return true
    }

    /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?` but not `-0`, or (for JSON numbers) any JSON number, with at most 15
    /// significant digits.
    static func isPlainDouble(_ bytes: UnsafeRawBufferPointer, allowsExponent: Bool) -> Bool {
        var cursor = ByteCursor(bytes)
        _ = cursor.skip(UInt8(ascii: "-"))
        let integerStart = cursor.index
        while cursor.peek?.isASCIIDigit == true { cursor.index += 1 }
        guard cursor.index > integerStart else { return false }
        let leadingZero = bytes[integerStart] == UInt8(ascii: "0")
        if leadingZero && cursor.index - integerStart > 1 { return false }
        if leadingZero && integerStart > 0 && cursor.isAtEnd { return false }  // -0
        if cursor.skip(UInt8(ascii: ".")) {
            let fractionStart = cursor.index
            while cursor.peek?.isASCIIDigit == true { cursor.index += 1 }
            guard cursor.index > fractionStart else { return false }
        }
        if allowsExponent, cursor.skip(either: UInt8(ascii: "e"), or: UInt8(ascii: "E")) != nil {
            _ = cursor.skip(either: UInt8(ascii: "+"), or: UInt8(ascii: "-"))
            let exponentStart = cursor.index
            while cursor.peek?.isASCIIDigit == true { cursor.index += 1 }
            guard cursor.index > exponentStart else { return false }
        }
        guard cursor.isAtEnd, case .success(let number) = DecimalText.parse(bytes) else { return false }
        return number.significantCount <= 15
    }
}

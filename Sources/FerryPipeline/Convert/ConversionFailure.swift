/// Why a field could not become an attribute's value: what was expected, as a user reads it, and a short excerpt
/// of the offending value for the rejects file.
///
/// ``description`` and ``message`` never contain the value (logs travel); ``expandedDescription`` adds the
/// excerpt, for the rejects file that sits next to the data anyway.
///
/// ```
/// expected an integer32 (-2147483648...2147483647)            // message
/// expected an integer32 (-2147483648...2147483647), got "12x"  // expandedDescription
/// ```
public struct ConversionFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure this is. Extensible: compare with the static members.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The code's name, such as `invalidValue`.
        public var rawValue: String
        /// A code named `rawValue`.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The code's name.
        public var description: String { rawValue }

        /// The text is not a value of the attribute's type (`12x` for an integer, `maybe` for a boolean).
        public static let invalidValue = Code(rawValue: "invalidValue")
        /// The text is a number, but one the attribute cannot hold (too large, too many digits).
        public static let outOfRange = Code(rawValue: "outOfRange")
        /// The field's kind cannot become the attribute's type (a JSON array for an integer).
        public static let wrongKind = Code(rawValue: "wrongKind")
        /// The attribute's type cannot be imported from a field at all (transformable attributes).
        public static let unsupportedType = Code(rawValue: "unsupportedType")
        /// The ``ConversionOptions`` cannot be used (no date format, a token both true and false…).
        public static let invalidOptions = Code(rawValue: "invalidOptions")
    }

    /// The longest excerpt kept, in characters (Unicode scalars), before it is cut and ends with `…`.
    public static let excerptLimit = 40

    /// What went wrong.
    public var code: Code
    /// What was expected, such as `expected an integer32 (-2147483648...2147483647)`; never the value itself.
    public var message: String
    /// The start of the offending value (at most ``excerptLimit`` characters, then `…`); empty when there was
    /// none.
    public var excerpt: String

    /// Creates a failure.
    public init(_ code: Code, _ message: String, excerpt: String = "") {
        self.code = code
        self.message = message
        self.excerpt = excerpt
    }

    /// Creates a failure whose excerpt is the start of `bytes` (UTF-8, cut on a character boundary).
    init(_ code: Code, _ message: String, bytes: UnsafeRawBufferPointer) {
        self.init(code, message, excerpt: Self.excerpt(of: bytes))
    }

    /// The message, without the value.
    public var description: String { message }

    /// The message followed by the excerpt: `expected a boolean (…), got "maybe"`. Row data: for the rejects file.
    public var expandedDescription: String {
        excerpt.isEmpty ? message : "\(message), got \"\(excerpt)\""
    }

    /// The first ``excerptLimit`` Unicode scalars of `bytes`, then `…` when there were more.
    static func excerpt(of bytes: UnsafeRawBufferPointer) -> String {
        var scalars = String.UnicodeScalarView()
        var decoder = UTF8()
        var iterator = bytes.makeIterator()
        var taken = 0
        decoding: while true {
            let scalar: Unicode.Scalar
            switch decoder.decode(&iterator) {
            case .scalarValue(let value): scalar = value
            case .emptyInput: break decoding
            case .error: scalar = "\u{FFFD}"
            }
            guard taken < excerptLimit else {
                scalars.append("…")
                break decoding
            }
            scalars.append(scalar)
            taken += 1
        }
        return String(scalars)
    }
}

/// An error reading or writing a file, saying where it happened and what was expected.
///
/// The description never contains field values, only positions and expectations, so that it can go to
/// logs that travel.
///
/// ```
/// products.csv:12:7: unterminated quoted field: expected a closing '"' before the end of the input
/// ```
public struct FerryIOError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is. Extensible: compare with the static members.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// The input file does not exist.
        public static let fileNotFound = Code(rawValue: "fileNotFound")
        /// The file could not be opened for lack of permission.
        public static let permissionDenied = Code(rawValue: "permissionDenied")
        /// A read, write, sync or rename failed; ``FerryIOError/errno`` says why.
        public static let io = Code(rawValue: "io")
        /// A quoted CSV field has no closing quote.
        public static let unterminatedQuote = Code(rawValue: "unterminatedQuote")
        /// A quote appears where RFC 4180 does not allow one.
        public static let malformedQuote = Code(rawValue: "malformedQuote")
        /// A record has a different number of fields than the header (or the first record).
        public static let fieldCount = Code(rawValue: "fieldCount")
        /// The bytes are not valid UTF-8.
        public static let invalidUTF8 = Code(rawValue: "invalidUTF8")
        /// The input holds a NUL byte.
        public static let nulByte = Code(rawValue: "nulByte")
        /// A field or record is larger than the configured limit.
        public static let fieldTooLarge = Code(rawValue: "fieldTooLarge")
        /// The input is in an encoding Ferry does not read (UTF-16 or UTF-32).
        public static let unsupportedEncoding = Code(rawValue: "unsupportedEncoding")
        /// JSON syntax error.
        public static let invalidJSON = Code(rawValue: "invalidJSON")
        /// The input ended inside a value.
        public static let unexpectedEnd = Code(rawValue: "unexpectedEnd")
        /// Something follows the end of the JSON document.
        public static let trailingGarbage = Code(rawValue: "trailingGarbage")
        /// JSON nesting is deeper than the configured limit.
        public static let depthExceeded = Code(rawValue: "depthExceeded")
        /// A JSON element where a record was expected is not an object.
        public static let notAnObject = Code(rawValue: "notAnObject")
        /// A record has a field that the output's columns do not include.
        public static let unknownColumn = Code(rawValue: "unknownColumn")
        /// The format is one Ferry does not read or write this way (Parquet is written from typed columns only).
        public static let unsupportedFormat = Code(rawValue: "unsupportedFormat")
        /// A value does not fit its column: a null in a required column, a number outside its integer type, a
        /// decimal with more digits than its declared precision or scale.
        public static let invalidValue = Code(rawValue: "invalidValue")
    }

    /// What went wrong.
    public var code: Code
    /// What was found and what was expected, without any field value.
    public var message: String
    /// The file's path as given, `-` for standard input; `nil` when unknown.
    public var file: String?
    /// The line, from 1.
    public var line: Int?
    /// The column on ``line``, in bytes, from 1.
    public var column: Int?
    /// The offset from the start of the input, in bytes, from 0.
    public var byteOffset: Int?
    /// The data record's number, from 1.
    public var record: Int?
    /// The C `errno` behind an I/O failure.
    public var errno: Int32?
    /// Whether only one record is malformed and the reader has skipped it: calling ``RecordReader/next()`` again
    /// reads on from the next record. True for a CSV record with the wrong number of fields
    /// (``Code/fieldCount``) and for an NDJSON line that is not one well-formed JSON object; every other error ends
    /// the input.
    public var isRecoverable = false
    /// The skipped record's text as read, when the reader kept it (an NDJSON line, cut at
    /// ``JSONReaderOptions/maxValueBytes``), so that a rejects file can show it. Row data: never part of
    /// ``description``.
    public var recordText: String?

    /// Creates an error.
    public init(
        _ code: Code, _ message: String, file: String? = nil, line: Int? = nil, column: Int? = nil,
        byteOffset: Int? = nil, record: Int? = nil, errno: Int32? = nil
    ) {
        self.code = code
        self.message = message
        self.file = file
        self.line = line
        self.column = column
        self.byteOffset = byteOffset
        self.record = record
        self.errno = errno
    }

    /// `file:line:column: message (record N, byte B)`, leaving out what is unknown.
    public var description: String {
        var text = file.map { $0 == "-" ? "<stdin>" : $0 } ?? "<input>"
        if let line {
            text += ":\(line)"
            if let column { text += ":\(column)" }
        }
        text += ": " + message
        var details: [String] = []
        if let record { details.append("record \(record)") }
        if let byteOffset { details.append("byte \(byteOffset)") }
        if !details.isEmpty { text += " (" + details.joined(separator: ", ") + ")" }
        return text
    }
}

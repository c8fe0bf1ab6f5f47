/// A date pattern such as `dd/MM/yyyy HH:mm:ss` or `yyyy-MM-dd'T'HH:mm:ss.SSSXXX`, compiled once into steps
/// that read a field's bytes directly (no `DateFormatter` on the hot path).
///
/// The letters are Unicode's (as in `DateFormatter`), a small subset of them:
///
/// | letters | reads |
/// |---|---|
/// | `yyyy` | a four-digit year |
/// | `MM`, `dd`, `HH`, `mm`, `ss` | exactly two digits: month, day, hour (0-23), minute, second |
/// | `M`, `d`, `H`, `m`, `s` | one or two digits |
/// | `S`…`SSSSSSSSS` | exactly as many fraction-of-second digits |
/// | `XXX` | `Z` or `±HH:MM` (or `±HH`) |
/// | `XX`, `Z` | `Z` or `±HHMM` (or `±HH`) |
/// | `X` | `Z`, `±HH` or `±HHMM` |
/// | `'text'` | `text` literally (`''` is one quote) |
///
/// Any other character that is not an ASCII letter stands for itself. A pattern must name the year, month and
/// day; a missing time is midnight, and (Our rule) a missing zone is UTC.
///
/// ```swift
/// let pattern = try DatePattern("dd/MM/yyyy HH:mm")
/// ```
public struct DatePattern: Sendable, Hashable, CustomStringConvertible {
    /// Why a pattern does not compile.
    public struct SyntaxError: Error, Sendable, Hashable, CustomStringConvertible {
        /// The pattern as written.
        public var pattern: String
        /// What is wrong and what was expected.
        public var message: String
        /// `date pattern 'PATTERN': MESSAGE`.
        public var description: String { "date pattern '\(pattern)': \(message)" }
    }

    enum Field: Sendable, Hashable {
        case year, month, day, hour, minute, second
    }

    enum Zone: Sendable, Hashable {
        /// `XXX`: `±HH:MM`.
        case extended
        /// `XX`, `Z`: `±HHMM`.
        case basic
        /// `X`: `±HH` or `±HHMM`.
        case hours
    }

    enum Step: Sendable, Hashable {
        case number(Field, minimumDigits: Int, maximumDigits: Int)
        case fraction(digits: Int)
        case zone(Zone)
        case literal(UInt8)
    }

    /// The pattern as written.
    public let source: String
    let steps: [Step]

    /// Compiles `pattern`.
    ///
    /// - Throws: ``SyntaxError`` for an unsupported letter (`MMM`, `yy`, `hh`, `a`…), an unterminated quote, a
    ///   field named twice, or a pattern without year, month and day.
    public init(_ pattern: String) throws(SyntaxError) {
        source = pattern
        steps = try Self.compile(pattern)
    }

    /// The pattern as written.
    public var description: String { source }

    /// The date and time `bytes` hold when they match the pattern from start to end, else `nil`.
    package func parse(_ bytes: UnsafeRawBufferPointer) -> CivilTime? {
        var cursor = ByteCursor(bytes)
        var time = CivilTime()
        for step in steps {
            switch step {
            case .number(let field, let minimum, let maximum):
                guard let value = cursor.digits(minimum: minimum, maximum: maximum) else { return nil }
                switch field {
                case .year: time.year = value
                case .month: time.month = value
                case .day: time.day = value
                case .hour: time.hour = value
                case .minute: time.minute = value
                case .second: time.second = value
                }
            case .fraction(let digits):
                guard var nanosecond = cursor.digits(exactly: digits) else { return nil }
                for _ in digits..<9 { nanosecond *= 10 }
                time.nanosecond = nanosecond
            case .zone(let zone):
                let offset: Int?
                switch zone {
                case .extended: offset = ISO8601Parser.readZone(&cursor, allowsColon: true, allowsBasic: false)
                case .basic, .hours: offset = ISO8601Parser.readZone(&cursor, allowsColon: false, allowsBasic: true)
                }
                guard let offset else { return nil }
                time.offsetSeconds = offset
            case .literal(let byte):
                guard cursor.skip(byte) else { return nil }
            }
        }
        return cursor.isAtEnd ? time : nil
    }

    // MARK: Compiling

    private static func compile(_ pattern: String) throws(SyntaxError) -> [Step] {
        func failure(_ message: String) -> SyntaxError { SyntaxError(pattern: pattern, message: message) }
        let bytes = Array(pattern.utf8)
        var steps: [Step] = []
        var seen: Set<UInt8> = []
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "'") {
                index = try compileQuoted(bytes, from: index + 1, into: &steps, failure: failure)
                continue
            }
            guard byte.isASCIILetter else {
                steps.append(.literal(byte))
                index += 1
                continue
            }
            var run = 1
            while index + run < bytes.count, bytes[index + run] == byte { run += 1 }
            let letters = String(decoding: bytes[index..<index + run], as: UTF8.self)
            guard let step = step(for: byte, count: run) else {
                throw failure(
                    "'\(letters)' is not supported; use yyyy, MM, M, dd, d, HH, H, mm, m, ss, s, S…, X, XX, XXX, Z")
            }
            let field = byte == UInt8(ascii: "Z") ? UInt8(ascii: "X") : byte
            guard seen.insert(field).inserted else { throw failure("'\(letters)' names a field a second time") }
            steps.append(step)
            index += run
        }
        let required: [(UInt8, String)] = [
            (UInt8(ascii: "y"), "year (yyyy)"), (UInt8(ascii: "M"), "month (MM)"), (UInt8(ascii: "d"), "day (dd)"),
        ]
        for (letter, name) in required where !seen.contains(letter) {
            throw failure("the pattern has no \(name)")
        }
        return steps
    }

    /// Reads a quoted literal starting after its opening quote; returns the index after the closing quote.
    private static func compileQuoted(
        _ bytes: [UInt8], from start: Int, into steps: inout [Step], failure: (String) -> SyntaxError
    ) throws(SyntaxError) -> Int {
        var index = start
        if index < bytes.count, bytes[index] == UInt8(ascii: "'") {
            steps.append(.literal(UInt8(ascii: "'")))  // '' is one quote
            return index + 1
        }
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "'") {
                if index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "'") {
                    steps.append(.literal(UInt8(ascii: "'")))
                    index += 2
                    continue
                }
                return index + 1
            }
            steps.append(.literal(bytes[index]))
            index += 1
        }
        throw failure("a quote opened at character \(start) is not closed")
    }

    private static func step(for letter: UInt8, count: Int) -> Step? {
        switch (letter, count) {
        case (UInt8(ascii: "y"), 4): .number(.year, minimumDigits: 4, maximumDigits: 4)
        case (UInt8(ascii: "M"), 1...2): .number(.month, minimumDigits: count, maximumDigits: 2)
        case (UInt8(ascii: "d"), 1...2): .number(.day, minimumDigits: count, maximumDigits: 2)
        case (UInt8(ascii: "H"), 1...2): .number(.hour, minimumDigits: count, maximumDigits: 2)
        case (UInt8(ascii: "m"), 1...2): .number(.minute, minimumDigits: count, maximumDigits: 2)
        case (UInt8(ascii: "s"), 1...2): .number(.second, minimumDigits: count, maximumDigits: 2)
        case (UInt8(ascii: "S"), 1...9): .fraction(digits: count)
        case (UInt8(ascii: "X"), 1): .zone(.hours)
        case (UInt8(ascii: "X"), 2), (UInt8(ascii: "Z"), 1): .zone(.basic)
        case (UInt8(ascii: "X"), 3): .zone(.extended)
        default: nil
        }
    }
}

extension UInt8 {
    fileprivate var isASCIILetter: Bool {
        (self >= UInt8(ascii: "a") && self <= UInt8(ascii: "z"))
            || (self >= UInt8(ascii: "A") && self <= UInt8(ascii: "Z"))
    }
}

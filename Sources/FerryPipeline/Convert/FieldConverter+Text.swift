import FerryIO
import FerryStore

/// Strings, UUIDs and URIs from borrowed bytes.
extension FieldConverter {
    /// Appends what a string attribute stores for a field: its text, trimmed when asked; a JSON array's elements
    /// joined when a separator is set and they are all scalars; otherwise (other JSON too) the text as read.
    static func appendString(
        _ bytes: UnsafeRawBufferPointer, kind: FieldKind, trims: Bool, separator: [UInt8]?, to rows: inout PackedRows
    ) {
        let text = trims ? bytes.trimmingASCIIWhitespace() : bytes
        if kind == .json, let separator, let count = JSONArrayJoiner.joinedCount(text, separator: separator) {
            rows.appendText(capacity: count) { JSONArrayJoiner.write(text, separator: separator, into: $0) }
        } else {
            rows.appendText(text)
        }
    }

    /// Whether `text` is 8-4-4-4-12 hexadecimal digits (either case) separated by `-`.
    static func isUUID(_ text: UnsafeRawBufferPointer) -> Bool {
        guard text.count == 36 else { return false }
        for index in 0..<36 {
            if index == 8 || index == 13 || index == 18 || index == 23 {
                guard text[index] == UInt8(ascii: "-") else { return false }
            } else {
                guard text[index].hexDigit != nil else { return false }
            }
        }
        return true
    }

    /// Whether `text` is made only of RFC 3986 characters (unreserved, reserved, and `%` with two hexadecimal
    /// digits). Such text is a URI `URL` keeps exactly as written, so batch and context imports store the same.
    static func isURI(_ text: UnsafeRawBufferPointer) -> Bool {
        guard !text.isEmpty else { return false }
        var index = 0
        while index < text.count {
            let byte = text[index]
            if byte == UInt8(ascii: "%") {
                guard index + 2 < text.count, text[index + 1].hexDigit != nil, text[index + 2].hexDigit != nil else {
                    return false
                }
                index += 3
                continue
            }
            guard byte.isURICharacter else { return false }
            index += 1
        }
        return true
    }
}

extension UInt8 {
    /// An RFC 3986 unreserved or reserved character.
    fileprivate var isURICharacter: Bool {
        switch self {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
            true  // unreserved
        case UInt8(ascii: ":"), UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "#"), UInt8(ascii: "["),
            UInt8(ascii: "]"), UInt8(ascii: "@"):
            true  // gen-delims
        case UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "("),
            UInt8(ascii: ")"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: ","), UInt8(ascii: ";"),
            UInt8(ascii: "="):
            true  // sub-delims
        default:
            false
        }
    }
}

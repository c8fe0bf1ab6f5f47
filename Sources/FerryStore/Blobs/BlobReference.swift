/// The reference an externally stored binary value leaves in its column: the TEXT
/// `ferry-blob:sha256:<64 lowercase hex digits>`, the SHA-256 of the bytes the file holds.
///
/// An inline value stays a BLOB, so `typeof(photo)` tells the two apart in any SQLite tool. A reference is the only
/// stored text that is ever turned into a file path, and only after its whole shape has been checked: the prefix,
/// then exactly 64 characters from `0-9a-f`. A column holding anything else (`../../etc/passwd`, upper-case hex, a
/// hash one digit short) is refused with ``StoreError/Code/invalidBlobReference`` and no file is opened.
///
/// ```swift
/// let reference = try BlobReference(storedText: "ferry-blob:sha256:9f86d081…")
/// reference.relativePath  // "9f/9f86d081…"
/// ```
struct BlobReference: Sendable, Hashable, CustomStringConvertible {
    /// The text every reference starts with.
    static let prefix = "ferry-blob:sha256:"
    /// The length of a whole reference: the prefix and 64 hex digits.
    static let storedLength = prefix.utf8.count + 64

    /// The SHA-256 of the value, as 64 lowercase hex digits.
    let hash: String

    /// A reference to the value whose SHA-256 digest is `digest` (32 bytes).
    init(digest: some Collection<UInt8>) {
        precondition(digest.count == 32, "a SHA-256 digest has 32 bytes")
        let digits = Array("0123456789abcdef".utf8)
        var hex: [UInt8] = []
        hex.reserveCapacity(64)
        for byte in digest {
            hex.append(digits[Int(byte >> 4)])
            hex.append(digits[Int(byte & 0x0f)])
        }
        self.hash = String(decoding: hex, as: UTF8.self)
    }

    /// The reference `text` spells, or `nil` unless it has exactly the stored shape.
    init?(storedText text: String) {
        let utf8 = text.utf8
        guard utf8.count == Self.storedLength, utf8.starts(with: Self.prefix.utf8) else { return nil }
        let hash = Substring(text.utf8.dropFirst(Self.prefix.utf8.count))
        guard Self.isHash(hash) else { return nil }
        self.hash = String(hash)
    }

    /// A reference to `hash`, or `nil` unless it is 64 lowercase hex digits (names found in the blob folder).
    init?(hash: some StringProtocol) {
        guard Self.isHash(hash) else { return nil }
        self.hash = String(hash)
    }

    /// Whether `text` is exactly 64 characters from `0-9a-f`.
    static func isHash(_ text: some StringProtocol) -> Bool {
        text.utf8.count == 64 && isHexDigits(text)
    }

    /// Whether `text` is one or more characters from `0-9a-f`.
    static func isHexDigits(_ text: some StringProtocol) -> Bool {
        !text.utf8.isEmpty && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    /// The column's text.
    var storedText: String { Self.prefix + hash }

    /// The file's path inside the blob folder: `<first two digits>/<hash>`.
    var relativePath: String { "\(hash.prefix(2))/\(hash)" }

    var description: String { storedText }

    /// An SQL condition true exactly when `expression` is a well-formed reference, so the reference-counting
    /// triggers count nothing else: `typeof(x) = 'text' AND length(x) = 82 AND x GLOB 'ferry-blob:sha256:[0-9a-f]…'`.
    /// (`GLOB` is case-sensitive, and `length` counts characters, so multi-byte text cannot pass.)
    static func sqlCondition(_ expression: String) -> String {
        let pattern = prefix + String(repeating: "[0-9a-f]", count: 64)
        return "typeof(\(expression)) = 'text' AND length(\(expression)) = \(storedLength) "
            + "AND \(expression) GLOB '\(pattern)'"
    }

    /// The SQL for the hash of the reference `expression` (the text after the prefix).
    static func sqlHash(_ expression: String) -> String {
        "substr(\(expression), \(prefix.utf8.count + 1))"
    }
}
